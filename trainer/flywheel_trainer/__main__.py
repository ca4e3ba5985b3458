"""python -m flywheel_trainer validate --job job.json [--normalize]

Exit codes: 0 valid (with --normalize the job with defaults filled is printed as canonical JSON),
2 invalid job (every problem printed with its field path)."""
from __future__ import annotations

import argparse
import json
import sys

from .job import JobError, load_job


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flywheel_trainer", description="mcp-flywheel trainer")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate a train job against trainer/job.schema.json")
    v.add_argument("--job", required=True, help="path of the job JSON")
    v.add_argument("--normalize", action="store_true", help="print the job with defaults filled")
    args = parser.parse_args(argv)
    try:
        job = load_job(args.job)
    except JobError as err:
        print(err, file=sys.stderr)
        return 2
    if args.normalize:
        print(json.dumps(job, sort_keys=True, separators=(",", ":")))
    else:
        print(f"{args.job}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
