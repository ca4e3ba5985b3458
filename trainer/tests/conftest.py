"""A small synthetic router dataset in the rendered format (TRL prompt/completion + tools), so the trainer
tests run in seconds on CPU. Real rendered rows from the pipeline are exercised by the TypeScript tests."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

TOOLS = [
    {"type": "function", "function": {"name": "get_invoice", "description": "Fetch an invoice by number.",
     "parameters": {"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]}}},
    {"type": "function", "function": {"name": "create_case", "description": "Open a support case.",
     "parameters": {"type": "object", "properties": {"subject": {"type": "string"}, "priority": {"enum": ["low", "high"]}},
                    "required": ["subject", "priority"]}}},
    {"type": "function", "function": {"name": "list_accounts", "description": "List accounts in a region.",
     "parameters": {"type": "object", "properties": {"region": {"enum": ["emea", "apac", "amer"]}}, "required": ["region"]}}},
]
SYSTEM = "You route requests to tools. Reply with exactly one JSON object."


def _row(rng: random.Random, i: int) -> dict:
    kind = rng.randrange(4)
    if kind == 0:
        n = str(rng.randrange(1000, 9999))
        request, target = f"Show me invoice {n}", {"arguments": {"number": n}, "tool": "get_invoice"}
    elif kind == 1:
        p = rng.choice(["low", "high"])
        request, target = f"Open a {p} priority case: printer broken", {"arguments": {"priority": p, "subject": "printer broken"}, "tool": "create_case"}
    elif kind == 2:
        r = rng.choice(["emea", "apac", "amer"])
        request, target = f"Which accounts are in {r}?", {"arguments": {"region": r}, "tool": "list_accounts"}
    else:
        request, target = "What's the weather in Paris?", {"code": "no_tool", "reason": "no offered tool fits", "tool": None, "verdict": "abstain"}
    return {
        "id": f"row-{i}",
        "prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": request}],
        "completion": [{"role": "assistant", "content": json.dumps(target, separators=(",", ":"), sort_keys=True)}],
        "tools": TOOLS,
    }


def write_rows(path: Path, n: int, seed: int) -> Path:
    rng = random.Random(seed)
    path.write_text("".join(json.dumps(_row(rng, i)) + "\n" for i in range(n)))
    return path


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
