"""The retrieval prior (examples.py): what the trainer writes, how neighbours vote, and how their vote moves a
decision. The tokenizer-free parts run without a model; serve's use of it is in test_serve.py."""

from __future__ import annotations

import json

import pytest

from flywheel_trainer.examples import (
    DecisionPrior,
    ExampleIndex,
    callable_decision,
    decision_of,
    examples_of,
    request_text,
    write_examples,
)


def row(text: str, answer: dict, system: str = "Route.") -> dict:
    return {
        "prompt": [{"role": "system", "content": system}, {"role": "user", "content": text}],
        "completion": [{"role": "assistant", "content": json.dumps(answer, separators=(",", ":"))}],
    }


def test_a_decision_is_the_call_up_to_its_tool_name_or_the_whole_no_call():
    assert decision_of('{"tool":"get_invoice","arguments":{"n":"7"}}') == '{"tool":"get_invoice"'
    no_call = '{"tool":null,"verdict":"abstain","code":"no_tool"}'
    assert decision_of(no_call) == no_call
    assert decision_of('{"arguments":{},"tool":"get_invoice"}') is None, (
        "not written tool first, as router JSON is trained"
    )
    assert decision_of("<tool_call>{}</tool_call>") is None
    assert decision_of('{"tool": "get_invoice", "arguments": {}}') is None, "spaced JSON is not how rows are rendered"


def test_the_request_is_its_user_turns_without_the_system_prompt_or_tool_results():
    messages = [
        {"role": "system", "content": "Route."},
        {"role": "user", "content": "find acme"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "[...]"},
        {"role": "user", "content": "now its invoices"},
    ]
    assert request_text(messages) == "find acme\nnow its invoices"
    parts = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "find"},
                {"type": "image_url", "image_url": {}},
                {"type": "text", "text": "acme"},
            ],
        }
    ]
    assert request_text(parts) == "find\nacme", "content parts, as OpenAI SDKs send them"


def test_examples_round_trip_and_a_bad_line_names_the_file_and_line(tmp_path):
    rows = [
        row("show invoice 7", {"tool": "get_invoice", "arguments": {"n": "7"}}),
        row("weather in paris", {"tool": None, "verdict": "abstain", "code": "no_tool"}),
        {
            "prompt": [{"role": "user", "content": "x"}],
            "completion": [{"role": "assistant", "content": "<tool_call>{}</tool_call>"}],
        },
    ]
    assert write_examples(rows, tmp_path / "examples.jsonl") == 2, "a row that is not router JSON is left out"
    index = ExampleIndex.load(tmp_path)
    assert index.decisions == ['{"tool":"get_invoice"', '{"tool":null,"verdict":"abstain","code":"no_tool"}']
    good = json.dumps({"text": "a", "decision": '{"tool":"get_invoice"'})
    (tmp_path / "examples.jsonl").write_text(good + '\n{"text": 3}\n')
    with pytest.raises(ValueError, match=r"examples.jsonl:2: an example needs string fields"):
        ExampleIndex.load(tmp_path)
    (tmp_path / "examples.jsonl").write_text(good + '\n{"text": "b", "decision": "get_invoice"}\n')
    with pytest.raises(ValueError, match=r"examples.jsonl:2: decision 'get_invoice' is neither"):
        ExampleIndex.load(tmp_path)
    assert ExampleIndex.load(tmp_path / "nowhere") is None


def test_the_nearest_requests_vote_with_their_similarity_among_the_decisions_the_request_allows():
    examples = examples_of(
        [
            row("show me invoice 7001 please", {"tool": "get_invoice", "arguments": {}}),
            row("show me invoice 7002", {"tool": "get_invoice", "arguments": {}}),
            row("aging report for customer 12", {"tool": "get_ar_aging", "arguments": {}}),
            row("what is the weather", {"tool": None, "verdict": "abstain", "code": "no_tool"}),
        ]
    )
    index = ExampleIndex(examples)
    votes, best = index.vote("show me invoice 7003", callable_decision({"get_invoice", "get_ar_aging"}), k=2)
    assert list(votes) == ['{"tool":"get_invoice"'] and 0 < best < 1
    votes, _ = index.vote("show me invoice 7003", callable_decision({"get_ar_aging"}), k=2)
    assert '{"tool":"get_invoice"' not in votes, "a tool the request cannot name gets no vote"
    assert index.vote("zzz", callable_decision(set())) == ({}, 0.0), "no shared word: no neighbour"


def test_the_prior_mixes_into_the_next_token_only_along_a_decisions_path():
    import torch

    prior = DecisionPrior(paths=[([5, 6, 7], 0.75), ([5, 8], 0.25)], weight=0.5, n_prompt=2)
    logits = torch.zeros(10)
    logits[9] = 3.0  # the model's favourite, on no decision's path
    first = prior.mix([0, 1], logits)
    assert torch.allclose(first.exp().sum(), torch.tensor(1.0)), "a distribution"
    assert int(first.argmax()) == 5, "both paths start with 5: half the mass goes there"
    after = prior.mix([0, 1, 5], logits)
    p = after.exp()
    assert p[6] > p[8] and abs(float(p[6] - p[8]) - 0.5 * 0.5) < 1e-5, "the split follows the votes (0.75 vs 0.25)"
    assert torch.equal(prior.mix([0, 1, 5, 6, 7], logits), logits), "past every path the model is left alone"
    assert torch.equal(prior.mix([0, 1, 4], logits), logits), "off every path too"
