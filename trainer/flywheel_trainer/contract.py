"""The router's contract as Python reads it: trainer/router-contract.json is the one definition (the TypeScript side,
core/router/contract.ts, reads the same file), and the router answer's parse, which agrees with core/router/answer.ts
on every case of test/fixtures/router-answers.jsonl.

The checks after the router (offer, grounding of ids, scopes) are not here: they are lookups, made once for every
engine by the gateway and the evaluator (core/router/checks.ts). serve keeps what needs logits."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

CONTRACT_PATH = Path(__file__).resolve().parent.parent / "router-contract.json"
CONTRACT: dict[str, Any] = json.loads(CONTRACT_PATH.read_text(encoding="utf-8"))

VERDICTS: list[str] = CONTRACT["verdicts"]
CODES: dict[str, str] = CONTRACT["codes"]
NOT_OFFERED: dict[str, Any] = CONTRACT["rewrites"]["notOffered"]
_OPEN, _CLOSE = CONTRACT["hermes"]["open"], CONTRACT["hermes"]["close"]
_BLOCK = re.compile(re.escape(_OPEN) + r"(.*?)" + re.escape(_CLOSE), re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class _Problem(Exception):
    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code


def parse_answer(content: Any, tool_calls: list[Any] | None = None) -> dict[str, Any]:
    """What an answer says: {"kind": "call", "calls": [{"tool", "arguments"}, ...]}, {"kind": "no-call", "verdict",
    "code"} or {"kind": "invalid", "problem": CODE}, by the rules of core/router/answer.ts."""
    try:
        if tool_calls:
            return {"kind": "call", "calls": [_native(c) for c in tool_calls]}
        text = _strip_fence(content.strip() if isinstance(content, str) else "")
        if not text:
            raise _Problem("empty", "no tool call and no content")
        if not text.startswith("{") and _OPEN in text:
            return {"kind": "call", "calls": _hermes(text)}
        obj = _object(text)
        if "tool" not in obj:
            raise _Problem("no_tool_key", 'router JSON without a "tool" key')
        if obj["tool"] is None:
            return _no_call(obj)
        return {"kind": "call", "calls": [_call(obj["tool"], obj.get("arguments"))]}
    except _Problem as p:
        return {"kind": "invalid", "problem": p.code, "detail": str(p)}


def _native(call: Any) -> dict[str, Any]:
    fn = call.get("function") if isinstance(call, dict) else None
    fn = fn if isinstance(fn, dict) else {}
    raw = fn.get("arguments")
    args = raw
    if isinstance(raw, str):
        try:
            args = {} if not raw.strip() else _object(raw)
        except _Problem as p:
            args = _Problem("bad_arguments", f"arguments: {p}")
    return _call(fn.get("name"), args)


def _hermes(text: str) -> list[dict[str, Any]]:
    blocks = [m.group(1).strip() for m in _BLOCK.finditer(text)]
    if not blocks or _BLOCK.sub("", text).strip():
        raise _Problem("text_outside_blocks", "text outside <tool_call> blocks")
    calls = []
    for block in blocks:
        obj = _object(block)
        calls.append(_call(obj.get("name"), obj.get("arguments")))
    return calls


def _call(tool: Any, args: Any) -> dict[str, Any]:
    if not isinstance(tool, str) or not tool:
        raise _Problem("bad_tool", "the tool name is missing or not a string")
    if isinstance(args, _Problem):
        raise args
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise _Problem("bad_arguments", f"call {tool}: arguments are not a JSON object")
    return {"tool": tool, "arguments": args}


def _no_call(obj: dict[str, Any]) -> dict[str, Any]:
    verdict = obj.get("verdict")
    if verdict not in VERDICTS:
        raise _Problem("unknown_verdict", f"verdict {json.dumps(verdict)} is not one of {', '.join(VERDICTS)}")
    code = obj.get("code")
    if not isinstance(code, str) or CODES.get(code) != verdict:
        raise _Problem("unknown_code", f"code {json.dumps(code)} is not a code of {verdict}")
    return {"kind": "no-call", "verdict": verdict, "code": code}


def _strip_fence(text: str) -> str:
    m = _FENCE.match(text)
    return m.group(1) if m else text


def _object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise _Problem("not_json", "not JSON") from None
    if not isinstance(value, dict):
        raise _Problem("not_an_object", "the JSON is not an object")
    return value
