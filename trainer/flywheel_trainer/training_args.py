"""The Trainer arguments every method shares (SFT in train.py, DPO in dpo.py), in a module of their own so the two
methods import it rather than each other."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .job import TrainJob
from .launch import world_size
from .model import Hardware


def training_args(job: TrainJob, hw: Hardware, out: Path, resuming: bool) -> dict[str, Any]:
    """The Trainer arguments every method shares: batches, schedule, checkpoints and evals, precision, devices."""
    o = job.optim
    dtype = job.precision
    if dtype == "auto" or not hw.cuda:
        # On a CPU, bf16 is the frozen base's weights (model.resolve_dtype), not autocast: autocast casts every
        # weight on every pass, which made a CPU step slower than float32's.
        dtype = "bf16" if hw.bf16 else "fp32"
    return dict(
        output_dir=str(out / "checkpoints"),
        per_device_train_batch_size=o.microBatchSize,
        per_device_eval_batch_size=o.microBatchSize,
        # Data-parallel processes each take microBatchSize rows a pass, so the accumulation is shared among them.
        gradient_accumulation_steps=max(1, math.ceil(o.effectiveBatchSize / (o.microBatchSize * world_size()))),
        learning_rate=o.learningRate,
        lr_scheduler_type=o.scheduler,
        warmup_steps=o.warmupRatio,  # a float in [0, 1) is a ratio of the total steps
        num_train_epochs=o.epochs,
        max_steps=o.maxSteps or -1,
        logging_steps=job.logEvery,
        eval_strategy="steps",
        eval_steps=job.checkpointEvery,
        eval_on_start=not resuming,
        save_strategy="steps",
        save_steps=job.checkpointEvery,
        save_total_limit=job.keepCheckpoints,
        bf16=dtype == "bf16",
        fp16=dtype == "fp16",
        use_cpu=not hw.cuda,
        seed=o.seed,
        data_seed=o.seed,
        max_length=o.maxLength,
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        ddp_backend=("nccl" if hw.cuda else "gloo") if world_size() > 1 else None,
        ddp_find_unused_parameters=False,  # frozen base weights are not parameters DDP tracks; nothing goes unused
    )
