"""Where a training step's time goes on this machine, and how close it comes to the machine's own limit.

    PYTHONPATH=trainer .venv/bin/python trainer/bench/cpu_step.py --job JOB.json [--steps 8] [--warmup 2]
        [--attn sdpa|eager]

JOB.json: any SFT job the trainer takes (e.g. the `*.job.json` the quality or phrasing benchmark writes under its
--out). The real trainer is built from it (`build_trainer`: its model, rows, collator, loss and optimizer), and
--steps optimizer steps are run by hand after --warmup, each split into forward (with the loss), backward and
optimizer, timed with the wall clock; one more step runs under torch's FLOP counter (every matmul, attention and
head FLOP the step did, forward and backward) and one under the profiler (the ops the time went to).

The limit is measured here, in the same run: the best of several dense matmuls (2048 x 2048 x 2048, and the
shapes of this model's projections) in bfloat16 and float32 with torch's threads; a shape that would take more
than a few seconds at the rate its smaller ones reached is left out (emulated bf16, on a CPU without it, is that
slow). A step's share of the peak is its FLOPs per second over the bf16 matmul peak (or the float32 one when the
job trains in float32).

Last line: `cpu-step: tokens_per_s=… step_s=… forward_s=… backward_s=… optimizer_s=… step_gflops=…
achieved_gflops_s=… peak_bf16_gflops_s=… peak_fp32_gflops_s=… share_of_peak=…`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def matmul_peak(dtype, shapes: list[tuple[int, int, int]], reps: int = 5, budget_s: float = 5.0) -> float:
    """The best GFLOP/s of dense matmuls of these (m, k, n) shapes in `dtype`: what this CPU's kernels reach.

    Shapes run smallest first, and one whose product would take over `budget_s` at the best rate seen so far is
    skipped: a CPU without native bf16 (no avx512_bf16 or amx_bf16) emulates it some hundred times slower than
    float32, and a 2048-cube product alone would then take about a minute."""
    import torch

    best = 0.0
    for m, k, n in sorted(shapes, key=lambda s: s[0] * s[1] * s[2]):
        flop = 2 * m * k * n
        if best and flop / (best * 1e9) > budget_s:
            continue
        a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
        torch.matmul(a, b)  # first call: kernel selection and page faults
        for _ in range(reps):
            t = time.perf_counter()
            torch.matmul(a, b)
            best = max(best, flop / (time.perf_counter() - t) / 1e9)
    return best


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--job", required=True)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--top", type=int, default=12, help="ops listed from the profiler")
    p.add_argument("--attn", choices=["sdpa", "eager"], help="switch the model's attention implementation first")
    args = p.parse_args()

    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from flywheel_trainer.job import validate_job
    from flywheel_trainer.train import build_trainer, quiet_libraries

    quiet_libraries()
    raw = json.loads(Path(args.job).read_text())
    with tempfile.TemporaryDirectory(prefix="cpu-step-") as tmp:
        raw = {**raw, "outputDir": tmp, "resumeFrom": None}
        job = validate_job(raw, args.job)
        trainer, _ = build_trainer(job)
        model = trainer.model
        if args.attn:
            model.set_attn_implementation(args.attn)
        model.train()
        optimizer = trainer.create_optimizer()
        loader = trainer.get_train_dataloader()

        def forever():
            while True:  # a small dataset is gone round again
                yield from loader

        batches = forever()
        dtype = next(p for p in model.parameters() if not p.requires_grad).dtype

        def one(timed: bool = True):
            inputs = trainer._prepare_inputs(next(batches))
            mask = inputs.get("attention_mask")
            # Padding is not work done; a tree mask (shared prefixes) has none, so every id counts.
            tokens = int(mask.sum()) if mask is not None and mask.dim() == 2 else int(inputs["input_ids"].numel())
            t0 = time.perf_counter()
            loss = trainer.compute_loss(model, inputs)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            t3 = time.perf_counter()
            return {"tokens": tokens, "forward": t1 - t0, "backward": t2 - t1, "optimizer": t3 - t2}

        for _ in range(args.warmup):
            one()
        steps = [one() for _ in range(args.steps)]
        counter = FlopCounterMode(display=False)
        with counter:
            counted = one()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            one()

    # Matmul shapes of this model: a step's projections are (tokens x hidden) by (hidden x out).
    cfg = model.config if hasattr(model, "config") else None
    hidden = getattr(cfg, "hidden_size", 2048)
    inter = getattr(cfg, "intermediate_size", 2048)
    tokens = int(statistics.median(s["tokens"] for s in steps))
    shapes = [(2048, 2048, 2048), (max(tokens, 64), hidden, inter), (max(tokens, 64), inter, hidden)]
    peak_bf16 = matmul_peak(torch.bfloat16, shapes)
    peak_fp32 = matmul_peak(torch.float32, shapes)

    med = {k: statistics.median(s[k] for s in steps) for k in ("forward", "backward", "optimizer")}
    step_s = sum(med.values())
    flops = counter.get_total_flops() * tokens / max(counted["tokens"], 1)  # scaled to the median step's tokens
    achieved = flops / step_s / 1e9
    peak = peak_bf16 if dtype == torch.bfloat16 else peak_fp32
    total_self = sum(e.self_cpu_time_total for e in prof.key_averages()) or 1
    print(f"job {args.job}: base weights {str(dtype).replace('torch.', '')}, {torch.get_num_threads()} threads")
    print(f"{'op':<40} {'share of step':>13}")
    for e in sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[: args.top]:
        print(f"{e.key[:40]:<40} {e.self_cpu_time_total / total_self:>12.1%}")
    print(
        "cpu-step: "
        + " ".join(
            f"{k}={v}"
            for k, v in {
                "tokens_per_s": round(tokens / step_s, 1),
                "tokens_per_step": tokens,
                "step_s": round(step_s, 3),
                "forward_s": round(med["forward"], 3),
                "backward_s": round(med["backward"], 3),
                "optimizer_s": round(med["optimizer"], 3),
                "step_gflops": round(flops / 1e9, 1),
                "achieved_gflops_s": round(achieved, 1),
                "peak_bf16_gflops_s": round(peak_bf16, 1),
                "peak_fp32_gflops_s": round(peak_fp32, 1),
                "share_of_peak": f"{achieved / peak:.6f}",
            }.items()
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
