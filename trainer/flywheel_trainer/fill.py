"""The fill prior: before a call's arguments close, the optional values the request states unmistakably.

A small router stops its arguments at the required ones and leaves out what the request also said: the new
contact's email, "pivoted into healthcare" for an `industry` enum, "lost to a competitor" for a `lossReason` enum.
Where the model would close the arguments object and may (its first choice begins with `}`, or is `{}` for empty
arguments, and the constraint allows it: every required argument is written) and the chosen tool has an optional
property, not yet written, whose value the request states, `,"key":value` gets the weight, token by token, as the
copy prior's words do (priors.py). Stated unmistakably means: the only email address in the request's user turns,
for a string property of format `email` (or named …email); or the only value of a string enum (two characters or
more) that occurs there as a whole word, in any case (the enum's own spelling is written). Left to the model: a
value that would fit two properties (required ones included), two values for one property, a value the call
already holds inside another argument ("phone system down" as the subject is not an `origin: Phone`), a piece the
constraint refuses (a pattern, a length), and a key the model turned down once."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .priors import encode_continuation, mix_in

# `flywheel serve --fill-weight`. At 0.5 a stated value is written unless the model is certain of something else.
DEFAULT_FILL_WEIGHT = 0.5
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_OPENING = re.compile(r'^\{"tool":"([^"\\]+)","arguments":')


def _mentions(text: str, value: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(value.lower()) + r"(?![\w-])", text) is not None


def stated_values(parameters: Any, text: str) -> dict[str, Any]:
    """{optional property: the value `text` (a request's user turns) states for it}, for a tool's JSON Schema."""
    if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
        return {}
    required = set(parameters.get("required") or [])
    lowered = text.lower()
    emails = sorted(set(_EMAIL.findall(text)))
    found: dict[str, list[Any]] = {}
    for key, prop in parameters["properties"].items():
        if not isinstance(prop, dict):
            continue
        if prop.get("type") == "string" and (prop.get("format") == "email" or key.lower().endswith("email")):
            found[key] = emails
        elif isinstance(prop.get("enum"), list):
            found[key] = [v for v in prop["enum"] if isinstance(v, str) and len(v) > 1 and _mentions(lowered, v)]
    # A value that would fit two properties, a required one among them (the recipient's address is not also the
    # reply-to), is nobody's.
    fits: dict[str, int] = {}
    for values in found.values():
        for value in set(values):
            fits[value.lower()] = fits.get(value.lower(), 0) + 1
    return {k: v[0] for k, v in found.items() if k not in required and len(v) == 1 and fits[v[0].lower()] == 1}


def _arguments_so_far(text: str) -> dict[str, Any] | None:
    """The arguments written when `text` (an answer's start) ends right after one of them, or right after the
    arguments' `{`; None elsewhere (mid-value, inside a nested value, once closed). A number may go on: the caller
    asks only where the model would close."""
    if not _OPENING.match(text):
        return None
    try:
        obj = json.loads(text + "}}")
    except json.JSONDecodeError:
        return None
    args = obj.get("arguments") if isinstance(obj, dict) else None
    return args if isinstance(args, dict) else None


def _holds(args: dict[str, Any], value: str) -> bool:
    """Whether an argument written so far holds `value` as a whole word (in any case)."""
    written = json.dumps(list(args.values()), ensure_ascii=False).lower()
    return _mentions(written, value)


@dataclass
class FillPrior:
    tokenizer: Any
    stated: dict[str, dict[str, Any]]  # tool → {optional property: stated value}
    weight: float
    n_prompt: int
    # Whether the constraint allows `text` after a sequence (serve: the request's RouterConstraint.accepts_text):
    # a piece it refuses part-way would leave a half-written value or a key the model never meant.
    allows: Callable[[list[int], str], bool] | None = None
    # Where in the answer's text a stated value began to be written, with its key and text: it is followed there to
    # its end; a key the model turned down is not pushed again; a comma the model writes itself is left alone.
    began: dict[int, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        tokenizer: Any,
        tools: list[dict[str, Any]],
        text: str,
        weight: float,
        n_prompt: int,
        allows: Callable[[list[int], str], bool] | None = None,
    ) -> "FillPrior | None":
        if weight <= 0:
            return None
        stated = {}
        for tool in tools:
            fn = tool.get("function") or {}
            values = stated_values(fn.get("parameters"), text)
            if values and isinstance(fn.get("name"), str):
                stated[fn["name"]] = values
        return cls(tokenizer, stated, weight, n_prompt, allows) if stated else None

    def pending(self, answer_text: str, closing: bool, empty: bool = False, seq: list[int] | None = None) -> str:
        """The rest of the text to write now: a stated property's `,"key":value` begun earlier, or, where the model
        would close the arguments (`closing`; `empty`: with `{}`), the first one not yet written; "" when none."""
        m = _OPENING.match(answer_text)
        values = self.stated.get(m.group(1)) if m else None
        if not values:
            return ""
        declined = set()
        for cut, (key, piece) in self.began.items():
            written = answer_text[cut:]
            if len(written) < len(piece) and piece.startswith(written):
                return piece[len(written) :]
            if not piece.startswith(written[: len(piece)]):
                declined.add(key)
        if empty and answer_text == m.group(0):
            args, opening = {}, "{"
        else:
            args, opening = (_arguments_so_far(answer_text) if closing else None), ""
        for key, value in values.items() if args is not None else ():
            if key in args or key in declined or _holds(args, value):
                continue
            piece = (
                opening
                + ("," if args else "")
                + json.dumps(key, ensure_ascii=False)
                + ":"
                + json.dumps(value, ensure_ascii=False)
            )
            if self.allows is not None and seq is not None and not self.allows(seq, piece):
                continue
            self.began[len(answer_text)] = (key, piece)
            return piece
        return ""

    def mix(self, seq: list[int], logits):
        answer = seq[self.n_prompt :]
        if not answer:
            return logits
        first = self.tokenizer.decode([int(logits.argmax())]).lstrip()
        # Closing where the constraint lets it: a model that would close before a required argument is written
        # cannot, and writes that argument next.
        closing = first.startswith("}") and (self.allows is None or self.allows(seq, "}"))
        empty = first.startswith("{}") and (self.allows is None or self.allows(seq, "{}"))
        rest = self.pending(self.tokenizer.decode(answer), closing, empty, seq)
        if not rest:
            return logits
        return mix_in(logits, {encode_continuation(self.tokenizer, rest)[0]: 1.0}, self.weight)
