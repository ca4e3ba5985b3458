"""Seconds per routing decision in `serve`, and what each of its decoding measures buys, in one run on the same
requests (so the ratios hold whatever this machine's speed today):

  per-token      greedy under the constraint, one forward pass per answer token (what generate() does)
  + drafts       grammar-forced text drafted and checked by the model in one pass (decode.greedy)
  + lookup       and after it, what followed the answer's last characters in the prompt (prompt lookup)
  + merged       the adapter merged into the float32 weights
  + prefix reuse recent prompts' keys and values reused (serve with --cpu-dtype float32)
  + bf16 copy    answered from a bf16 copy of the merged weights (serve's default on a CPU with native bf16);
                 its answers may differ from float32's where two tokens are nearly tied: "same answers" counts them

on two workloads: `varied`, the rendered rows as they are (each row offers its own slice of tools, as the eval's
test set does), and `agent`, the first row's system prompt and tools with every row's request (an agent that
offers the same tools on every call: the common case behind a gateway). Every measure answers token for token
what per-token answers but the bf16 copy, which the script counts.

    PYTHONPATH=trainer .venv/bin/python trainer/bench/serve_latency.py --adapter DIR --rendered ROWS.jsonl [--n 12]

ROWS.jsonl: rendered rows ({prompt, tools}; `flywheel artifacts get <rendered-test sha> rows.jsonl`). DIR: a
trained adapter (its flywheel.json names the base)."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

MODES = ["per-token", "+ drafts", "+ lookup", "+ merged", "+ prefix reuse", "+ bf16 copy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--rendered", required=True)
    ap.add_argument("--n", type=int, default=12, help="requests per workload (the first N rows)")
    args = ap.parse_args()

    import torch
    from peft import PeftModel

    from flywheel_trainer.constrain import RouterConstraint, tokenizer_data
    from flywheel_trainer.decode import PrefixCache, greedy
    from flywheel_trainer.serve import base_of, bf16_copy, load_model

    model, tok = load_model(base_of(Path(args.adapter)))
    model = PeftModel.from_pretrained(model, args.adapter).eval()
    data = tokenizer_data(tok)
    rows = [json.loads(line) for line in Path(args.rendered).read_text().splitlines() if line.strip()][: args.n]
    agent = [{"prompt": [rows[0]["prompt"][0], *r["prompt"][1:]], "tools": rows[0]["tools"]} for r in rows]
    print(f"{len(rows)} requests per workload; adapter {args.adapter}; {torch.get_num_threads()} threads")
    results: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], list[list[int]]] = {}
    passes: dict[tuple[str, str], list[int]] = {}
    for workload, reqs in (("varied", rows), ("agent", agent)):
        for mode in MODES:
            if mode == "+ merged":
                model.merge_adapter()
            prefixes = PrefixCache() if mode in ("+ prefix reuse", "+ bf16 copy") else None
            runner = bf16_copy(model) if mode == "+ bf16 copy" else model
            times, outs, counts = [], [], []
            for r in [reqs[0], *reqs]:  # the first, again, warms up (and fills the prefix cache)
                text = tok.apply_chat_template(
                    r["prompt"], tools=r["tools"], tokenize=False, add_generation_prompt=True
                )
                ids = tok(text, add_special_tokens=False)["input_ids"]
                t = time.perf_counter()
                with torch.no_grad():
                    done = greedy(
                        runner,
                        tok,
                        ids,
                        160,
                        RouterConstraint(data, r["tools"]),
                        prefixes,
                        "a",
                        drafts=mode != "per-token",
                        lookup=mode not in ("per-token", "+ drafts"),
                    )
                times.append(time.perf_counter() - t)
                outs.append(done.tokens)
                counts.append(done.passes)
            results[workload, mode], answers[workload, mode], passes[workload, mode] = times[1:], outs[1:], counts[1:]
        model.unmerge_adapter()
    print(f"{'workload':8} {'mode':16} {'p50 s':>6} {'mean s':>7} {'x per-token':>11} {'passes':>6}  same answers")
    for workload in ("varied", "agent"):
        base = statistics.mean(results[workload, "per-token"])
        for mode in MODES:
            xs = results[workload, mode]
            same = sum(a == b for a, b in zip(answers[workload, mode], answers[workload, "per-token"]))
            p50, mean, mean_passes = statistics.median(xs), statistics.mean(xs), statistics.mean(passes[workload, mode])
            print(
                f"{workload:8} {mode:16} {p50:6.2f} {mean:7.2f} {base / mean:10.2f}x {mean_passes:6.1f}  {same}/{len(xs)}"
            )


if __name__ == "__main__":
    main()
