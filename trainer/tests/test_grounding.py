"""The grounding check (grounding.py): which values must come from the conversation, and what serve answers when
one does not."""
from __future__ import annotations

import json

from flywheel_trainer.grounding import MISSING_ARGUMENT, Source, ground_answer, grounded, ungrounded

CONVERSATION = [
    {"role": "system", "content": "Caller: controller; account 99999"},
    {"role": "user", "content": "Invoice cust 20234 for the Support renewal, 3 seats at $4,082 each; account 0018d00000000J4QAA; period December 2026"},
    {"role": "tool", "content": '{"jeHeaderId": 40607}'},
]
SOURCE = Source.of(CONVERSATION)


def test_ids_and_long_integers_must_be_copied_whole():
    assert grounded(20234, "integer", SOURCE, strict=False)
    assert grounded(40607, "integer", SOURCE, strict=False), "tool results count"
    assert not grounded(20235, "integer", SOURCE, strict=False)
    assert not grounded(99999, "integer", SOURCE, strict=False), "the system prompt does not"
    assert grounded(4082, "integer", SOURCE, strict=False), "thousands separators aside"
    assert grounded(7, "integer", SOURCE, strict=False), "a quantity is not an id: unchecked"
    assert grounded("0018d00000000J4QAA", "string", SOURCE, strict=False)
    assert not grounded("0018d0000000J4QAA1", "string", SOURCE, strict=False), "a miscopied id"
    assert not grounded("", "string", SOURCE, strict=False)


def test_words_a_required_value_may_imply_pass_and_an_optional_ones_must_begin_like_the_conversations():
    assert grounded("DEC-26", "string", SOURCE, strict=False), "'26' is in '2026'"
    assert grounded("Account", "string", SOURCE, strict=False), "required: a word the request implies passes"
    assert not grounded("MAGIE_LOGOS_GBM", "string", SOURCE, strict=True)
    assert grounded("renewals", "string", SOURCE, strict=True), "optional: the word's first letters are there"
    assert grounded("support renewal", "string", SOURCE, strict=True)


def tool(properties, required, **extra):
    return [{"type": "function", "function": {"name": "t", "parameters": {"type": "object", "properties": properties, "required": required, **extra}}}]


def test_a_required_ungrounded_value_makes_the_answer_missing_argument():
    tools = tool({"jeHeaderId": {"type": "integer"}}, ["jeHeaderId"])
    content, info = ground_answer('{"tool":"t","arguments":{"jeHeaderId":51234}}', tools, CONVERSATION)
    assert json.loads(content) == MISSING_ARGUMENT
    assert info == {"ungrounded": ["jeHeaderId"], "call": {"tool": "t", "arguments": {"jeHeaderId": 51234}}}
    assert ground_answer('{"tool":"t","arguments":{"jeHeaderId":40607}}', tools, CONVERSATION) == ('{"tool":"t","arguments":{"jeHeaderId":40607}}', None)


def test_an_optional_ungrounded_value_is_dropped_unless_an_alternative_requires_it():
    props = {"custAccountId": {"type": "integer"}, "accountNumber": {"type": "string"}, "status": {"type": "string", "enum": ["OP"]},
             "trxNumber": {"type": "string"}, "when": {"type": "string", "format": "date"}}
    tools = tool(props, ["custAccountId"], oneOf=[{"required": ["trxNumber"]}, {"required": ["custAccountId"]}])
    answer = '{"tool":"t","arguments":{"accountNumber":"C123456789","custAccountId":20234,"status":"OP","trxNumber":"77777","when":"2031-01-01"}}'
    content, info = ground_answer(answer, tools, CONVERSATION)
    assert json.loads(content) == {"tool": "t", "arguments": {"custAccountId": 20234, "status": "OP", "trxNumber": "77777", "when": "2031-01-01"}}
    assert content.startswith('{"tool":"t"'), "still written tool first"
    assert info == {"dropped": {"accountNumber": "C123456789"}}, "enum and format values are not checked; trxNumber is an alternative's"
    assert ungrounded({"x": 1}, None, SOURCE) == ([], [])
    assert ground_answer('{"tool":null,"verdict":"abstain","code":"no_tool"}', tools, CONVERSATION)[1] is None
    assert ground_answer('{"tool":"other","arguments":{"a":"zzz9"}}', tools, CONVERSATION)[1] is None, "a tool not offered is not checked here"
