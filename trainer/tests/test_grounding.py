"""The grounding check (grounding.py): which values must come from the conversation, and what serve answers when
one does not."""

from __future__ import annotations

import json

from flywheel_trainer.grounding import MISSING_ARGUMENT, Source, ground_answer, grounded, ungrounded

CONVERSATION = [
    {"role": "system", "content": "Caller: controller; workspace 99999"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Invoice cust 20234 for the Support renewal, 3 seats at $4,082 each"},
            {"type": "text", "text": "account 0018d00000000J4QAA, ticket INV-48213"},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "find", "arguments": '{"orderId": 777123}'}}
        ],
    },
    {"role": "tool", "content": '{"jeHeaderId": 40607}'},
]
SOURCE = Source.of(CONVERSATION)


def test_an_id_must_be_copied_whole_from_any_turn_of_the_conversation():
    assert grounded(20234, SOURCE)
    assert grounded(40607, SOURCE), "tool results"
    assert grounded(777123, SOURCE), "earlier calls' arguments"
    assert grounded(99999, SOURCE), "the system prompt (an agent's workspace id)"
    assert grounded("0018d00000000J4QAA", SOURCE), "content parts, as OpenAI SDKs send them"
    assert grounded(4082, SOURCE), "thousands separators aside"
    assert grounded(40607.0, SOURCE), "an integral number is an integer"
    assert not grounded(20235, SOURCE)
    assert not grounded("0018d0000000J4QAA1", SOURCE), "a miscopied id"
    assert not grounded("INV-482", SOURCE), "a truncated one: whole words only"
    assert grounded("INV-48213", SOURCE)


def test_what_is_not_an_id_is_left_alone():
    assert grounded(7, SOURCE), "a quantity"
    assert grounded(12.5, SOURCE), "a fraction"
    assert grounded("", SOURCE) and grounded("   ", SOURCE)
    assert grounded("SELECT id FROM t WHERE n > 2024", SOURCE), "free text (whitespace)"
    assert grounded("x" * 100 + "1", SOURCE), "too long for an id"


def tool(properties, required, **extra):
    return [
        {
            "type": "function",
            "function": {
                "name": "t",
                "parameters": {"type": "object", "properties": properties, "required": required, **extra},
            },
        }
    ]


def test_only_keys_that_name_an_identifier_are_checked():
    props = {
        "jeHeaderId": {"type": "integer"},
        "quantity": {"type": "integer"},
        "url": {"type": "string"},
        "periodCode": {"type": "string", "enum": ["P1"]},
        "issue_number": {"type": "number"},
        "dueDate": {"type": "string"},
    }
    args = {
        "jeHeaderId": 51234,
        "quantity": 3000,
        "url": "https://docs.python.org/3.12/",
        "periodCode": "P1",
        "issue_number": 8812,
        "dueDate": "2031-01-01",
    }
    assert ungrounded(args, {"type": "object", "properties": props, "required": list(props)}, SOURCE) == (
        ["jeHeaderId", "issue_number"],
        [],
    )


def test_a_required_ungrounded_id_makes_the_answer_missing_argument():
    tools = tool({"jeHeaderId": {"type": "integer"}}, ["jeHeaderId"])
    content, info = ground_answer('{"tool":"t","arguments":{"jeHeaderId":51234}}', tools, CONVERSATION)
    assert json.loads(content) == MISSING_ARGUMENT
    assert info == {"ungrounded": ["jeHeaderId"], "call": {"tool": "t", "arguments": {"jeHeaderId": 51234}}}
    assert ground_answer('{"tool":"t","arguments":{"jeHeaderId":40607}}', tools, CONVERSATION) == (
        '{"tool":"t","arguments":{"jeHeaderId":40607}}',
        None,
    )


def test_an_optional_ungrounded_id_is_dropped_unless_an_alternative_requires_it():
    props = {
        "custAccountId": {"type": "integer"},
        "accountNumber": {"type": "string"},
        "status": {"type": "string", "enum": ["OP"]},
        "trxNumber": {"type": "string"},
        "when": {"type": "string", "format": "date"},
    }
    tools = tool(props, ["custAccountId"], oneOf=[{"required": ["trxNumber"]}, {"required": ["custAccountId"]}])
    answer = '{"tool":"t","arguments":{"accountNumber":"C123456789","custAccountId":20234,"status":"OP","trxNumber":"77777","when":"2031-01-01"}}'
    content, info = ground_answer(answer, tools, CONVERSATION)
    assert json.loads(content) == {
        "tool": "t",
        "arguments": {"custAccountId": 20234, "status": "OP", "trxNumber": "77777", "when": "2031-01-01"},
    }
    assert content.startswith('{"tool":"t"'), "still written tool first"
    assert info == {"dropped": {"accountNumber": "C123456789"}}, (
        "enum and format values are not checked; trxNumber is an alternative's"
    )
    assert ungrounded({"x": 1}, None, SOURCE) == ([], [])
    assert ground_answer('{"tool":null,"verdict":"abstain","code":"no_tool"}', tools, CONVERSATION)[1] is None
    assert ground_answer('{"tool":"other","arguments":{"someId":"zzz9"}}', tools, CONVERSATION)[1] is None, (
        "a tool not offered is not checked here"
    )
