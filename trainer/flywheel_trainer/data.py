"""Rendered rows in, token ids with a completion mask out.

Rows are TRL conversational prompt-completion records with a `tools` column (what `flywheel`'s render stage
writes). We tokenize here rather than inside TRL so that a row longer than max length is an error naming
the row (TRL would truncate it silently) and so the masking can be tested on its own."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BadJob


@dataclass
class Row:
    id: str
    prompt: list[dict[str, Any]]
    completion: list[dict[str, Any]]
    tools: list[dict[str, Any]]


def load_rows(path: str | Path) -> list[Row]:
    """Read a JSONL file of rendered rows. Any malformed line is a BadJob naming file, line and field."""
    path = Path(path)
    if not path.is_file():
        raise BadJob(f"{path}: dataset file not found")
    rows: list[Row] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as err:
                raise BadJob(f"{path}:{lineno}: invalid JSON: {err.msg}") from None
            for field in ("prompt", "completion"):
                value = raw.get(field)
                if not isinstance(value, list) or not value or not all(isinstance(m, dict) and "role" in m for m in value):
                    raise BadJob(f"{path}:{lineno}: field '{field}' must be a non-empty list of chat messages")
            tools = raw.get("tools", [])
            if not isinstance(tools, list):
                raise BadJob(f"{path}:{lineno}: field 'tools' must be a list of OpenAI function tools")
            rows.append(Row(str(raw.get("id", f"line-{lineno}")), raw["prompt"], raw["completion"], tools))
    if not rows:
        raise BadJob(f"{path}: dataset is empty")
    return rows


def render_text(tokenizer: Any, row: Row, with_completion: bool) -> str:
    messages = row.prompt + row.completion if with_completion else row.prompt
    return tokenizer.apply_chat_template(
        messages, tools=row.tools or None, tokenize=False, add_generation_prompt=not with_completion
    )


def common_prefix_length(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def encode_row(tokenizer: Any, row: Row) -> dict[str, list[int]]:
    """input_ids of prompt+completion; completion_mask is 1 exactly on the tokens after the prompt.

    The prompt is rendered with the generation prompt (as at inference), so the mask starts at the first
    token the model has to produce. Where a template renders the prompt differently alone, the mask starts
    where the two tokenizations diverge, as TRL does."""
    prompt_ids = tokenizer(render_text(tokenizer, row, False), add_special_tokens=False)["input_ids"]
    full_ids = tokenizer(render_text(tokenizer, row, True), add_special_tokens=False)["input_ids"]
    start = common_prefix_length(prompt_ids, full_ids)
    return {"input_ids": full_ids, "completion_mask": [0] * start + [1] * (len(full_ids) - start)}


def encode_rows(tokenizer: Any, rows: list[Row], max_length: int, source: str) -> list[dict[str, list[int]]]:
    """Encode every row; rows longer than max_length are an error (never truncated), listing the first few."""
    encoded = [encode_row(tokenizer, r) for r in rows]
    too_long = [(r.id, len(e["input_ids"])) for r, e in zip(rows, encoded) if len(e["input_ids"]) > max_length]
    if too_long:
        shown = ", ".join(f"{rid} ({n} tokens)" for rid, n in too_long[:5])
        more = f" and {len(too_long) - 5} more" if len(too_long) > 5 else ""
        raise BadJob(
            f"{len(too_long)} row(s) longer than optim.maxLength={max_length} in {source}: {shown}{more}; "
            "raise optim.maxLength or offer fewer tools per row"
        )
    empty = [r.id for r, e in zip(rows, encoded) if sum(e["completion_mask"]) == 0]
    if empty:
        raise BadJob(f"{source}: row {empty[0]} has an empty completion after templating")
    return encoded


def corpus_texts(rows: list[Row]) -> list[str]:
    """Texts a tokenizer is trained on: every message and every tool schema, as the template shows them."""
    out: list[str] = []
    for r in rows:
        out.extend(m.get("content") or "" for m in r.prompt + r.completion)
        out.extend(json.dumps(t, ensure_ascii=False) for t in r.tools)
    return out
