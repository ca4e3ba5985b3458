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


def jsonl_objects(path: str | Path, what: str):
    """(line number, object) for each non-blank line of a JSONL file; a missing file or a bad line is a BadJob naming it."""
    path = Path(path)
    if not path.is_file():
        raise BadJob(f"{path}: {what} file not found")
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as err:
                raise BadJob(f"{path}:{lineno}: invalid JSON: {err.msg}") from None
            if not isinstance(raw, dict):
                raise BadJob(f"{path}:{lineno}: expected a JSON object")
            yield lineno, raw


def require_messages(raw: dict[str, Any], field: str, where: str, kind: str = "") -> list[dict[str, Any]]:
    """raw[field] as a non-empty list of chat messages, or a BadJob naming the line and field."""
    value = raw.get(field)
    if not isinstance(value, list) or not value or not all(isinstance(m, dict) and "role" in m for m in value):
        raise BadJob(f"{where}: field '{field}' must be a non-empty list of chat messages{kind}")
    return value


def load_rows(path: str | Path) -> list[Row]:
    """Read a JSONL file of rendered rows. Any malformed line is a BadJob naming file, line and field."""
    path = Path(path)
    rows: list[Row] = []
    for lineno, raw in jsonl_objects(path, "dataset"):
        for field in ("prompt", "completion"):
            require_messages(raw, field, f"{path}:{lineno}")
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


# Keys of the answer object whose values are the router's decision: whether to call (router JSON's "tool",
# hermes' "name") and, when not, which verdict and code. Argument values are copied from the request.
DECISION_KEYS = ("tool", "name", "verdict", "code")


def decision_spans(answer: str) -> list[tuple[int, int]]:
    """Character spans of the answer's decision: for each decision key of its first top-level JSON object, from
    the colon after the key to the end of the value. The colon is included because a tokenizer may fuse it with
    what follows (SmolLM2 writes `":"` before a tool name but `":` before `null`: that token *is* the decision).
    An answer without a JSON object has no spans."""
    start = answer.find("{")
    if start < 0:
        return []
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    i = start + 1
    try:
        while True:
            i = _skip_space(answer, i)
            if answer[i] == "}":
                return spans
            key, i = decoder.raw_decode(answer, i)
            colon = _skip_space(answer, i)
            _, end = decoder.raw_decode(answer, _skip_space(answer, colon + 1))
            if key in DECISION_KEYS:
                spans.append((colon, end))
            i = _skip_space(answer, end)
            if answer[i] == ",":
                i += 1
    except (ValueError, IndexError):
        return spans  # not JSON past this point: the spans found so far


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def encode_row(tokenizer: Any, row: Row, decision_weight: float = 1.0) -> dict[str, list[Any]]:
    """input_ids of prompt+completion; completion_mask is 1 exactly on the tokens after the prompt.

    The prompt is rendered with the generation prompt (as at inference), so the mask starts at the first
    token the model has to produce. Where a template renders the prompt differently alone, the mask starts
    where the two tokenizations diverge, as TRL does. With a decision weight other than 1, loss_weight holds
    it on the completion tokens that overlap the answer's decision spans and 1 elsewhere."""
    full_text = render_text(tokenizer, row, True)
    prompt_ids = tokenizer(render_text(tokenizer, row, False), add_special_tokens=False)["input_ids"]
    weighted = decision_weight != 1
    # Offsets only when weighting: they need a fast tokenizer, which plain masking does not.
    full = tokenizer(full_text, add_special_tokens=False, **({"return_offsets_mapping": True} if weighted else {}))
    full_ids = full["input_ids"]
    start = common_prefix_length(prompt_ids, full_ids)
    out: dict[str, list[Any]] = {"input_ids": full_ids, "completion_mask": [0] * start + [1] * (len(full_ids) - start)}
    if weighted:
        out["loss_weight"] = _loss_weights(full_text, full["offset_mapping"], start, row, decision_weight)
    return out


def _loss_weights(full_text: str, offsets: list[tuple[int, int]], start: int, row: Row, weight: float) -> list[float]:
    answer = row.completion[-1].get("content") or ""
    at = full_text.rfind(answer) if answer else -1
    if at < 0:
        raise BadJob(
            f"row {row.id}: the chat template does not write the answer verbatim, so optim.decisionWeight cannot find its decision"
        )
    spans = [(at + a, at + b) for a, b in decision_spans(answer)]
    return [
        weight if i >= start and any(s < b and a < e for s, e in spans) else 1.0 for i, (a, b) in enumerate(offsets)
    ]


def encode_rows(
    tokenizer: Any,
    rows: list[Row],
    max_length: int,
    source: str,
    decision_weight: float = 1.0,
    token_weighted: bool = False,
) -> list[dict[str, list[Any]]]:
    """Encode every row; rows longer than max_length are an error (never truncated), listing the first few.
    With `token_weighted` (optim.tokenWeightedLoss), each row's loss_weight is scaled by its answer length over the
    rows' mean, so the trainer's per-step mean over answer tokens becomes a sum over a fixed count."""
    encoded = [encode_row(tokenizer, r, decision_weight) for r in rows]
    if token_weighted and encoded:
        mean = sum(sum(e["completion_mask"]) for e in encoded) / len(encoded)
        for e in encoded:
            scale = sum(e["completion_mask"]) / mean
            e["loss_weight"] = [w * scale for w in e.get("loss_weight", [1.0] * len(e["input_ids"]))]
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


def _prompt_length(e: dict[str, list[Any]]) -> int:
    return e["completion_mask"].index(1)


def share_prefixes(encoded: list[dict[str, list[Any]]], max_rows: int, max_length: int) -> list[dict[str, list[Any]]]:
    """Rows whose prompts begin alike, packed so that the shared beginning is computed once (optim.sharedPrefixRows).

    A router's rows are mostly prompt: the system turn with the caller and the offered tools (~520 tokens) before a
    short request and answer (~60). Rows with the same caller and tools differ only after that, so a group of them
    is one sequence, the shared prefix then each row's own rest, and the attention mask lets each rest see the
    prefix and itself only (`tree_attention_mask`): each answer's loss is what it would be on its own row.

    Rows are taken in token order (so alike rows are neighbours) and a row joins the group before it while the
    group stays within `max_rows` rows and `max_length` tokens and the shared prefix is at least half of every
    member's prompt; otherwise it starts a new group (alone, it is a group of one). The prefix stops one token short
    of the shortest member's prompt, so each rest starts with a prompt token, whose label is never scored.

    Each packed example has `input_ids`, `completion_mask` (and `loss_weight` when the rows have it) of the packed
    sequence, `position_ids` (each rest continues from the prefix's end) and `segments`: [prefix length, rest
    lengths...]."""
    order = sorted(range(len(encoded)), key=lambda i: encoded[i]["input_ids"])
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = longest = lengths = 0  # lengths: the members' whole rows, summed
    for i in order:
        e, prompt = encoded[i], _prompt_length(encoded[i])
        if members:
            lcp = min(shared, common_prefix_length(encoded[members[0]]["input_ids"], e["input_ids"]), prompt - 1)
            width = max(longest, prompt)
            total = lengths + len(e["input_ids"]) - len(members) * lcp  # the prefix once, then every rest
            if len(members) < max_rows and 2 * lcp >= width and total <= max_length:
                members.append(i)
                shared, longest, lengths = lcp, width, lengths + len(e["input_ids"])
                continue
            groups.append((members, shared))
        members, shared, longest, lengths = [i], prompt - 1, prompt, len(e["input_ids"])
    if members:
        groups.append((members, shared))
    return [_pack(encoded, m, s) for m, s in groups]


def _pack(encoded: list[dict[str, list[Any]]], members: list[int], shared: int) -> dict[str, list[Any]]:
    keys = [k for k in ("input_ids", "completion_mask", "loss_weight") if k in encoded[members[0]]]
    out: dict[str, list[Any]] = {k: list(encoded[members[0]][k][:shared]) for k in keys}
    out["position_ids"] = list(range(shared))
    out["segments"] = [shared]
    for m in members:
        rest = len(encoded[m]["input_ids"]) - shared
        for k in keys:
            out[k].extend(encoded[m][k][shared:])
        out["position_ids"].extend(range(shared, shared + rest))
        out["segments"].append(rest)
    return out


def tree_attention_mask(segments: list[int], length: int):
    """Boolean (length x length) mask, True where a query position may attend: the prefix (segments[0] tokens) is
    causal, each rest after it sees the prefix and its own earlier tokens. Positions past the segments (padding)
    see only themselves, so no row of the mask is empty."""
    import torch

    mask = torch.zeros(length, length, dtype=torch.bool)
    prefix = segments[0]
    mask[:prefix, :prefix] = torch.ones(prefix, prefix, dtype=torch.bool).tril()
    at = prefix
    for rest in segments[1:]:
        mask[at : at + rest, :prefix] = True
        mask[at : at + rest, at : at + rest] = torch.ones(rest, rest, dtype=torch.bool).tril()
        at += rest
    for i in range(at, length):
        mask[i, i] = True
    return mask
