"""Fixtures for the trainer tests: the synthetic dataset (synthetic.py) and a job builder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from synthetic import write_rows

if TYPE_CHECKING:
    from flywheel_trainer.job import TrainJob


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: loads a real pretrained base model (tens of seconds)")


@pytest.fixture
def dataset(tmp_path: Path) -> dict:
    return {
        "train": str(write_rows(tmp_path / "train.jsonl", 96, 1)),
        "val": str(write_rows(tmp_path / "val.jsonl", 24, 2)),
    }


def make_job(tmp_path: Path, dataset: dict, **over) -> TrainJob:
    from flywheel_trainer.job import validate_job

    job = {
        "version": 1,
        "baseModel": "tiny:nano",
        "data": dataset,
        "outputDir": str(tmp_path / "out"),
        "optim": {"epochs": 1, "effectiveBatchSize": 8, "microBatchSize": 4, "learningRate": 0.003, "maxSteps": 12},
        "checkpointEvery": 6,
        "logEvery": 1,
    }
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(job.get(key), dict):
            job[key] = {**job[key], **value}
        else:
            job[key] = value
    return validate_job(job)


TRAINER_ROOT = Path(__file__).resolve().parent.parent


def run_train(
    job: TrainJob, path: Path, kill_after_checkpoint: int | None = None, resume: str | None = None
) -> tuple[int, list[dict], str]:
    """`python -m flywheel_trainer train` on `job` in a session of its own, as the GPU worker starts it: (exit code,
    progress events, stderr). With kill_after_checkpoint, the whole session is SIGKILLed once that checkpoint is
    reported (torchrun and its ranks included)."""
    path.write_text(json.dumps(job.to_dict()))
    cmd = [sys.executable, "-m", "flywheel_trainer", "train", "--job", str(path)] + (
        ["--resume", resume] if resume else []
    )
    env = {**os.environ, "PYTHONPATH": str(TRAINER_ROOT), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}
    stderr_file = path.with_suffix(".stderr")
    with stderr_file.open("w") as err:  # a file, not a pipe: a chatty trainer cannot block on it
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env, start_new_session=True)
    events = []
    for line in proc.stdout:
        event = json.loads(line)
        events.append(event)
        if (
            kill_after_checkpoint is not None
            and event["event"] == "checkpoint"
            and event["step"] == kill_after_checkpoint
        ):
            os.killpg(proc.pid, signal.SIGKILL)
            break
    return proc.wait(), events, stderr_file.read_text()


def step_losses(events: list[dict]) -> dict[int, float]:
    return {e["step"]: e["loss"] for e in events if e["event"] == "step"}
