"""The fill prior (fill.py): where a call's arguments would close, the optional values the request states
unmistakably are written; nowhere else, and never a value stated twice or for two properties. A character
tokenizer stands in for SmolLM2's (test_priors.py's)."""

from __future__ import annotations

import torch

from flywheel_trainer.fill import FillPrior, stated_values

from test_priors import Chars

CONTACT = {
    "type": "object",
    "properties": {
        "accountId": {"type": "string"},
        "lastName": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "industry": {"type": "string", "enum": ["Healthcare", "Retail", "Other"]},
        "source": {"type": "string", "enum": ["Web", "Phone", "Partner"]},
        "leadSource": {"type": "string", "enum": ["Web", "Referral"]},
        "status": {"type": "string", "enum": ["Open", "Closed"]},
    },
    "required": ["accountId", "lastName"],
}
REQUEST = "add Priya Raman (priya.raman@gringotts.example) under 0018d0000001, they pivoted into HEALTHCARE; found us on the web"
TOOLS = [
    {"type": "function", "function": {"name": "create_contact", "parameters": CONTACT}},
    {
        "type": "function",
        "function": {"name": "get_record", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}},
    },
]
OPEN = '{"tool":"create_contact","arguments":{'


def test_stated_means_the_only_email_or_the_only_enum_value_written_as_a_word():
    assert stated_values(CONTACT, REQUEST) == {"email": "priya.raman@gringotts.example", "industry": "Healthcare"}, (
        "the enum's own spelling; `web` states a value for two properties (source, leadSource): left to the model"
    )
    assert stated_values(CONTACT, "a@x.example or b@x.example, Retail") == {"industry": "Retail"}, "two emails: which?"
    assert stated_values(CONTACT, "retail or healthcare") == {}, "two values of one enum: which?"
    assert stated_values(CONTACT, "the reopened case, retailers") == {}, "whole words only"
    assert stated_values(CONTACT, "lastName Open") == {"status": "Open"}
    assert (
        stated_values({"type": "object", "properties": {"status": {"enum": ["Open"]}}, "required": ["status"]}, "Open")
        == {}
    ), "required values are the model's to write"
    mail = {
        "type": "object",
        "required": ["to"],
        "properties": {
            "to": {"type": "string", "format": "email"},
            "replyToEmail": {"type": "string", "format": "email"},
        },
    }
    assert stated_values(mail, "email bo@x.example the report") == {}, (
        "the recipient's address is not also the reply-to"
    )
    assert stated_values(None, REQUEST) == {} and stated_values({"type": "object"}, REQUEST) == {}


def prior(weight=0.5):
    return FillPrior.build(Chars(), TOOLS, REQUEST, weight, n_prompt=0)


def test_written_where_the_arguments_would_close_and_followed_to_its_end():
    p = prior()
    done = OPEN + '"accountId":"0018d0000001","lastName":"Raman"'
    assert p.pending(done, closing=False) == "", "the model goes on with a key of its own: left alone"
    assert p.pending(done + ',"', closing=False) == "", "its own comma: its own key follows"
    assert p.pending(done, closing=True) == ',"email":"priya.raman@gringotts.example"'
    assert p.pending(done + ',"em', closing=False) == 'ail":"priya.raman@gringotts.example"', "begun: followed"
    email = done + ',"email":"priya.raman@gringotts.example"'
    assert p.pending(email, closing=False) == ""
    assert p.pending(email, closing=True) == ',"industry":"Healthcare"', "then the next stated value"
    assert p.pending(email + ',"industry":"Healthcare"', closing=True) == "", "all written: the model closes"


def test_silent_mid_value_for_another_tool_and_once_closed():
    p = prior()
    assert p.pending(OPEN + '"accountId":"0018', closing=True) == "", "inside a string"
    assert p.pending(OPEN + '"a":{"b":"c"', closing=True) == "", "inside a nested object"
    assert p.pending(OPEN + '"accountId":"1"}', closing=True) == "", "the arguments are closed"
    assert p.pending('{"tool":"get_record","arguments":{"id":"1"', closing=True) == "", "nothing stated for this tool"
    assert p.pending('{"tool":null,"verdict":"abstain"', closing=True) == ""
    assert prior().pending(OPEN, closing=True) == '"email":"priya.raman@gringotts.example"', "no comma before the first"
    assert prior().pending(OPEN + '"n":12', closing=True) == ',"email":"priya.raman@gringotts.example"', (
        "after a number: the model closing says it has ended"
    )
    assert prior().pending(OPEN[:-1], closing=False, empty=True) == '{"email":"priya.raman@gringotts.example"', (
        "empty arguments (`{}`, one token) open with the value instead"
    )
    assert prior().pending(OPEN + '"email":"x@y.example"', closing=True) == ',"industry":"Healthcare"', (
        "a written key is the model's"
    )


def test_left_to_the_model_a_value_the_call_holds_a_piece_the_constraint_refuses_and_a_key_turned_down():
    p = prior()
    held = OPEN + '"accountId":"0018d0000001","lastName":"Raman","title":"Head of Healthcare IT"'
    assert p.pending(held, closing=True) == ',"email":"priya.raman@gringotts.example"'
    after = held + ',"email":"priya.raman@gringotts.example"'
    assert p.pending(after, closing=True) == "", "Healthcare is inside the title already: not also an industry"

    refusing = prior()
    refusing.allows = lambda seq, text: "email" not in text  # as a pattern on the email would
    done = OPEN + '"accountId":"1","lastName":"Raman"'
    assert refusing.pending(done, closing=True, seq=[1]) == ',"industry":"Healthcare"', "the refused piece is skipped"

    declining = prior(0.3)
    assert declining.pending(done, closing=True) == ',"email":"priya.raman@gringotts.example"'
    turned_down = done + ',"phone":"0113"'  # the model took the comma and wrote a key of its own
    assert declining.pending(turned_down, closing=True) == ',"industry":"Healthcare"', (
        "email, turned down, is not pushed again"
    )


def test_it_mixes_the_next_character_in_where_the_model_would_close():
    p = prior(0.5)
    seq = [ord(c) for c in OPEN + '"accountId":"0018d0000001","lastName":"Raman"']
    logits = torch.full((128,), -10.0)
    logits[ord("}")] = 8.0
    assert int(p.mix(seq, logits).argmax()) == ord(","), "at 0.5 a stated value is written"
    logits_going_on = torch.full((128,), -10.0)
    logits_going_on[ord(",")] = 8.0
    assert torch.equal(prior(0.5).mix(seq + [ord(",")], logits_going_on), logits_going_on), (
        "the model's own comma: untouched"
    )
    assert int(p.mix(seq + [ord(",")], logits_going_on).argmax()) == ord('"'), "the comma the prior began: followed"
    required_missing = prior(0.5)
    required_missing.allows = lambda seq, text: text != "}"  # the constraint: a required argument is still unwritten
    assert torch.equal(required_missing.mix(seq, logits), logits), "a model that may not close yet writes that argument"
    sure = prior(0.2)
    assert int(sure.mix(seq, logits).argmax()) == ord("}"), "at 0.2 a model sure of closing closes"
    assert FillPrior.build(Chars(), TOOLS, REQUEST, 0.0, 0) is None, "weight 0: off"
    assert FillPrior.build(Chars(), TOOLS, "nothing stated", 0.5, 0) is None
