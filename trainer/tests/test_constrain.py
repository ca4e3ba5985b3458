"""Constrained decoding: whatever the model prefers, output that ends is router JSON naming an offered tool or a
verdict. An untrained model sampled hot is the adversary: it rambles, so some samples hit the token budget
(the server reports finish_reason=length for those, as OpenAI does); every sample that ends must parse."""
from __future__ import annotations

import json

import torch

from conftest import make_job
from flywheel_trainer.constrain import RouterConstraint, tokenizer_data
from flywheel_trainer.data import load_rows, render_text
from flywheel_trainer.model import detect_hardware, load_base


def test_sampled_output_from_an_untrained_model_always_parses(tmp_path, dataset):
    job = make_job(tmp_path, dataset)
    rows = load_rows(dataset["train"])
    model, tokenizer = load_base(job, tmp_path / "base", [m.get("content") or "" for r in rows for m in r.prompt], detect_hardware())
    data = tokenizer_data(tokenizer)
    names = ["get_invoice", "create_case"]
    torch.manual_seed(0)
    seen = set()
    finished = 0
    for i in range(16):
        ids = tokenizer(render_text(tokenizer, rows[i], False), add_special_tokens=False, return_tensors="pt")["input_ids"]
        out = model.generate(
            ids, attention_mask=torch.ones_like(ids), max_new_tokens=600, do_sample=True, temperature=1.5,
            prefix_allowed_tokens_fn=RouterConstraint(data, names), eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        )
        new = out[0, ids.shape[1]:].tolist()
        if new[-1] != tokenizer.eos_token_id:
            continue  # budget exhausted mid-JSON
        finished += 1
        text = tokenizer.decode(new, skip_special_tokens=True)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise AssertionError(f"{err}: {text!r}") from None
        if obj["tool"] is None:
            assert obj["verdict"] in ("abstain", "violation", "escalate") and isinstance(obj["reason"], str)
        else:
            assert obj["tool"] in names and isinstance(obj["arguments"], dict)
        seen.add(obj["tool"] is None)
    assert finished >= 8, f"only {finished} of 16 samples ended within 600 tokens"
    assert seen == {True, False}, "sampling explored both shapes"



def fed(text: str):
    """The router constraint after reading `text`: what it allows next."""
    from lmformatenforcer import JsonSchemaParser

    from flywheel_trainer.constrain import PARSER_CONFIG, BoundedJson, router_schema

    parser = BoundedJson(JsonSchemaParser(router_schema(["get_invoice"]), config=PARSER_CONFIG))
    for c in text:
        parser = parser.add_character(c)
    return parser

def test_strings_and_numbers_are_bounded_so_every_answer_can_end():
    from flywheel_trainer.constrain import MAX_DIGITS, MAX_STRING

    long_value = '{"arguments": {"note": "' + "x" * MAX_STRING
    assert fed(long_value).get_allowed_characters() == '"'
    assert "x" in fed(long_value[:-1]).get_allowed_characters()
    digits = '{"arguments": {"n": ' + "9" * MAX_DIGITS
    allowed = fed(digits).get_allowed_characters()
    assert not any(ch.isdigit() for ch in allowed) and "," in allowed and "}" in allowed
    assert "9" in fed(digits[:-1]).get_allowed_characters()
    assert "}" not in fed('{"arguments": {"n": 1,').get_allowed_characters()  # still no trailing comma


def test_a_long_arguments_object_must_wrap_up_but_always_can():
    from flywheel_trainer.constrain import MAX_ARGUMENTS

    members = ", ".join(f'"k{i}": {i}' for i in range(MAX_ARGUMENTS // 8 + 2))
    long_args = '{"arguments": {' + members
    allowed = fed(long_args).get_allowed_characters()
    assert "}" in allowed and not set('{[",') & set(allowed), allowed  # only closing (or more digits)
    assert '"' in fed(long_args + ", ").get_allowed_characters(), "right after a comma one more key stays possible"
    closed = fed(long_args + "}")
    assert "," in closed.get_allowed_characters(), "the top level goes on: , \"tool\": …"
    short = fed('{"arguments": {"a": 1')
    assert "," in short.get_allowed_characters(), "a short object may grow"
