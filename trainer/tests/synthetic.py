"""A small synthetic router dataset in the rendered format (TRL prompt/completion + tools): the trainer tests
and the TypeScript serve test train on it in seconds on CPU. Stands in for the render stage's output, which
the Temporal tests produce for real.

    python trainer/tests/synthetic.py OUT_DIR [SEED]   writes OUT_DIR/train.jsonl (96 rows) and OUT_DIR/val.jsonl (24);
                                                     another SEED gives other rows (and so another tiny base)"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_invoice",
            "description": "Fetch an invoice by number.",
            "parameters": {"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "create_case",
            "description": "Open a support case.",
            "parameters": {
                "type": "object",
                "properties": {"subject": {"type": "string"}, "priority": {"enum": ["low", "high"]}},
                "required": ["subject", "priority"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "list_accounts",
            "description": "List accounts in a region.",
            "parameters": {
                "type": "object",
                "properties": {"region": {"enum": ["emea", "apac", "amer"]}},
                "required": ["region"],
            },
        },
    },
]
SYSTEM = "You route requests to tools. Reply with exactly one JSON object."


def _row(rng: random.Random, i: int) -> dict:
    kind = rng.randrange(4)
    if kind == 0:
        n = str(rng.randrange(1000, 9999))
        request, target = f"Show me invoice {n}", {"tool": "get_invoice", "arguments": {"number": n}}
    elif kind == 1:
        p = rng.choice(["low", "high"])
        request, target = (
            f"Open a {p} priority case: printer broken",
            {"tool": "create_case", "arguments": {"priority": p, "subject": "printer broken"}},
        )
    elif kind == 2:
        r = rng.choice(["emea", "apac", "amer"])
        request, target = f"Which accounts are in {r}?", {"tool": "list_accounts", "arguments": {"region": r}}
    else:
        request, target = "What's the weather in Paris?", {"tool": None, "verdict": "abstain", "code": "no_tool"}
    return {
        "id": f"row-{i}",
        "prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": request}],
        "completion": [{"role": "assistant", "content": json.dumps(target, separators=(",", ":"))}],
        "tools": TOOLS,
    }


def _wrong(target: dict) -> dict:
    """A near miss of a target: another tool with the same arguments, or a call where none should be made."""
    if target["tool"] is None:
        return {"tool": "get_invoice", "arguments": {"number": "0000"}}
    other = {"get_invoice": "create_case", "create_case": "list_accounts", "list_accounts": "get_invoice"}[
        target["tool"]
    ]
    return {"tool": other, "arguments": target["arguments"]}


def write_pairs(path: Path, n: int, seed: int, dataset: str | None = None) -> Path:
    """Preference pairs in TRL's conversational format: the rows above, chosen = their target, rejected = a near miss;
    `dataset`, when given, is the SFT dataset they name (the render stage writes its rendered train file's sha256)."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        row = _row(rng, i)
        target = json.loads(row["completion"][0]["content"])
        rejected = [{"role": "assistant", "content": json.dumps(_wrong(target), separators=(",", ":"))}]
        lines.append(
            json.dumps(
                {
                    "id": f"pair-{i}",
                    "prompt": row["prompt"],
                    "chosen": row["completion"],
                    "rejected": rejected,
                    "tools": row["tools"],
                    **({"dataset": dataset} if dataset else {}),
                }
            )
        )
    path.write_text("".join(line + "\n" for line in lines))
    return path


def write_rows(path: Path, n: int, seed: int) -> Path:
    rng = random.Random(seed)
    path.write_text("".join(json.dumps(_row(rng, i)) + "\n" for i in range(n)))
    return path


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    write_rows(out / "train.jsonl", 96, 1 + 10 * seed)
    write_rows(out / "val.jsonl", 24, 2 + 10 * seed)
