"""The router contract's edge cases (test/fixtures/router-answers.jsonl, the file test/fast/router-answer.test.ts
reads): the trainer's parse of every answer is what the file says, which is what the TypeScript parse gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flywheel_trainer.contract import CODES, CONTRACT, NOT_OFFERED, VERDICTS, parse_answer

FIXTURES = Path(__file__).resolve().parents[2] / "test" / "fixtures"
CASES = [
    json.loads(line)
    for line in (FIXTURES / "router-answers.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]


def shape(parsed):
    return {k: v for k, v in parsed.items() if k != "detail"}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_answer_parses_as_the_shared_file_says(case):
    message = case["message"] or {}
    assert shape(parse_answer(message.get("content"), message.get("tool_calls"))) == case["parsed"]


def test_the_contract_is_whole():
    assert len(CASES) >= 40
    assert set(CODES.values()) == set(VERDICTS)
    assert CODES[NOT_OFFERED["code"]] == NOT_OFFERED["verdict"]
    for rewrite in CONTRACT["rewrites"].values():
        assert rewrite["tool"] is None and CODES[rewrite["code"]] == rewrite["verdict"]
