"""Constrained decoding for the router: output is forced to router JSON with the tool name drawn from the
offered tools. The grammar engine is lm-format-enforcer's JsonSchemaParser + TokenEnforcer; this module only
adapts it to a transformers tokenizer (its own transformers integration imports a module transformers 5
removed) and builds the schema."""
from __future__ import annotations

from typing import Any

from lmformatenforcer import (
    CharacterLevelParser,
    CharacterLevelParserConfig,
    JsonSchemaParser,
    TokenEnforcer,
    TokenEnforcerTokenizerData,
)

VERDICTS = ["abstain", "violation", "escalate"]
# Bounds keep a weak model from rambling inside a string or array until max_tokens cuts the JSON short.
MAX_TEXT = 160
PARSER_CONFIG = CharacterLevelParserConfig(max_consecutive_whitespaces=1, max_json_array_length=16)


def router_schema(tool_names: list[str]) -> dict[str, Any]:
    """{"arguments": {...}, "tool": NAME} or {"code", "reason", "tool": null, "verdict"}."""
    return {
        "anyOf": [
            {
                "type": "object",
                "properties": {"arguments": {"type": "object"}, "tool": {"type": "string", "enum": tool_names}},
                "required": ["arguments", "tool"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "maxLength": 48},
                    "reason": {"type": "string", "maxLength": MAX_TEXT},
                    "tool": {"type": "null"},
                    "verdict": {"type": "string", "enum": VERDICTS},
                },
                "required": ["code", "reason", "tool", "verdict"],
                "additionalProperties": False,
            },
        ]
    }


def tokenizer_data(tokenizer: Any) -> TokenEnforcerTokenizerData:
    """What the TokenEnforcer needs to know of a vocabulary: each regular token's text and whether it starts
    a word (decoded after a leading '0' to see a space the tokenizer would otherwise strip).

    Tokens whose text holds a control character or a partial UTF-8 sequence are left out: raw control
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
        if not alone or any(c < " " or c in "\x7f\ufffd" for c in after_zero):
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
    """Wraps a JSON parser with three rules lm-format-enforcer 0.11.3 lacks: no `}` or `]` right after a `,`
    outside strings (it lets a free-form object close after a comma, `{"a":1,}`, which is not JSON; seen with
    sampled output), strings of at most MAX_STRING characters, and runs of at most MAX_DIGITS digits."""

    def __init__(self, inner: CharacterLevelParser, last: str = "", in_string: bool = False, escaped: bool = False, run: int = 0, depth: int = 0, nested: int = 0):
        super().__init__(PARSER_CONFIG)
        self.inner, self.last, self.in_string, self.escaped = inner, last, in_string, escaped
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
        return BoundedJson(self.inner.add_character(c), last, in_string, escaped, run, depth, nested)

    def get_allowed_characters(self) -> str:
        allowed = self.inner.get_allowed_characters()
        if self.in_string:
            # At the limit only the closing quote (never mid-escape, where a quote would be an escaped one).
            if self.run >= MAX_STRING and not self.escaped and '"' in allowed:
                return '"'
            return allowed
        if self.last == ",":
            allowed = allowed.replace("}", "").replace("]", "")
        if self.run >= MAX_DIGITS:
            allowed = "".join(ch for ch in allowed if not ch.isdigit())
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
        return None  # the free-text shortcut skips add_character; every token is walked through the parser


class RouterConstraint:
    """prefix_allowed_tokens_fn for generate(). The enforcer takes the first sequence it sees as the prompt."""

    def __init__(self, data: TokenEnforcerTokenizerData, tool_names: list[str]):
        parser = BoundedJson(JsonSchemaParser(router_schema(tool_names), config=PARSER_CONFIG))
        self.enforcer = TokenEnforcer(data, parser)

    def __call__(self, batch_id: int, input_ids) -> list[int]:
        return self.enforcer.get_allowed_tokens(input_ids.tolist()).allowed_tokens
