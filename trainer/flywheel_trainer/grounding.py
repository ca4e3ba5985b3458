"""The grounding check: ids and made-up values in a call's arguments must come from the conversation.

A small router asked to "post the journal we discussed" writes a journal id anyway, and one asked for an invoice
adds an `accountNumber` nobody gave. After the answer is decoded, each argument value of a kind that has to be
copied is looked up in the conversation's user turns, tool results and earlier assistant turns (not the system
prompt; `grounded` says how). Values from a closed set or normalised by a format (enum, const, date, email and the
like), numbers with a fraction, booleans, arrays and objects are not checked.

- A required argument that is not grounded means the request lacks it: the answer becomes the
  `missing_argument` no-call.
- An optional one is dropped from the call, unless a oneOf/anyOf alternative requires it.

serve reports either in `message.flywheel` (`ungrounded`, `dropped`); `"grounding": false` in a request skips it."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MISSING_ARGUMENT = {"tool": None, "verdict": "abstain", "code": "missing_argument"}
MIN_ID_DIGITS = 4
MIN_WORD = 3
_WORDS = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+")
_THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}\b)")


@dataclass
class Source:
    text: str  # lower case
    words: frozenset[str]
    numbers: frozenset[str]

    @classmethod
    def of(cls, messages: list[dict[str, Any]]) -> "Source":
        text = "\n".join(m["content"] for m in messages if m.get("role") in ("user", "tool", "assistant") and isinstance(m.get("content"), str)).lower()
        numbers = frozenset(n.lstrip("0") or "0" for n in _NUMBER.findall(_THOUSANDS.sub("", text)))
        return cls(text, frozenset(_WORDS.findall(text)), numbers)


def _checked(schema: Any) -> str | None:
    """The kind of value that must be copied ("string", "integer"), or None for values the check leaves alone."""
    if not isinstance(schema, dict) or any(k in schema for k in ("enum", "const", "format", "anyOf", "oneOf", "allOf", "$ref")):
        return None
    kind = schema.get("type")
    return kind if kind in ("string", "integer") else None


def grounded(value: Any, kind: str, source: Source, strict: bool) -> bool:
    """Whether `value` could have come from the conversation. Always checked: integers of MIN_ID_DIGITS or more
    digits (as numbers there), empty strings, and the words with digits in a string (each verbatim there: an id is
    copied whole). `strict` (optional arguments) also checks a string of letters: some word of it must begin like
    a word there (its first four letters), so "Dec" and "invoices" are grounded by "December" and "invoice".
    Without `strict` a string of letters passes: a required value may be a word the request implies ("Account"
    for "acct", "United Kingdom" for "UK")."""
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool) or len(str(abs(value))) < MIN_ID_DIGITS:
            return True
        return str(abs(value)) in source.numbers
    if not isinstance(value, str):
        return True
    v = value.strip().lower()
    if not v:
        return False
    if v in source.text:
        return True
    words = _WORDS.findall(v)
    with_digits = [w for w in words if any(c.isdigit() for c in w)]
    if with_digits:
        return all(w in source.text for w in with_digits)
    if not strict:
        return True
    stems = [w[:4] for w in words if len(w) >= MIN_WORD]
    return any(any(sw.startswith(stem) for sw in source.words) for stem in stems)


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
        kind = _checked(props.get(key))
        if kind is None or grounded(value, kind, source, strict=key not in required):
            continue
        if key in required:
            missing.append(key)
        elif key not in pinned:
            droppable.append(key)
    return missing, droppable


def ground_answer(content: str, tools: list[dict[str, Any]] | None, messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any] | None]:
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
