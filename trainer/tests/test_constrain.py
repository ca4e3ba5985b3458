"""Constrained decoding: whatever the model prefers, output that ends is router JSON naming an offered tool with
arguments valid for that tool's schema, or a verdict. An untrained model sampled hot is the adversary: it rambles,
so some samples hit the token budget (the server reports finish_reason=length for those, as OpenAI does); every
sample that ends must parse and validate."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch

from flywheel_trainer.constrain import RouterConstraint, arguments_schema, tokenizer_data
from flywheel_trainer.data import load_rows, render_text
from flywheel_trainer.model import detect_hardware, load_base

from conftest import make_job
from synthetic import TOOLS


def test_sampled_output_from_an_untrained_model_always_parses(tmp_path, dataset):
    job = make_job(tmp_path, dataset)
    rows = load_rows(dataset["train"])
    model, tokenizer = load_base(
        job, tmp_path / "base", [m.get("content") or "" for r in rows for m in r.prompt], detect_hardware()
    )
    data = tokenizer_data(tokenizer)
    offered = TOOLS[:2]
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in offered}
    torch.manual_seed(0)
    seen = set()
    finished = 0
    for i in range(16):
        ids = tokenizer(render_text(tokenizer, rows[i], False), add_special_tokens=False, return_tensors="pt")[
            "input_ids"
        ]
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=600,
            do_sample=True,
            temperature=1.5,
            prefix_allowed_tokens_fn=RouterConstraint(data, offered),
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        )
        new = out[0, ids.shape[1] :].tolist()
        if new[-1] != tokenizer.eos_token_id:
            continue  # budget exhausted mid-JSON
        finished += 1
        text = tokenizer.decode(new, skip_special_tokens=True)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise AssertionError(f"{err}: {text!r}") from None
        if obj["tool"] is None:
            assert obj["verdict"] in ("abstain", "violation", "escalate") and isinstance(obj["code"], str)
            assert set(obj) == {"tool", "verdict", "code"}
        else:
            assert obj["tool"] in schemas
            jsonschema.validate(obj["arguments"], schemas[obj["tool"]])  # raises with the path on an invalid call
        seen.add(obj["tool"] is None)
    assert finished >= 8, f"only {finished} of 16 samples ended within 600 tokens"
    assert seen == {True, False}, "sampling explored both shapes"


def fed(text: str, tools=("get_invoice",), strict: bool = True):
    """The router constraint after reading `text`: what it allows next. Strict: `text` must be allowed all along."""
    from lmformatenforcer import JsonSchemaParser

    from flywheel_trainer.constrain import PARSER_CONFIG, BoundedJson, router_schema

    parser = BoundedJson(JsonSchemaParser(router_schema(list(tools)), config=PARSER_CONFIG))
    for i, c in enumerate(text):
        assert not strict or c in parser.get_allowed_characters(), f"{c!r} refused after {text[:i]!r}"
        parser = parser.add_character(c)
    return parser


def tool(name, parameters):
    return {"type": "function", "function": {"name": name, "description": "", "parameters": parameters}}


# Schemas as MCP servers write them: nested objects and arrays, enums, integers, optional keys, $ref, anyOf,
# type lists, const, patterns the engine can and cannot compile, a tool without arguments.
AGING = tool(
    "get_ar_aging",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "asOfDate": {"type": "string", "format": "date"},
            "currencyCode": {"type": "string", "enum": ["USD", "EUR"]},
            "custAccountId": {"type": "integer", "minimum": 1},
        },
        "required": [],
    },
)
JOURNAL = tool(
    "create_journal",
    {
        "type": "object",
        "properties": {
            "periodName": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "minItems": 1},
            "memo": {"type": ["string", "null"]},
            "kind": {"const": "manual"},
        },
        "required": ["periodName", "lines"],
        "$defs": {
            "line": {
                "type": "object",
                "properties": {
                    "account": {"type": "integer"},
                    "debit": {"type": "number"},
                    "credit": {"type": "number"},
                },
                "required": ["account"],
            }
        },
    },
)
SEARCH = tool(
    "search",
    {
        "type": "object",
        "properties": {
            "query": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "object", "properties": {"all": {"type": "array", "items": {"type": "string"}}}},
                ]
            },
            "sku": {"type": "string", "pattern": "^SKU-[0-9]+(?<=[0-9])$"},
        },
        "required": ["query"],
    },
)
PING = tool("ping", {"type": "object", "properties": {}, "additionalProperties": False})
# One of two keys, as the Oracle EBS sandbox writes get_invoice: oneOf branches that only add `required`.
INVOICE = tool(
    "get_invoice",
    {
        "type": "object",
        "additionalProperties": False,
        "required": [],
        "properties": {"customerTrxId": {"type": "integer"}, "trxNumber": {"type": "string"}},
        "oneOf": [{"required": ["customerTrxId"]}, {"required": ["trxNumber"]}],
    },
)
ALL = (AGING, JOURNAL, SEARCH, PING, INVOICE)


@pytest.mark.parametrize(
    "answer",
    [
        '{"tool":"get_ar_aging","arguments":{}}',
        '{"tool":"get_ar_aging","arguments":{"asOfDate":"2026-06-30","currencyCode":"EUR","custAccountId":1042}}',
        '{"tool":"create_journal","arguments":{"kind":"manual","lines":[{"account":11,"debit":120.5},{"account":40,"credit":120.5}],"memo":null,"periodName":"JUN-26"}}',
        '{"tool":"search","arguments":{"query":{"all":["late","invoice"]},"sku":"SKU-1"}}',
        '{"tool":"search","arguments":{"query":"late invoices"}}',
        '{"tool":"ping","arguments":{}}',
        '{"tool":"get_invoice","arguments":{"trxNumber":"10042"}}',
        '{"tool":null,"verdict":"violation","code":"missing_scope"}',
    ],
)
def test_every_schema_valid_answer_is_allowed_and_can_end(answer):
    assert fed(answer, ALL).can_end()


def test_arguments_follow_the_chosen_tools_schema():
    aging = '{"tool":"get_ar_aging","arguments":{"'
    assert set(fed(aging, ALL).get_allowed_characters()) <= set("acu"), "keys: only the tool's own properties"
    assert set(fed('{"tool":"get_ar_aging","arguments":{"currencyCode":"', ALL).get_allowed_characters()) <= set("UE")
    assert "." not in fed('{"tool":"get_ar_aging","arguments":{"custAccountId":1', ALL).get_allowed_characters(), (
        "an integer has no fraction"
    )
    journal = '{"tool":"create_journal","arguments":{"lines":[{"account":1}]'
    assert "}" not in fed(journal, ALL).get_allowed_characters(), "periodName is required before the object may close"
    assert set(fed('{"tool":"create_journal","arguments":{"periodName":"', ALL).get_allowed_characters()) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    ), "the pattern holds"
    dated = '{"tool":"get_ar_aging","arguments":{"asOfDate":"'
    assert set(fed(dated, ALL).get_allowed_characters()) <= set("0123456789"), (
        "format date: written as YYYY-MM-DD, not 'Jun 9 2026'"
    )
    assert set(fed(dated + "2026", ALL).get_allowed_characters()) == {"-"}
    assert fed('{"tool":"ping","arguments":{', ALL).get_allowed_characters().strip() == "}", "no arguments: only {}"
    assert set(fed('{"tool":"', ALL).get_allowed_characters()) == set("gcsp"), "only offered names"
    assert set(fed('{"tool":"get_invoice","arguments":{"', ALL).get_allowed_characters()) == set("ct"), (
        "branches keep the parent's properties"
    )
    assert "}" not in fed('{"tool":"get_invoice","arguments":{', ALL).get_allowed_characters(), (
        "one of the two keys is required"
    )


def test_begin_forces_an_answer_opening_the_schema_allows_and_refuses_one_it_does_not(tmp_path, dataset):
    job = make_job(tmp_path, dataset)
    rows = load_rows(dataset["train"])
    _, tokenizer = load_base(
        job, tmp_path / "base", [m.get("content") or "" for r in rows for m in r.prompt], detect_hardware()
    )
    data = tokenizer_data(tokenizer)
    prompt = tokenizer(render_text(tokenizer, rows[0], False), add_special_tokens=False)["input_ids"]
    encode = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731
    constraint = RouterConstraint(data, [AGING, PING])
    opening = encode('{"tool":"ping","arguments":')
    seq = constraint.begin(prompt, opening)
    assert seq == prompt + opening
    assert constraint.accepts(seq, encode("{")[0]) and not constraint.accepts(seq, encode('"')[0]), (
        "the arguments object comes next"
    )
    with pytest.raises(ValueError, match="refuses token"):
        RouterConstraint(data, [AGING]).begin(prompt, encode('{"tool":"ping"'))  # ping is not offered


def test_no_call_is_verdict_and_code_without_a_free_text_reason():
    after_code = fed('{"tool":null,"verdict":"abstain","code":"no_tool"', ALL).get_allowed_characters()
    assert "}" in after_code and "," not in after_code, "no fourth key (a reason) after the code"


def test_schemas_the_engine_cannot_enforce_are_reduced_not_fatal():
    reduced = arguments_schema(SEARCH["function"]["parameters"])
    assert "pattern" not in reduced["properties"]["sku"], "a lookbehind pattern is dropped (then checked, not forced)"
    assert arguments_schema({"type": "object", "properties": {"d": {"type": "string", "format": ["date"]}}})[
        "properties"
    ]["d"] == {"type": "string"}, "a malformed format is ignored"
    assert arguments_schema(JOURNAL["function"]["parameters"])["properties"]["lines"]["items"]["required"] == [
        "account"
    ], "$ref inlined"
    cyclic = {"type": "object", "properties": {"node": {"$ref": "#"}}}
    assert arguments_schema(cyclic)["properties"]["node"]["properties"]["node"], "a cycle stops at a fixed depth"
    assert arguments_schema({"type": "object", "properties": {"x": {"enum": ["a", 1, None]}}})["properties"]["x"].get(
        "anyOf"
    ), "mixed enum: any value"
    assert arguments_schema(None) == {"type": "object"} and arguments_schema({"type": "string"}) == {"type": "object"}
    beside = arguments_schema(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "allOf": [{"properties": {"b": {"type": "integer"}}, "required": ["b"]}],
        }
    )
    assert set(beside["properties"]) == {"a", "b"} and set(beside["required"]) == {"a", "b"}, (
        "allOf keeps the schema's own keys"
    )


def test_strings_and_numbers_are_bounded_so_every_answer_can_end():
    from flywheel_trainer.constrain import MAX_DIGITS, MAX_STRING

    long_value = '{"tool":"get_invoice","arguments":{"note":"' + "x" * MAX_STRING
    assert fed(long_value).get_allowed_characters() == '"'
    assert "x" in fed(long_value[:-1]).get_allowed_characters()
    digits = '{"tool":"get_invoice","arguments":{"n":' + "9" * MAX_DIGITS
    allowed = fed(digits).get_allowed_characters()
    assert not any(ch.isdigit() for ch in allowed) and "," in allowed and "}" in allowed
    assert "9" in fed(digits[:-1]).get_allowed_characters()
    assert not set("eE") & set(fed('{"tool":"get_invoice","arguments":{"n":12').get_allowed_characters()), (
        "no exponents (1e999 reads as inf)"
    )
    comma = fed('{"tool":"get_invoice","arguments":{"n":1,')
    assert "}" not in comma.get_allowed_characters()  # still no trailing comma


def test_a_long_arguments_object_must_wrap_up_but_always_can():
    from flywheel_trainer.constrain import MAX_ARGUMENTS

    members = ",".join(f'"k{i}":{i}' for i in range(MAX_ARGUMENTS // 6 + 2))
    long_args = '{"arguments":{' + members
    allowed = fed(long_args, strict=False).get_allowed_characters()
    assert "}" in allowed and not set('{[",') & set(allowed), allowed  # only closing (or more digits)
    assert '"' in fed(long_args + ",", strict=False).get_allowed_characters(), (
        "right after a comma one more key stays possible"
    )
    closed = fed(long_args + "}", strict=False)
    assert "," in closed.get_allowed_characters(), 'the top level goes on: ,"tool":…'
    short = fed('{"arguments":{"a":1')
    assert "," in short.get_allowed_characters(), "a short object may grow"


def test_a_character_only_written_inside_a_token_is_one_the_string_parser_takes():
    """The engine's free-text shortcut allows every quote-free token inside a string; the parser must then take
    each of its characters. An em dash that no token starts with (here only ` —` writes it, as in a small trained
    vocabulary) once left the parser with nothing to continue but whitespace, and the answer ended mid-string."""
    from lmformatenforcer import TokenEnforcerTokenizerData

    pieces = ["{", "}", '"', ":", ",", "tool", "arguments", "ping", "host", "a", "b", " ", " —"]
    eos = len(pieces)
    regular = [(i, text, False) for i, text in enumerate(pieces)]
    data = TokenEnforcerTokenizerData(regular, lambda ids: "".join(pieces[i] for i in ids), eos, False, eos + 1)
    constraint = RouterConstraint(data, [tool("ping", {"type": "object", "properties": {"host": {"type": "string"}}})])
    ids = {text: i for i, text in enumerate(pieces)}
    prompt = [ids["a"]]
    opening = [ids[t] for t in ["{", '"', "tool", '"', ":", '"', "ping", '"', ",", '"', "arguments", '"', ":"]]
    seq = constraint.begin(prompt, opening + [ids[t] for t in ["{", '"', "host", '"', ":", '"']])
    assert ids[" —"] in constraint.allowed(seq)
    assert constraint.accepts(seq, ids[" —"]), "what the shortcut allows, the parser takes"
    after = seq + [ids[" —"]]
    assert {ids["a"], ids['"']} <= set(constraint.allowed(after)), "the string goes on, or closes"
