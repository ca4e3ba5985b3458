"""What training rows that share their prompt's beginning as one sequence (optim.sharedPrefixRows) buys, in one run
on the same rows (so the ratio holds whatever this machine's speed today):

  one row a pass     each row forward and backward on its own (the trainer without sharedPrefixRows)
  shared prefixes    rows grouped by data.share_prefixes (up to --max-rows a group), each group one forward and
                     backward under the tree mask

The whole file is grouped as training groups it; --groups of the groups (a seeded sample) are timed both ways, with
the trainer's own collators and loss (build_trainer). It reports rows/s, tokens computed per row and the loss over
all the rows (the same both ways: each answer scores what it scores alone, exactly in float32 and up to rounding
in bf16). No optimizer step is taken, so the two passes see the same weights.

    PYTHONPATH=trainer .venv/bin/python trainer/bench/shared_prefix.py --rendered TRAIN.jsonl
        [--base smollm2-135m-instruct] [--groups 12] [--max-rows 8] [--top-layers 10 (0: every layer)] [--precision auto]

TRAIN.jsonl: rendered rows (`flywheel artifacts get <rendered-train sha> rows.jsonl`). The last line:
`shared-prefix: rows=<n> groups=<g> one_row_rows_per_s=<x> shared_rows_per_s=<x> ratio=<x>`."""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path


def unpacked(group: dict) -> list[dict]:
    """The rows a packed group holds, each as the trainer would see it on its own: the prefix then its rest."""
    prefix = group["segments"][0]
    rows, at = [], prefix
    for rest in group["segments"][1:]:
        rows.append({key: group[key][:prefix] + group[key][at : at + rest] for key in ("input_ids", "labels")})
        at += rest
    return rows


def timed_passes(trainer, examples: list[dict], collate) -> tuple[float, float, int]:
    """Forward and backward over each example: (seconds, summed answer NLL, answer tokens)."""
    import torch

    model = trainer.model
    model.eval()
    model.training = True  # compute_loss's training path, without dropout so that both ways score the same
    total_nll, total_tokens = 0.0, 0
    start = time.perf_counter()
    for ex in examples:
        batch = collate([dict(ex)])
        tokens = int((torch.as_tensor(batch["labels"])[:, 1:] != -100).sum())
        loss = trainer.compute_loss(model, dict(batch), num_items_in_batch=tokens)
        loss.backward()
        total_nll += loss.item() * tokens
        total_tokens += tokens
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - start, total_nll, total_tokens


def main() -> None:
    from flywheel_trainer.job import validate_job
    from flywheel_trainer.train import build_trainer, quiet_libraries

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rendered", required=True)
    ap.add_argument("--base", default="smollm2-135m-instruct")
    ap.add_argument("--groups", type=int, default=12)
    ap.add_argument("--max-rows", type=int, default=8)
    ap.add_argument("--top-layers", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--precision", default="auto", help="the job's precision (auto: bf16 weights on a CPU with native bf16)"
    )
    args = ap.parse_args()
    quiet_libraries()

    work = Path(tempfile.mkdtemp(prefix="shared-prefix-"))
    lora = {"topLayers": args.top_layers} if args.top_layers else {}
    job = validate_job(
        {
            "version": 1,
            "baseModel": args.base,
            "data": {"train": args.rendered, "val": args.rendered},
            "outputDir": str(work / "out"),
            "lora": lora,
            "precision": args.precision,
            "optim": {
                "epochs": 1,
                "maxSteps": 1,
                "effectiveBatchSize": 1,
                "microBatchSize": 1,
                "maxEvalRows": 1,
                "sharedPrefixRows": args.max_rows,
            },
        }
    )
    trainer, _ = build_trainer(job)
    everything = list(trainer.train_dataset)  # the whole file, grouped as training groups it
    groups = random.Random(args.seed).sample(everything, min(args.groups, len(everything)))
    rows = [row for g in groups for row in unpacked(g)]
    n = len(rows)
    tree_collate = trainer.get_train_dataloader().collate_fn  # the collator the trainer trains with
    plain_collate = trainer.data_collator  # TRL's, as a job without sharedPrefixRows trains

    results = {}
    for name, examples, collate in (("one row a pass", rows, plain_collate), ("shared prefixes", groups, tree_collate)):
        timed_passes(trainer, examples[:1], collate)  # warm-up: first-call allocations
        seconds, nll, tokens = timed_passes(trainer, examples, collate)
        computed = sum(len(e["input_ids"]) for e in examples)
        results[name] = {
            "passes": len(examples),
            "seconds": seconds,
            "rows_per_s": n / seconds,
            "tokens_per_row": computed / n,
            "loss": nll / max(tokens, 1),
        }

    print(
        f"the file: {sum(len(g['segments']) - 1 for g in everything)} rows in {len(everything)} groups; "
        f"timed: {len(groups)} groups (a seeded sample), their {n} rows"
    )
    print(f"{'mode':<16} {'passes':>6} {'seconds':>8} {'rows/s':>7} {'tokens/row':>10} {'loss':>8}")
    for name, r in results.items():
        print(
            f"{name:<16} {r['passes']:>6} {r['seconds']:>8.1f} {r['rows_per_s']:>7.3f} {r['tokens_per_row']:>10.0f} {r['loss']:>8.4f}"
        )
    one, shared = results["one row a pass"], results["shared prefixes"]
    print(
        f"shared-prefix: rows={n} groups={shared['passes']} one_row_rows_per_s={one['rows_per_s']:.3f} "
        f"shared_rows_per_s={shared['rows_per_s']:.3f} ratio={shared['rows_per_s'] / one['rows_per_s']:.2f}"
    )


if __name__ == "__main__":
    main()
