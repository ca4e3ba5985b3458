"""resources.gpus > 1: the launcher runs the job under torchrun. Here, without CUDA, as two CPU processes over gloo,
on the tiny model: one stream of progress, the same rows per step as one process, and the checkpoint/resume
contract of a single-process run (killed after a checkpoint, resumed, it follows the uninterrupted trajectory)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conftest import TRAINER_ROOT, make_job, run_train, step_losses as _losses

if TYPE_CHECKING:
    from flywheel_trainer.job import TrainJob

TOLERANCE = 1e-4  # as test_resume: reduction order only


def _train(
    job: TrainJob, path: Path, kill_after_checkpoint: int | None = None, resume: str | None = None
) -> list[dict]:
    code, events, stderr = run_train(job, path, kill_after_checkpoint, resume)
    if kill_after_checkpoint is None:
        assert code == 0, stderr[-3000:]
    return events


def test_two_processes_one_progress_stream_and_resume(tmp_path, dataset):
    over = {"optim": {"maxSteps": 12}, "checkpointEvery": 4, "resources": {"gpus": 2}}
    straight = _train(make_job(tmp_path / "a", dataset, **over), tmp_path / "a.json")
    out = Path(tmp_path / "a" / "out")
    # Rank 0 alone reports: one line per step, one done, no duplicate lines in metrics.jsonl.
    assert [e["event"] for e in straight].count("done") == 1
    assert sorted(_losses(straight)) == list(range(1, 13))
    metrics = (out / "metrics.jsonl").read_text().splitlines()
    assert len(metrics) == len(set(metrics)) == len(straight)
    # effectiveBatchSize holds: 96 rows at 8 a step over two processes is one epoch in 12 steps, as on one.
    assert next(e for e in reversed(straight) if e["event"] == "step")["epoch"] == 1.0
    checkpoint = out / "checkpoints" / "checkpoint-4"
    assert (checkpoint / "rng_state_0.pth").is_file() and (checkpoint / "rng_state_1.pth").is_file(), (
        "each rank's RNG state is saved"
    )
    assert (out / "adapter" / "adapter_model.safetensors").is_file()

    job_b = make_job(tmp_path / "b", dataset, **over)
    _train(job_b, tmp_path / "b.json", kill_after_checkpoint=4)
    ckpt_b = Path(job_b.outputDir) / "checkpoints" / "checkpoint-4"
    resumed = _train(job_b, tmp_path / "b.json", resume=str(ckpt_b))
    assert resumed[0]["event"] == "start" and resumed[0]["step"] == 4
    a, b = _losses(straight), _losses(resumed)
    assert sorted(b) == list(range(5, 13))
    for step in b:
        assert abs(a[step] - b[step]) <= TOLERANCE * abs(a[step]), (step, a[step], b[step])
    assert resumed[-1]["event"] == "done" and resumed[-1]["step"] == 12


def _run_bad(job: TrainJob, path: Path) -> subprocess.CompletedProcess:
    """Run a job expected to be refused as bad: exit 2, as from one process."""
    path.write_text(json.dumps(job.to_dict()))
    proc = subprocess.run(
        [sys.executable, "-m", "flywheel_trainer", "train", "--job", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TRAINER_ROOT)},
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    return proc


def test_a_multi_process_job_is_checked_before_any_process_starts(tmp_path, dataset):
    proc = _run_bad(
        make_job(tmp_path / "c", dataset, resources={"gpus": 2}, resumeFrom=str(tmp_path / "missing")),
        tmp_path / "c.json",
    )
    assert "resumeFrom" in proc.stderr and "torch.distributed" not in proc.stderr


def test_a_rank_that_finds_the_job_bad_exits_2_like_one_process(tmp_path, dataset):
    # Found only once a rank loads the base: still exit 2 (retrying cannot help) with the rank's error line relayed.
    proc = _run_bad(
        make_job(tmp_path / "d", dataset, resources={"gpus": 2}, baseModel=str(tmp_path / "no-such-base")),
        tmp_path / "d.json",
    )
    errors = [json.loads(line) for line in proc.stdout.splitlines() if '"error"' in line]
    assert len(errors) == 1 and errors[0]["kind"] == "bad_job" and "baseModel" in errors[0]["message"], errors
