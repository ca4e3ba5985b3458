"""What a training knob costs a step, in one run on the same rows (so the ratio holds whatever this machine's speed
today): the real trainer (`python -m flywheel_trainer train`) on a job file as it is, and again with each
--variant's keys merged into it, for --steps steps each, the runs interleaved --reps times (a shared CPU's speed
drifts between minutes; interleaving spreads that drift over every variant alike).

Each run's training tokens/s is read from its progress lines: the median of its logged windows after the first
(the first holds warm-up). Evaluation is cut to one row and checkpoints past the last step, so the windows time
training steps only.

    PYTHONPATH=trainer .venv/bin/python trainer/bench/job_variants.py --job JOB.json
        --variant 'no-dropout={"lora":{"dropout":0}}' [--variant NAME=JSON ...] [--steps 40] [--reps 2]

JOB.json: any job the trainer takes (trainer/job.schema.json), e.g. the `main.job.json` the quality benchmark
writes under its --out; its rows, base and settings are the baseline. The last line:
`job-variants: baseline=<tokens/s> <name>=<tokens/s> … ratio_<name>=<x> …` (a variant's tokens/s over the
baseline's)."""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`base` with `override`'s keys set, one level of sections deep (lora, optim: their other keys stay)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        out[key] = {**out[key], **value} if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def timed_job(job: dict[str, Any], steps: int, workdir: Path) -> tuple[float, float]:
    """(median tokens/s of the windows after the first, wall seconds) of the trainer on `job` for `steps` steps."""
    run = merged(job, {"optim": {"maxSteps": steps, "maxEvalRows": 1, "earlyStoppingPatience": 0}})
    run.update(checkpointEvery=steps + 1, logEvery=max(1, steps // 5), outputDir=str(workdir), resumeFrom=None)
    job_file = workdir.with_suffix(".json")
    job_file.write_text(json.dumps(run))
    trainer_root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(trainer_root), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flywheel_trainer", "train", "--job", str(job_file)],
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the trainer failed on {job_file} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    rates = [
        e["tokens_per_s"]
        for e in map(json.loads, done.stdout.splitlines())
        if e.get("event") == "step" and e.get("tokens_per_s")
    ]
    if len(rates) < 2:
        raise SystemExit(f"{job_file}: fewer than two logged windows; raise --steps")
    return statistics.median(rates[1:]), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--job", required=True, help="a trainer job JSON: the baseline")
    ap.add_argument("--variant", action="append", default=[], help="NAME=JSON: keys merged into the job (repeatable)")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()

    job = json.loads(Path(args.job).read_text())
    variants: dict[str, dict[str, Any]] = {"baseline": {}}
    for spec in args.variant:
        name, sep, text = spec.partition("=")
        if not sep or not name or name in variants:
            raise SystemExit(f"--variant {spec!r}: expected a new NAME=JSON")
        try:
            variants[name] = json.loads(text)
        except json.JSONDecodeError as e:
            raise SystemExit(f"--variant {name}: not JSON ({e})") from e
        if not isinstance(variants[name], dict):
            raise SystemExit(f"--variant {name}: expected a JSON object of job keys, got {text}")
    if args.steps < 2 or args.reps < 1:
        raise SystemExit("--steps must be at least 2 (two logged windows) and --reps at least 1")
    rates: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="job-variants-") as tmp:
        for rep in range(args.reps):
            for name, override in variants.items():
                rate, wall = timed_job(merged(job, override), args.steps, Path(tmp) / f"{name}-{rep}")
                rates[name].append(rate)
                print(f"rep {rep + 1} {name:16} {rate:8.1f} tokens/s  {wall:6.1f} s wall", flush=True)
    base = statistics.median(rates["baseline"])
    summary = {name: statistics.median(xs) for name, xs in rates.items()}
    print(f"{'variant':16} {'tokens/s':>9} {'x baseline':>10}")
    for name, rate in summary.items():
        print(f"{name:16} {rate:9.1f} {rate / base:9.2f}x")
    ratios = " ".join(f"ratio_{name}={rate / base:.3f}" for name, rate in summary.items() if name != "baseline")
    print(f"job-variants: {' '.join(f'{name}={rate:.1f}' for name, rate in summary.items())} {ratios}")


if __name__ == "__main__":
    main()
