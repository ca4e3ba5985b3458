"""python -m flywheel_trainer <command>

  validate --job FILE [--normalize]   check a job against trainer/job.schema.json
  train --job FILE [--resume DIR]     SFT; progress as JSON lines on stdout (resources.gpus > 1: under
                                      torchrun, one process per GPU)
  convert-base --name NAME [--out DIR] convert a packaged base (e.g. smollm2-135m-instruct) to safetensors;
                                      prints {"dir", "name", "ggufSha256"}
  serve [--base M] [--adapter NAME=DIR ...] [--port N]
                                      OpenAI-compatible server with runtime LoRA loading; hosts
                                      each adapter's own base; may start empty

Exit codes: 0 ok, 2 bad job or bad arguments (retrying cannot help), 1 anything else."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import traceback

from .errors import EXIT_BAD_JOB, BadJob
from .examples import DEFAULT_WEIGHT
from .fill import DEFAULT_FILL_WEIGHT
from .job import load_job
from .launch import is_main_process
from .priors import DEFAULT_COPY_WEIGHT


def _validate(args) -> int:
    job = load_job(args.job)
    print(json.dumps(job.to_dict(), sort_keys=True, separators=(",", ":")) if args.normalize else f"{args.job}: ok")
    return 0


def _die_with_parent() -> None:
    """When the process that spawned us dies (SIGKILL, OOM), stop too: a trainer nobody reads would keep
    the GPU busy while the retry starts elsewhere, and a server nobody stops keeps its port and memory.
    Polls the parent pid; kills our whole group."""
    import os
    import signal
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1)
            if os.getppid() != parent:
                os.killpg(os.getpgrp(), signal.SIGKILL) if os.getpgrp() == os.getpid() else os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _train(args) -> int:
    from .progress import Progress

    if os.environ.get("FLYWHEEL_DIE_WITH_PARENT") == "1":
        _die_with_parent()
    try:
        job = load_job(args.job)
        if args.resume:
            job = dataclasses.replace(job, resumeFrom=args.resume)
        from .launch import launch, needs_launch

        if needs_launch(job):
            return launch(args.job, job, args.resume)
        from .train import run_training

        run_training(job)
        return 0
    except BadJob as err:
        if is_main_process():  # under torchrun, one error line for the job, not one per rank
            Progress(None).emit("error", kind="bad_job", message=str(err))
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_JOB
    except Exception as err:  # noqa: BLE001 - reported, then exit 1 (retryable)
        traceback.print_exc(file=sys.stderr)
        if is_main_process():
            Progress(None).emit("error", kind="failed", message=f"{type(err).__name__}: {err}")
        return 1


def _serve(args) -> int:
    from .serve import serve

    # Started through core/train/serve-process.ts (the evaluate stage, benches, tests): a server whose starter is gone
    # has nobody to stop it.
    if os.environ.get("FLYWHEEL_DIE_WITH_PARENT") == "1":
        _die_with_parent()

    adapters = {}
    for spec in args.adapter:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise BadJob(f"--adapter {spec!r}: expected NAME=DIR")
        adapters[name] = path
    from pathlib import Path

    from .access import Access

    env = os.environ
    admin = env.get(args.admin_token_env) or None
    keys = tuple(k.strip() for k in (env.get(args.api_key_env, "") if args.api_key_env else "").split(",") if k.strip())
    if args.api_key_env and not keys:
        raise BadJob(
            f"--api-key-env {args.api_key_env}: the variable is not set (or empty) in the server's environment"
        )
    access = Access(admin_token=admin, api_keys=keys, adapter_dir=Path(args.adapter_dir) if args.adapter_dir else None)
    serve(
        args.base,
        adapters,
        host=args.host,
        port=args.port,
        served_name=args.served_name,
        access=access,
        cpu_dtype=args.cpu_dtype,
        retrieval_weight=args.retrieval_weight,
        copy_weight=args.copy_weight,
        fill_weight=args.fill_weight,
    )
    return 0


def _convert_base(args) -> int:
    from pathlib import Path

    from .packaged import PACKAGED, ensure_converted

    if args.name not in PACKAGED:
        raise BadJob(f"--name {args.name}: not a packaged base (packaged: {', '.join(sorted(PACKAGED))})")
    out = ensure_converted(args.name, Path(args.out) if args.out else None)
    print(json.dumps({"dir": str(out.resolve()), "name": args.name, "ggufSha256": PACKAGED[args.name].sha256}))
    return 0


def _weight(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: a number from 0 to 1 is required")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flywheel_trainer", description="mcp-flywheel trainer")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate a train job against trainer/job.schema.json")
    v.add_argument("--job", required=True, help="path of the job JSON")
    v.add_argument("--normalize", action="store_true", help="print the job with defaults filled")
    t = sub.add_parser("train", help="run a train job; progress as JSON lines on stdout")
    t.add_argument("--job", required=True, help="path of the job JSON")
    t.add_argument("--resume", help="checkpoint directory to continue from (overrides the job's resumeFrom)")
    s = sub.add_parser(
        "serve",
        help="OpenAI-compatible /v1/chat/completions with runtime LoRA adapters on one or several bases",
        description="Each adapter runs on the base it was trained on, loaded beside the others when it differs "
        "(listed as base-<12 hex>; an adapter's `parent` in /v1/models names its base). With neither --base nor "
        "--adapter the server starts empty and adapters are loaded through POST /v1/load_lora_adapter.",
    )
    s.add_argument(
        "--base",
        help="base model served as --served-name: HF id or directory; omitted: the first "
        "adapter's base, or none at all (an empty server)",
    )
    s.add_argument("--adapter", action="append", default=[], help="NAME=DIR, repeatable; loaded at start")
    s.add_argument("--served-name", default="base", help="model name that selects the --base model without adapter")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument(
        "--cpu-dtype",
        choices=["auto", "float32", "bfloat16"],
        default=os.environ.get("FLYWHEEL_SERVE_CPU_DTYPE", "auto"),
        help="on a CPU, answer from bf16 copies of the weights or from the float32 weights; auto: bf16 where the CPU "
        "has native bf16 (avx512_bf16, amx_bf16), about twice as fast there (default: $FLYWHEEL_SERVE_CPU_DTYPE or auto)",
    )
    s.add_argument(
        "--retrieval-weight",
        type=_weight,
        default=os.environ.get("FLYWHEEL_SERVE_RETRIEVAL_WEIGHT", str(DEFAULT_WEIGHT)),
        help="how much an adapter's nearest training requests sway its decision (λ at similarity 1, 0 to 1; "
        "0 turns the retrieval prior off; default: $FLYWHEEL_SERVE_RETRIEVAL_WEIGHT or %(default)s)",
    )
    s.add_argument(
        "--copy-weight",
        type=_weight,
        default=os.environ.get("FLYWHEEL_SERVE_COPY_WEIGHT", str(DEFAULT_COPY_WEIGHT)),
        help="mid-word in an argument value, how much the rest of the request's word it began sways the next token "
        "(0 to 1; 0 turns the copy prior off; default: $FLYWHEEL_SERVE_COPY_WEIGHT or %(default)s)",
    )
    s.add_argument(
        "--fill-weight",
        type=_weight,
        default=os.environ.get("FLYWHEEL_SERVE_FILL_WEIGHT", str(DEFAULT_FILL_WEIGHT)),
        help="where a call's arguments would close, how much an optional value the request states (an email, an "
        "enum's value) sways writing it (0 to 1; 0 turns the fill prior off; default: $FLYWHEEL_SERVE_FILL_WEIGHT or %(default)s)",
    )
    s.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed on stdout)")
    s.add_argument(
        "--adapter-dir",
        help="runtime loads may only name adapters inside this directory ('..' and symlinks out refused)",
    )
    s.add_argument(
        "--admin-token-env",
        default="FLYWHEEL_SERVE_ADMIN_TOKEN",
        help="environment variable holding the admin token that load/unload need (unset: no token, loopback only)",
    )
    s.add_argument(
        "--api-key-env",
        help="environment variable holding the inference key(s), comma-separated (two at once while rotating)",
    )
    c = sub.add_parser("convert-base", help="convert a packaged base model (GGUF inside a pip package) to safetensors")
    c.add_argument("--name", required=True, help="packaged base name, e.g. smollm2-135m-instruct")
    c.add_argument(
        "--out", help="directory to write (default: the base cache, $FLYWHEEL_BASE_CACHE or .flywheel/bases)"
    )
    args = parser.parse_args(argv)
    try:
        return {"validate": _validate, "train": _train, "serve": _serve, "convert-base": _convert_base}[args.command](
            args
        )
    except BadJob as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_JOB


if __name__ == "__main__":
    sys.exit(main())
