"""Constrained decoding for the router: output is forced to router JSON naming one of the offered tools, with
arguments that follow that tool's JSON Schema, or a no-call with a known verdict. The grammar engine is
lm-format-enforcer's JsonSchemaParser + TokenEnforcer; this module adapts it to a transformers tokenizer (its own
transformers integration imports a module transformers 5 removed), bounds what a weak model can ramble, and
reduces each tool's schema to the subset the engine enforces (arguments_schema)."""

from __future__ import annotations

import copy
import functools
from typing import Any

from lmformatenforcer import (
    CharacterLevelParser,
    CharacterLevelParserConfig,
    JsonSchemaParser,
    TokenEnforcer,
    TokenEnforcerTokenizerData,
)

from .contract import CODES, VERDICTS

# The no-call vocabulary, from the router contract (trainer/router-contract.json), which the system prompt lists
# too: a no-call names one of these codes, under its verdict.
VERDICT_CODES: dict[str, list[str]] = {v: [c for c, of in CODES.items() if of == v] for v in VERDICTS}
# Bounds keep a weak model from rambling inside a string or array until max_tokens cuts the JSON short.
# Field order is free: the router writes "tool" first by training, and a tool's arguments in sorted order,
# which the schema's `required` order need not be.
MAX_WHITESPACE = 2  # consecutive, inside strings; none outside (BoundedJson)


def parser_config(alphabet: str | None = None) -> CharacterLevelParserConfig:
    """The JSON parser's settings. `alphabet`: the characters the tokenizer can write (written_alphabet; the
    engine's default lacks some, `~` and `|` among them, while its free-text token cache has every token: a
    character outside the alphabet is refused after that cache allowed it, and a refused character ends the
    answer)."""
    extra = {"alphabet": alphabet} if alphabet is not None else {}
    return CharacterLevelParserConfig(
        max_consecutive_whitespaces=MAX_WHITESPACE, max_json_array_length=16, force_json_field_order=False, **extra
    )


PARSER_CONFIG = parser_config()


@functools.lru_cache(maxsize=8)  # one per tokenizer (the data is per base; a constraint is built per request)
def written_alphabet(data: TokenEnforcerTokenizerData) -> str:
    """Every character some regular token writes. The engine's own `tokenizer_alphabet` has only the characters a
    token starts with, but its free-text shortcut allows any quote-free token inside a string: a character only
    written after another (an em dash that only ` —` writes, in a small vocabulary) would be refused by the parser
    after the token was chosen, leaving it nothing to continue with, and the answer ended mid-string."""
    return "".join(sorted({c for _, text, _ in data.regular_tokens for c in text}))


# Any JSON value (what the engine uses for a schema without a type); `integer` is a subset of `number`.
ANY = {"anyOf": [{"type": t} for t in ("string", "number", "boolean", "null", "array", "object")]}
SIMPLE_TYPES = {"string", "number", "integer", "boolean", "null", "array", "object"}
# JSON Schema formats whose shape a pattern forces (the engine ignores `format`): a model that copies "Jun 9 2026"
# from the request must write 2026-06-09. The calendar itself (month 13) is left to validation.
FORMAT_PATTERNS = {
    "date": r"^\d{4}-\d{2}-\d{2}$",
    "date-time": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$",
    "time": r"^\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?$",
    "uuid": r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
}


def _regex_ok(pattern: str) -> bool:
    """Whether the engine can enforce `pattern` (it has its own regex parser, without lookarounds or backrefs)."""
    from lmformatenforcer.regexparser import RegexParser

    try:
        RegexParser(pattern.removeprefix("^").removesuffix("$"), PARSER_CONFIG).get_allowed_characters()
        return True
    except Exception:  # noqa: BLE001 - anything it cannot compile is left unenforced
        return False


def arguments_schema(parameters: Any) -> dict[str, Any]:
    """A tool's input schema reduced to what the engine enforces exactly: types, properties, required,
    additionalProperties: false, items, enum, const, anyOf/oneOf (as anyOf), allOf of objects, string lengths,
    patterns it can compile (a date, date-time, time or uuid format as its pattern), array lengths; local $refs
    inlined (a cycle becomes any value). Keywords it cannot enforce (numeric bounds, other formats) are dropped: the
    answer is then checked, not forced, on those."""
    if not isinstance(parameters, dict):
        return {"type": "object"}
    out = _reduce(parameters, parameters, ())
    is_object = lambda x: x.get("type") == "object"  # noqa: E731
    if is_object(out) or (out.get("anyOf") and all(is_object(b) for b in out["anyOf"])):
        return out
    return {"type": "object"}


def _resolve(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref.removeprefix("#/").split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _merged(parent: dict[str, Any], branch: Any) -> dict[str, Any]:
    """A parent schema with one of its anyOf/oneOf branches folded in: properties and required combined."""
    if not isinstance(branch, dict):
        return parent
    out = {**parent, **{k: v for k, v in branch.items() if k not in ("properties", "required")}}
    if "properties" in parent or "properties" in branch:
        out["properties"] = {**(parent.get("properties") or {}), **(branch.get("properties") or {})}
    out["required"] = list(dict.fromkeys([*(parent.get("required") or []), *(branch.get("required") or [])]))
    return out


def _reduce(s: Any, root: dict[str, Any], refs: tuple[str, ...]) -> dict[str, Any]:
    if s is True or not isinstance(s, dict):
        return copy.deepcopy(ANY)
    if "$ref" in s:
        ref = s["$ref"]
        target = _resolve(root, ref) if isinstance(ref, str) and ref.startswith("#") else None
        if target is None or ref in refs or len(refs) >= 6:
            return copy.deepcopy(ANY)
        return _reduce(target, root, refs + (ref,))
    if "const" in s and isinstance(s["const"], (str, int, float)) and not isinstance(s["const"], bool):
        return {"enum": [s["const"]]} if not isinstance(s["const"], str) else {"type": "string", "enum": [s["const"]]}
    enum = s.get("enum")
    if isinstance(enum, list) and enum:
        if all(isinstance(v, str) for v in enum):
            return {"type": "string", "enum": list(enum)}
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in enum):
            return {"enum": list(enum)}
        if all(isinstance(v, bool) for v in enum):
            return {"type": "boolean"}
        return copy.deepcopy(ANY)  # mixed kinds: the engine cannot enforce it
    branches = s.get("anyOf") or s.get("oneOf")
    if isinstance(branches, list) and branches:
        rest = {k: v for k, v in s.items() if k not in ("anyOf", "oneOf")}
        if any(k in rest for k in ("type", "properties", "items")):
            # Branches that refine the parent ({"required": [...]} alternatives under shared properties, as
            # get_invoice(customerTrxId | trxNumber) is written): each branch is the parent plus that branch.
            return {"anyOf": [_reduce(_merged(rest, b), root, refs) for b in branches]}
        return {"anyOf": [_reduce(b, root, refs) for b in branches]}
    if isinstance(s.get("allOf"), list) and s["allOf"]:
        # The schema's own keys beside allOf are one more part: {"properties": {a}, "allOf": [{"properties": {b}}]}
        # takes both a and b.
        rest = {k: v for k, v in s.items() if k != "allOf"}
        own = [rest] if any(k in rest for k in ("type", "properties", "items")) else []
        parts = [_reduce(b, root, refs) for b in [*own, *s["allOf"]]]
        if all(p.get("type") == "object" for p in parts):
            merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
            for p in parts:
                merged["properties"].update(p.get("properties") or {})
            for p in [*parts, rest]:
                merged["required"] += [k for k in p.get("required", []) if k not in merged["required"]]
            return merged
        return parts[0]
    kind = s.get("type")
    if kind is None:
        kind = "object" if "properties" in s else "array" if "items" in s else None
    if isinstance(kind, list):
        kinds = [k for k in kind if k in SIMPLE_TYPES]
        if not kinds:
            return copy.deepcopy(ANY)
        if len(kinds) > 1:
            return {"anyOf": [_reduce({**s, "type": k}, root, refs) for k in kinds]}
        kind = kinds[0]
    if kind not in SIMPLE_TYPES:
        return copy.deepcopy(ANY)
    out: dict[str, Any] = {"type": kind}
    if kind == "object":
        props = s.get("properties")
        if isinstance(props, dict):
            out["properties"] = {k: _reduce(v, root, refs) for k, v in props.items()}
            out["required"] = [k for k in s.get("required", []) if isinstance(k, str) and k in props]
        elif s.get("additionalProperties") is False:
            out["properties"], out["required"] = {}, []  # only {}
    elif kind == "array":
        out["items"] = _reduce(s.get("items", True), root, refs)
        for key in ("minItems", "maxItems"):
            if isinstance(s.get(key), int):
                out[key] = s[key]
    elif kind == "string":
        fmt = s.get("format")
        pattern = s.get("pattern") if "pattern" in s else FORMAT_PATTERNS.get(fmt) if isinstance(fmt, str) else None
        if isinstance(pattern, str) and _regex_ok(pattern):
            out["pattern"] = pattern  # the engine refuses a pattern together with lengths
        else:
            for key in ("minLength", "maxLength"):
                if isinstance(s.get(key), int):
                    out[key] = s[key]
    return out


def _tool_parts(tool: Any) -> tuple[str, Any]:
    """(name, parameters) of an OpenAI tool ({type, function}), a bare function, or a plain name."""
    if isinstance(tool, str):
        return tool, None
    fn = tool.get("function", tool)
    return fn["name"], fn.get("parameters")


def router_schema(tools: list[Any]) -> dict[str, Any]:
    """{"tool": NAME, "arguments": <NAME's arguments_schema>} for each offered tool, or {"tool": null, "verdict": V,
    "code": C} with a code of that verdict. A tool given by name only gets a free-form arguments object."""
    calls = []
    for tool in tools:
        name, parameters = _tool_parts(tool)
        calls.append(
            {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": [name]},
                    "arguments": arguments_schema(parameters) if parameters is not None else {"type": "object"},
                },
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    no_calls = [
        {
            "type": "object",
            "properties": {
                "tool": {"type": "null"},
                "verdict": {"type": "string", "enum": [verdict]},
                "code": {"type": "string", "enum": codes},
            },
            "required": ["tool", "verdict", "code"],
            "additionalProperties": False,
        }
        for verdict, codes in VERDICT_CODES.items()
    ]
    return {"anyOf": calls + no_calls}


def tokenizer_data(tokenizer: Any) -> TokenEnforcerTokenizerData:
    """What the TokenEnforcer needs to know of a vocabulary: each regular token's text and whether it starts
    a word (decoded after a leading '0' to see a space the tokenizer would otherwise strip).

    Tokens whose text holds a control character, a run of spaces longer than MAX_WHITESPACE, or a partial
    UTF-8 sequence are left out (longer runs are no use in an answer and the free-text shortcut cannot check them): raw control
    characters are invalid inside JSON strings, and byte fragments decode to U+FFFD, which the enforcer
    cannot check. The cost: characters only reachable through byte fragments cannot be generated."""
    vocab_size = len(tokenizer)
    special = set(tokenizer.all_special_ids)
    zero = tokenizer.encode("0", add_special_tokens=False)[-1]
    regular = []
    for token_id in range(vocab_size):
        if token_id in special:
            continue
        after_zero = tokenizer.decode([zero, token_id])[1:]
        alone = tokenizer.decode([token_id])
        if (
            not alone
            or any(c < " " or c in "\x7f\ufffd" for c in after_zero)
            or " " * (MAX_WHITESPACE + 1) in after_zero
        ):
            continue
        regular.append((token_id, after_zero, len(after_zero) > len(alone)))

    def decode(tokens: list[int]) -> str:
        return tokenizer.decode(tokens).rstrip("\ufffd")

    return TokenEnforcerTokenizerData(regular, decode, tokenizer.eos_token_id, False, vocab_size)


# A free-form `arguments` object has no length limits of its own: these keep every answer finite, so it ends
# well inside max_tokens even from an undertrained model (a string or a number can otherwise run on forever).
MAX_STRING = 128
MAX_DIGITS = 18
# Characters an answer may spend inside its `arguments` object before it must wrap up: no new member, element,
# object or array, only values that end and closing brackets. Keys and nesting are otherwise unbounded, and an
# undertrained model can open them until max_tokens cuts the JSON short (seen in a deploy's smoke test).
MAX_ARGUMENTS = 320


class BoundedJson(CharacterLevelParser):
    """Wraps a JSON parser with rules lm-format-enforcer 0.11.3 lacks: no `}` or `]` right after a `,` outside
    strings (it lets a free-form object close after a comma, `{"a":1,}`, which is not JSON; seen with sampled
    output), strings of at most MAX_STRING characters, runs of at most MAX_DIGITS digits, a wrap-up after
    MAX_ARGUMENTS characters of arguments, and no whitespace outside strings."""

    def __init__(
        self,
        inner: CharacterLevelParser,
        last: str = "",
        in_string: bool = False,
        escaped: bool = False,
        run: int = 0,
        depth: int = 0,
        nested: int = 0,
        spaces: int = 0,
    ):
        super().__init__(PARSER_CONFIG)
        self.inner, self.last, self.in_string, self.escaped = inner, last, in_string, escaped
        self.spaces = spaces  # whitespace characters just written inside a string
        self.run = run  # characters in the current string, or digits in the current number
        self.depth = depth  # open objects and arrays outside strings
        self.nested = nested  # characters written below the top level (inside `arguments`)

    def add_character(self, c: str) -> "BoundedJson":
        last, in_string, escaped, run, depth = self.last, self.in_string, self.escaped, self.run, self.depth
        nested = self.nested + (1 if depth >= 2 else 0)
        if not in_string and c in "{[":
            depth += 1
        elif not in_string and c in "}]":
            depth -= 1
        if in_string:
            run += 1
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string, last, run = False, c, 0
        elif c == '"':
            in_string, last, run = True, c, 0
        elif c.isdigit():
            last, run = c, run + 1
        elif not c.isspace():
            last, run = c, 0
        spaces = self.spaces + 1 if in_string and c.isspace() else 0
        return BoundedJson(self.inner.add_character(c), last, in_string, escaped, run, depth, nested, spaces)

    def get_allowed_characters(self) -> str:
        allowed = self.inner.get_allowed_characters()
        if self.in_string:
            # At the limit only the closing quote (never mid-escape, where a quote would be an escaped one).
            if self.run >= MAX_STRING and not self.escaped and '"' in allowed:
                return '"'
            return allowed
        # Compact JSON, as the router is trained to write it: whitespace only inside strings. (A space allowed
        # between tokens doubles the vocabulary the constraint walks and lets a weak model pad.)
        allowed = "".join(ch for ch in allowed if ch not in " \t\n\r")
        if self.last == ",":
            allowed = allowed.replace("}", "").replace("]", "")
        if self.run >= MAX_DIGITS:
            allowed = "".join(ch for ch in allowed if not ch.isdigit())
        if self.last.isdigit() or self.last == ".":
            # No exponents: 1e999 is valid JSON that Python reads as inf and writes back as Infinity, which is
            # not JSON (a smoke test's probe failed on it); a router's numbers never need one.
            allowed = allowed.replace("e", "").replace("E", "")
        if self.depth >= 2 and self.nested >= MAX_ARGUMENTS:
            # Wrap up: nothing new opens; a value already begun may end. Never leave no way out (right after a
            # comma a key is the only continuation: one more member, then it must close).
            wrapped = "".join(ch for ch in allowed if ch not in '{[",')
            if wrapped:
                return wrapped
        return allowed

    def can_end(self) -> bool:
        return self.inner.can_end()

    def shortcut_key(self):
        """Inside a free-text string, the engine's shortcut: every token without a quote is allowed from a cached
        list instead of walking the vocabulary through the parser character by character (that walk cost ~180 ms a
        token with SmolLM2's 49K vocabulary, four times the model's own step). The cap becomes the string's
        remaining room under MAX_STRING; the chosen token's characters still come through add_character."""
        key = self.inner.shortcut_key()
        # After whitespace, the engine's limit on consecutive whitespace may refuse a cached token's leading
        # spaces: walk instead. (Tokens with longer whitespace runs of their own are not in the vocabulary.)
        if (
            not self.in_string
            or self.escaped
            or self.spaces
            or not (isinstance(key, tuple) and key[0] == "json_freetext")
        ):
            return None
        _, cur_len, min_len, max_len = key
        return ("json_freetext", cur_len, min_len, min(max_len, cur_len + max(0, MAX_STRING - self.run)))


class RouterConstraint:
    """prefix_allowed_tokens_fn for generate(). The enforcer takes the first sequence it sees as the prompt.
    `tools`: the offered tools (OpenAI tool objects; bare names constrain the name only)."""

    def __init__(self, data: TokenEnforcerTokenizerData, tools: list[Any]):
        parser = BoundedJson(JsonSchemaParser(router_schema(tools), config=parser_config(written_alphabet(data))))
        self.enforcer = TokenEnforcer(data, parser)

    def __call__(self, batch_id: int, input_ids) -> list[int]:
        return self.allowed(input_ids.tolist())

    def allowed(self, seq: list[int]) -> list[int]:
        """Every token the constraint allows after `seq` (computed once per prefix)."""
        state = self._state(seq)
        if state.allowed_tokens is None:
            self.enforcer._compute_allowed_tokens(tuple(seq), state)
        return state.allowed_tokens.allowed_tokens  # a TokenList's ids (no bitmask: use_bitmask is off)

    def begin(self, prompt: list[int], opening: list[int]) -> list[int]:
        """Take `prompt` as the prompt and walk an answer's `opening` through the parser (a decoder then continues
        from the returned sequence): how a caller forces the answer's first tokens, e.g. one side of a decision."""
        seq = list(prompt)
        self._state(seq)  # the first sequence the enforcer sees is the prompt
        for token in opening:
            if not self.accepts(seq, token):
                raise ValueError(
                    f"the constraint refuses token {token} after {len(seq) - len(prompt)} forced answer tokens"
                )
            seq.append(token)
            self._state(seq)
        return seq

    def _state(self, seq: list[int]):
        """The enforcer's parser state after `seq`, without computing the allowed set (its expensive part)."""
        e = self.enforcer
        key = tuple(seq)
        state = e.prefix_states.get(key)
        if state is None:
            prev = e.prefix_states.get(key[:-1])
            state = (
                TokenEnforcer.OutputTensorState(parser=e.root_parser)
                if prev is None
                else e._apply_new_characters(prev, seq)
            )
            e.prefix_states[key] = state
        return state

    def accepts(self, seq: list[int], token: int) -> bool:
        """Whether the constraint allows `token` after `seq`: its characters walked through the parser, a few
        steps instead of the whole vocabulary."""
        e = self.enforcer
        state = self._state(seq)
        if token == e.eos_token_id:
            return state.parser.can_end()
        if token not in e.tokenizer_tree.tokens_to_strs:
            return False  # left out of the vocabulary the engine knows (control characters, byte fragments)
        if token in e.tokenizer_tree.new_word_tokens:
            chars = e.tokenizer_tree.tokens_to_strs[token]
        else:
            before = e.decoder(state.current_word_tokens)
            chars = e.decoder(state.current_word_tokens + [token])[len(before) :]
        return bool(chars) and _walks(state.parser, chars)

    def accepts_text(self, seq: list[int], text: str) -> bool:
        """Whether the constraint allows the characters of `text` after `seq` (whatever tokens spell them)."""
        return _walks(self._state(seq).parser, text)


def _walks(parser: Any, text: str) -> bool:
    """Whether `parser` takes `text` character by character."""
    for c in text:
        if c not in parser.get_allowed_characters():
            return False
        parser = parser.add_character(c)
    return True


class RouterLogitsProcessor:
    """A transformers logits processor over RouterConstraint for sampling, or for logprobs that must show the
    distribution over what the constraint allowed: it masks every step by the full allowed set. (Greedy answers
    take decode.greedy, which checks the model's own first choice and computes the set only when it is refused.)"""

    def __init__(self, constraint: RouterConstraint | None, prior: Any = None):
        self.constraint = constraint
        self.prior = prior  # what priors.py mixes into the answer (the retrieval and copy priors)

    def __call__(self, input_ids, scores):
        import torch

        for b in range(scores.shape[0]):
            if self.prior is not None:
                scores[b] = self.prior.mix(input_ids[b].tolist(), scores[b])
            if self.constraint is None:
                continue
            allowed = self.constraint.allowed(input_ids[b].tolist())
            mask = torch.full_like(scores[b], float("-inf"))
            mask[torch.tensor(allowed, dtype=torch.long)] = 0
            scores[b] = scores[b] + mask
        return scores
