"""A run killed mid-training and resumed from its checkpoint follows the uninterrupted run's loss trajectory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conftest import make_job

if TYPE_CHECKING:
    from flywheel_trainer.job import TrainJob

TRAINER_ROOT = Path(__file__).resolve().parent.parent
# Same machine, same threads, CPU: the resumed trajectory matches to float rounding. 1e-4 relative leaves room
# for reduction order, and is far below the step-to-step change in loss (~1e-2).
TOLERANCE = 1e-4


def _train(
    job: TrainJob, path: Path, kill_after_checkpoint: int | None = None, resume: str | None = None
) -> list[dict]:
    path.write_text(json.dumps(job.to_dict()))
    cmd = [sys.executable, "-m", "flywheel_trainer", "train", "--job", str(path)] + (
        ["--resume", resume] if resume else []
    )
    env = {**os.environ, "PYTHONPATH": str(TRAINER_ROOT), "OMP_NUM_THREADS": "2"}
    stderr_file = path.with_suffix(".stderr")
    with stderr_file.open("w") as err:  # a file, not a pipe: a chatty trainer cannot block on it
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    events = []
    for line in proc.stdout:
        event = json.loads(line)
        events.append(event)
        if (
            kill_after_checkpoint is not None
            and event["event"] == "checkpoint"
            and event["step"] == kill_after_checkpoint
        ):
            proc.send_signal(signal.SIGKILL)
            break
    code = proc.wait()
    stderr = stderr_file.read_text()
    if kill_after_checkpoint is None:
        assert code == 0, stderr[-3000:]
    else:
        assert code == -signal.SIGKILL
    return events


def _losses(events: list[dict]) -> dict[int, float]:
    return {e["step"]: e["loss"] for e in events if e["event"] == "step"}


def test_resume_continues_exactly(tmp_path, dataset):
    over = {"optim": {"maxSteps": 12}, "checkpointEvery": 4}
    straight = _train(make_job(tmp_path / "a", dataset, **over), tmp_path / "a.json")

    job_b = make_job(tmp_path / "b", dataset, **over)
    _train(job_b, tmp_path / "b.json", kill_after_checkpoint=4)
    checkpoint = Path(job_b.outputDir) / "checkpoints" / "checkpoint-4"
    assert (checkpoint / "optimizer.pt").is_file() and (checkpoint / "scheduler.pt").is_file()
    resumed = _train(job_b, tmp_path / "b.json", resume=str(checkpoint))

    assert resumed[0] == {"event": "start", "step": 4, "total": 12, "epoch": resumed[0]["epoch"]}
    a, b = _losses(straight), _losses(resumed)
    assert sorted(b) == list(range(5, 13)), "the resumed run starts at the step after the checkpoint"
    for step in b:
        assert abs(a[step] - b[step]) <= TOLERANCE * abs(a[step]), (step, a[step], b[step])
    assert abs(straight[-1]["eval_loss"] - resumed[-1]["eval_loss"]) <= TOLERANCE * straight[-1]["eval_loss"]


def test_resuming_from_the_final_checkpoint_takes_no_extra_step(tmp_path, dataset):
    # A worker killed after the last checkpoint but before it reported the adapter: the retry resumes from
    # the final checkpoint. transformers alone would take one more step (13 of 12); the trainer must not.
    job = make_job(tmp_path, dataset, optim={"maxSteps": 8}, checkpointEvery=4)
    first = _train(job, tmp_path / "job.json")
    final = Path(job.outputDir) / "checkpoints" / "checkpoint-8"
    again = _train(job, tmp_path / "job.json", resume=str(final))
    assert [e for e in again if e["event"] == "step"] == []
    assert again[-1]["event"] == "done" and again[-1]["step"] == 8
    assert abs(again[-1]["eval_loss"] - first[-1]["eval_loss"]) <= TOLERANCE * first[-1]["eval_loss"]
