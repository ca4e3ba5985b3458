"""Where a router prompt's tokens go, counted with a real tokenizer: the whole prompt as the chat template
renders it (system + offered tools + conversation), the system prompt, the tool listing as the template
renders it (the prompt with tools minus the prompt without), the same tools as raw JSON schemas (what a
template that dumps them would cost), the completion.

    PYTHONPATH=trainer .venv/bin/python trainer/bench/prompt_tokens.py --rendered ROWS.jsonl [--base smollm2-135m-instruct]

ROWS.jsonl: rendered rows (`flywheel artifacts get <rendered-test sha> rows.jsonl`). --base: a packaged base
name (converted into the base cache first), a local directory or an HF id."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rendered", required=True, help="JSONL of rendered rows {prompt, completion, tools}")
    ap.add_argument("--base", default="smollm2-135m-instruct")
    args = ap.parse_args()

    from transformers import AutoTokenizer

    from flywheel_trainer.packaged import ensure_converted, is_packaged

    source = str(ensure_converted(args.base)) if is_packaged(args.base) else args.base
    tok = AutoTokenizer.from_pretrained(source)
    count = lambda text: len(tok(text)["input_ids"])  # noqa: E731
    rows = [json.loads(line) for line in Path(args.rendered).read_text().splitlines() if line.strip()]
    parts: dict[str, list[int]] = {
        "prompt": [],
        "system prompt": [],
        "tool listing": [],
        "tools as JSON": [],
        "completion": [],
    }
    for r in rows:
        text = tok.apply_chat_template(r["prompt"], tools=r["tools"], tokenize=False, add_generation_prompt=True)
        bare = tok.apply_chat_template(r["prompt"], tokenize=False, add_generation_prompt=True)
        parts["prompt"].append(count(text))
        parts["system prompt"].append(count(r["prompt"][0]["content"] or ""))
        parts["tool listing"].append(count(text) - count(bare))
        parts["tools as JSON"].append(sum(count(json.dumps(t)) for t in r["tools"]))
        parts["completion"].append(count(r["completion"][0]["content"] or ""))
    print(f"{len(rows)} rows, tokens by {args.base}:")
    for name, xs in parts.items():
        xs = sorted(xs)
        print(f"  {name:14} p50 {statistics.median(xs):7.0f}  p95 {xs[int(len(xs) * 0.95) - 1]:6}  max {xs[-1]:6}")


if __name__ == "__main__":
    main()
