"""The grounding check: ids in a call's arguments must come from the conversation.

A small router asked to "post the journal we discussed" writes a journal id anyway, and one asked for an invoice
adds an `accountNumber` nobody gave. After the answer is decoded, the values that name something — an argument
whose key says it is an identifier (`…id`, `…Id`, `…_id`, `…number`, `…Number`, `…no`, `…key`, `…code`, `…ref`)
and whose value is an integer of four or more digits or a string with digits and no whitespace — are looked up in
the conversation: its user, tool and system turns and its earlier calls' arguments. Each run of digits and letters
in the value that holds a digit must be a whole word there (an integer: the number, thousands separators aside):
an id is copied whole. Quantities, amounts, dates, free text, URLs and paths are left alone, as is anything from a
closed set or a format (enum, const, format), booleans, arrays and objects.

- A required argument that is not grounded means the request lacks it (or the router miscopied it): the answer
  becomes the `missing_argument` no-call, which the gateway may escalate, rather than a call on a made-up id.
- An optional one is dropped from the call, unless a oneOf/anyOf alternative requires it.

serve reports either in `message.flywheel` (`ungrounded`, `dropped`); `"grounding": false` in a request skips it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .priors import text_of

MISSING_ARGUMENT = {"tool": None, "verdict": "abstain", "code": "missing_argument"}
MIN_ID_DIGITS = 4
MAX_ID_LENGTH = 80
# Keys that name an identifier, as MCP servers spell them: customerId, record_id, issue_number, trxNumber, sku …
ID_KEY = re.compile(r"(?:id|ids|number|num|no|key|code|ref|sku|uuid)$", re.IGNORECASE)
_WORDS = re.compile(r"[a-z0-9]+")
_THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}\b)")


@dataclass
class Source:
    words: frozenset[str]  # lower case; "12,345" also as "12345"

    @classmethod
    def of(cls, messages: list[dict[str, Any]]) -> "Source":
        parts = []
        for m in messages:
            parts.append(text_of(m.get("content")))
            for call in m.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                args = fn.get("arguments") if isinstance(fn, dict) else None
                parts.append(args if isinstance(args, str) else json.dumps(args) if args is not None else "")
        text = "\n".join(parts).lower()
        return cls(frozenset(_WORDS.findall(text)) | frozenset(_WORDS.findall(_THOUSANDS.sub("", text))))


def _checked(key: str, schema: Any) -> bool:
    """Whether the value of `key` is an identifier the check looks up."""
    if not ID_KEY.search(key) or not isinstance(schema, dict):
        return False
    if any(k in schema for k in ("enum", "const", "format", "anyOf", "oneOf", "allOf", "$ref")):
        return False
    return schema.get("type") in ("string", "integer", "number")


def grounded(value: Any, source: Source) -> bool:
    """Whether an identifier value could have come from the conversation (see the module's docstring)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        if value != int(value) or len(str(abs(int(value)))) < MIN_ID_DIGITS:
            return True
        return str(abs(int(value))) in source.words
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_LENGTH or re.search(r"\s", value.strip()):
        return True
    with_digits = [w for w in _WORDS.findall(value.lower()) if any(c.isdigit() for c in w)]
    return all(w in source.words for w in with_digits)


def _alternatives_require(parameters: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for branch in [*(parameters.get("oneOf") or []), *(parameters.get("anyOf") or [])]:
        if isinstance(branch, dict):
            keys.update(k for k in branch.get("required") or [] if isinstance(k, str))
    return keys


def ungrounded(arguments: dict[str, Any], parameters: Any, source: Source) -> tuple[list[str], list[str]]:
    """(required keys whose values are not grounded, optional keys that are not and may be dropped)."""
    if not isinstance(parameters, dict) or not isinstance(arguments, dict):
        return [], []
    props = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    pinned = _alternatives_require(parameters)
    missing, droppable = [], []
    for key, value in arguments.items():
        if not _checked(key, props.get(key)) or grounded(value, source):
            continue
        if key in required:
            missing.append(key)
        elif key not in pinned:
            droppable.append(key)
    return missing, droppable


def ground_answer(
    content: str, tools: list[dict[str, Any]] | None, messages: list[dict[str, Any]]
) -> tuple[str, dict[str, Any] | None]:
    """A router-JSON call with its ungrounded optional arguments dropped, or the missing_argument no-call when a
    required one is ungrounded; with what was done (None: the answer stands)."""
    try:
        obj = json.loads(content)
    except json.JSONDecodeError:
        return content, None
    tool = obj.get("tool") if isinstance(obj, dict) else None
    fn = next((t["function"] for t in tools or [] if t.get("function", {}).get("name") == tool), None)
    if fn is None or not isinstance(obj.get("arguments"), dict):
        return content, None
    arguments = obj["arguments"]
    missing, droppable = ungrounded(arguments, fn.get("parameters"), Source.of(messages))
    if missing:
        return _compact(MISSING_ARGUMENT), {"ungrounded": missing, "call": {"tool": tool, "arguments": arguments}}
    if droppable:
        kept = {k: v for k, v in arguments.items() if k not in droppable}
        return _compact({**obj, "arguments": kept}), {"dropped": {k: arguments[k] for k in droppable}}
    return content, None


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
