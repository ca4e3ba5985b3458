"""How the server turns a completion into an OpenAI tool call, for both render formats."""
from __future__ import annotations

import json

from flywheel_trainer.serve import _tool_call


def test_router_json_and_hermes_calls_become_tool_calls_only_for_offered_tools():
    names = ["get_invoice"]
    call = _tool_call('{"arguments":{"number":"7"},"tool":"get_invoice"}', names)
    assert call["type"] == "function" and call["function"]["name"] == "get_invoice"
    assert json.loads(call["function"]["arguments"]) == {"number": "7"}
    hermes = _tool_call('<tool_call>\n{"arguments":{"number":"7"},"name":"get_invoice"}\n</tool_call>', names, "hermes")
    assert hermes["function"]["name"] == "get_invoice" and json.loads(hermes["function"]["arguments"]) == {"number": "7"}
    assert _tool_call('{"arguments":{},"tool":"delete_all"}', names) is None, "not offered"
    assert _tool_call('{"code":"no_tool","reason":"x","tool":null,"verdict":"abstain"}', names) is None
    assert _tool_call('{"arguments":{},"tool":"get_invoice"}', names, "hermes") is None, "hermes needs the block"
    assert _tool_call("not json", names) is None
