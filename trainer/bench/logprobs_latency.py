"""Seconds per routing decision when the caller asks for logprobs, as the gateway does to read the router's
confidence, in one run on the same requests (so the ratios hold whatever this machine's speed today):

  generate()         transformers' generate() under the constraint's logits processor, scores kept: one forward
                     pass per answer token, the allowed set computed at every step, no prompt reuse
  greedy + logprobs  decode.greedy scoring each answer token as it goes (what serve answers with)
  greedy             decode.greedy without logprobs (a caller that does not ask)

through one Engine as `serve` runs it (its dtype, merged adapter), priors off. Each request meets an empty prefix
cache in every mode: otherwise the mode that runs second reuses the whole prompt the first one left. "same" counts
the requests whose answer tokens match generate()'s; "gap" is the largest difference between their logprobs
(float32: arithmetic order; bf16: drafted tokens checked in one pass round differently from one token a pass).

    PYTHONPATH=trainer .venv/bin/python trainer/bench/logprobs_latency.py --adapter DIR --rendered ROWS.jsonl [--n 12]

ROWS.jsonl: rendered rows ({prompt, tools}). DIR: a trained adapter (its flywheel.json names the base). The last
line: `logprobs: generate=S greedy_logprobs=S greedy=S speedup=X same=K/N gap=G` (seconds: p50 per decision)."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

MODES = ["generate()", "greedy + logprobs", "greedy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--rendered", required=True)
    ap.add_argument("--n", type=int, default=12, help="requests (the first N rows)")
    ap.add_argument("--cpu-dtype", default="auto", choices=["auto", "float32", "bfloat16"], help="as serve's")
    args = ap.parse_args()

    import torch
    from transformers import LogitsProcessorList

    from flywheel_trainer.constrain import RouterLogitsProcessor
    from flywheel_trainer.serve import Engine, chat_params, prompt_ids, scored

    engine = Engine(cpu_dtype=args.cpu_dtype)
    engine.load_adapter("a", args.adapter)
    base = engine.adapters["a"].base
    rows = [json.loads(line) for line in Path(args.rendered).read_text().splitlines() if line.strip()][: args.n]
    print(f"{len(rows)} requests; adapter {args.adapter}; {torch.get_num_threads()} threads")

    def request(row: dict, logprobs: bool) -> dict:
        off = {"retrieval": False, "copy": False, "fill": False}
        return {"model": "a", "messages": row["prompt"], "tools": row["tools"], "max_tokens": 160, **off} | (
            {"logprobs": True} if logprobs else {}
        )

    def by_generate(row: dict) -> tuple[list[int], list[float]]:
        """What serve did for a logprobs request before decode.greedy scored its tokens."""
        p = chat_params(request(row, True), "base")
        ids = prompt_ids(base, p)
        nameable = p.tools + [t for t in engine.adapters["a"].tools if t["function"]["name"] not in p.names]
        constraint = engine._constraint(base, nameable)
        context, model = engine._runner(base, "a")
        with context, torch.no_grad():
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=160,
                do_sample=False,
                logits_processor=LogitsProcessorList([RouterLogitsProcessor(constraint)]),
                eos_token_id=base.tokenizer.eos_token_id,
                pad_token_id=base.tokenizer.pad_token_id or base.tokenizer.eos_token_id,
                output_scores=True,
                return_dict_in_generate=True,
            )
        new = out.sequences[0, ids.shape[1] :].tolist()
        return new, [lp for lp, _ in scored(new, out.scores, 0)]

    times: dict[str, list[float]] = {m: [] for m in MODES}
    same, gap = 0, 0.0
    for i, row in enumerate([rows[0], *rows]):  # the first, again, warms up
        seen = {}
        for mode in MODES:
            t = time.perf_counter()
            if mode == "generate()":
                seen[mode] = by_generate(row)
            else:
                base.prefixes.clear()  # as generate() does, each mode pays the prompt's prefill
                engine.chat(request(row, mode == "greedy + logprobs"))
                d = engine.last_decode
                seen[mode] = (d.tokens, [lp for lp, _ in d.scores or []])
            if i:
                times[mode].append(time.perf_counter() - t)
        (ref, ref_lp), (got, got_lp) = seen["generate()"], seen["greedy + logprobs"]
        if i:
            same += ref == got
            gap = max(gap, *(abs(a - b) for a, b in zip(ref_lp, got_lp)))
    p50 = {m: statistics.median(times[m]) for m in MODES}
    for m in MODES:
        print(f"{m:18} p50 {p50[m]:6.2f} s  mean {statistics.mean(times[m]):6.2f} s")
    speedup = p50["generate()"] / p50["greedy + logprobs"]
    print(
        f"logprobs: generate={p50['generate()']:.2f} greedy_logprobs={p50['greedy + logprobs']:.2f} "
        f"greedy={p50['greedy']:.2f} speedup={speedup:.2f} same={same}/{len(rows)} gap={gap:.1e}"
    )


if __name__ == "__main__":
    main()
