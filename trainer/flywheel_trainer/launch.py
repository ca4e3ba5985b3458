"""Data-parallel training: `train` on a job with resources.gpus > 1 starts torchrun, one process per GPU.

The launching process stays the trainer the GPU worker sees: it checks the job first (so a bad job still exits 2
before any process starts), keeps watching its parent, relays rank 0's progress lines, and exits as a single
process would: 2 when a rank found the job bad, 1 for any other failure. Rank 0 alone writes progress, metrics
and the adapter (train.py asks `is_main_process`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .errors import EXIT_BAD_JOB, BadJob
from .job import TrainJob, check_resume


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main_process() -> bool:
    return int(os.environ.get("RANK", "0")) == 0


def rank_zero_first(load):
    """`load()` on rank 0 before the other ranks run it (they then read what rank 0 wrote: a built tiny base, a
    converted or copied one); a plain call in a single process."""
    if world_size() == 1:
        return load()
    from accelerate import PartialState

    with PartialState().main_process_first():
        return load()


def requested_processes(job: TrainJob) -> int:
    return job.resources.gpus


def needs_launch(job: TrainJob) -> bool:
    """A multi-GPU job not yet running under torchrun."""
    return requested_processes(job) > 1 and "LOCAL_RANK" not in os.environ


def check_devices(job: TrainJob) -> None:
    import torch

    wanted = requested_processes(job)
    if torch.cuda.is_available() and torch.cuda.device_count() < wanted:
        raise BadJob(f"resources.gpus: the job asks for {wanted} GPUs; this worker has {torch.cuda.device_count()}")


def launch(job_path: str, job: TrainJob, resume: str | None) -> int:
    """Run this job's `train` under torchrun on this host; returns the exit code a single process would."""
    check_resume(job)
    check_devices(job)
    n = requested_processes(job)
    args = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={n}",
        "-m",
        "flywheel_trainer",
        "train",
        "--job",
        job_path,
        *(["--resume", resume] if resume else []),
    ]
    # torchrun starts each rank in a session of its own, out of reach of a kill of this process group: the ranks keep
    # FLYWHEEL_DIE_WITH_PARENT and stop when torchrun (their parent) goes, as this process does when the worker goes.
    env = dict(os.environ)
    bad_job = False
    with subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            bad_job = bad_job or _is_bad_job(line)
    if proc.returncode == 0:
        return 0
    return EXIT_BAD_JOB if bad_job else 1


def _is_bad_job(line: str) -> bool:
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and event.get("event") == "error" and event.get("kind") == "bad_job"
