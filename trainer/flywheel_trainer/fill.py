"""The fill prior: before a call's arguments close, the optional values the request states unmistakably.

A small router stops its arguments at the required ones and leaves out what the request also said: the new
contact's email, "pivoted into healthcare" for an `industry` enum, "lost to a competitor" for a `lossReason` enum.
Where the model would close the arguments object (`}` is its first choice) and the chosen tool has an optional
property, not yet written, whose value the request states, `,"key":value` gets the weight, token by token, as the
copy prior's words do (priors.py). Stated unmistakably means: the only email address in the request's user turns
for a property of format `email` (or named …email), or the only value of a string enum that occurs there as a whole
word, in any case (the enum's own spelling is written). A value stated for two properties, or two values for one,
is left to the model."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .priors import encode_continuation, mix_in

# `flywheel serve --fill-weight`. At 0.5 a stated value is written unless the model is certain of something else.
DEFAULT_FILL_WEIGHT = 0.5
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_OPENING = re.compile(r'^\{"tool":"([^"\\]+)","arguments":\{')


def _mentions(text: str, value: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(value.lower()) + r"(?![\w-])", text) is not None


def stated_values(parameters: Any, text: str) -> dict[str, Any]:
    """{optional property: the value `text` (a request's user turns) states for it}, for a tool's JSON Schema."""
    if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
        return {}
    required = set(parameters.get("required") or [])
    lowered = text.lower()
    emails = sorted(set(_EMAIL.findall(text)))
    found: dict[str, Any] = {}
    for key, prop in parameters["properties"].items():
        if key in required or not isinstance(prop, dict):
            continue
        values: list[Any] = []
        if prop.get("type") == "string" and (prop.get("format") == "email" or key.lower().endswith("email")):
            values = emails
        elif isinstance(prop.get("enum"), list):
            values = [v for v in prop["enum"] if isinstance(v, str) and len(v) > 1 and _mentions(lowered, v)]
        if len(values) == 1:
            found[key] = values[0]
    counts: dict[str, int] = {}
    for value in found.values():
        counts[json.dumps(value)] = counts.get(json.dumps(value), 0) + 1
    return {k: v for k, v in found.items() if counts[json.dumps(v)] == 1}


def _arguments_so_far(text: str) -> dict[str, Any] | None:
    """The arguments written when `text` (an answer's start) ends right after one of them, or right after the
    arguments' `{`; None elsewhere (mid-value, inside a nested value, after a number that may go on, once closed)."""
    if not _OPENING.match(text) or text[-1:].isdigit() or text.endswith("."):
        return None
    try:
        obj = json.loads(text + "}}")
    except json.JSONDecodeError:
        return None
    args = obj.get("arguments") if isinstance(obj, dict) else None
    return args if isinstance(args, dict) else None


@dataclass
class FillPrior:
    tokenizer: Any
    stated: dict[str, dict[str, Any]]  # tool → {optional property: stated value}
    weight: float
    n_prompt: int
    # Where in the answer's text a stated value began to be written: it is followed there to its end, and a comma
    # the model writes itself (its own next key follows) is left alone.
    began: set[int] = field(default_factory=set)

    @classmethod
    def build(cls, tokenizer: Any, tools: list[dict[str, Any]], text: str, weight: float, n_prompt: int) -> "FillPrior | None":
        if weight <= 0:
            return None
        stated = {}
        for tool in tools:
            fn = tool.get("function") or {}
            values = stated_values(fn.get("parameters"), text)
            if values and isinstance(fn.get("name"), str):
                stated[fn["name"]] = values
        return cls(tokenizer, stated, weight, n_prompt) if stated else None

    def pending(self, answer_text: str, closing: bool) -> str:
        """The rest of the text to write now: a stated property's `,"key":value` begun earlier, or, when the model
        would close the arguments (`closing`), the first one not yet written; "" when none."""
        m = _OPENING.match(answer_text)
        values = self.stated.get(m.group(1)) if m else None
        if not values:
            return ""
        for cut in sorted(self.began, reverse=True):
            args = _arguments_so_far(answer_text[:cut]) if cut <= len(answer_text) else None
            written = answer_text[cut:] if args is not None else None
            for key, value in values.items() if args is not None else ():
                piece = _piece(args, key, value)
                if key not in args and len(written) < len(piece) and piece.startswith(written):
                    return piece[len(written):]
        args = _arguments_so_far(answer_text) if closing else None
        for key, value in values.items() if args is not None else ():
            if key not in args:
                self.began.add(len(answer_text))
                return _piece(args, key, value)
        return ""

    def mix(self, seq: list[int], logits):
        answer = seq[self.n_prompt :]
        if not answer:
            return logits
        closing = self.tokenizer.decode([int(logits.argmax())]).lstrip().startswith("}")
        rest = self.pending(self.tokenizer.decode(answer), closing)
        if not rest:
            return logits
        return mix_in(logits, {encode_continuation(self.tokenizer, rest)[0]: 1.0}, self.weight)


def _piece(args: dict[str, Any], key: str, value: Any) -> str:
    return ("," if args else "") + json.dumps(key, ensure_ascii=False) + ":" + json.dumps(value, ensure_ascii=False)
