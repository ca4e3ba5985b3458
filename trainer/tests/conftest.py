"""Fixtures for the trainer tests: the synthetic dataset (synthetic.py) and a job builder."""
from __future__ import annotations

from pathlib import Path

import pytest

from synthetic import write_rows


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: loads a real pretrained base model (tens of seconds)")


@pytest.fixture
def dataset(tmp_path: Path) -> dict:
    return {"train": str(write_rows(tmp_path / "train.jsonl", 96, 1)), "val": str(write_rows(tmp_path / "val.jsonl", 24, 2))}


def make_job(tmp_path: Path, dataset: dict, **over) -> dict:
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
