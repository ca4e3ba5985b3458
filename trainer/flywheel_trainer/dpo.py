"""method: dpo — preference tuning of an SFT adapter on preference pairs, with TRL's DPOTrainer.

The SFT adapter (`preference.startFrom`) is loaded onto its own base as the trainable "default" adapter; TRL copies
it into a frozen "ref" adapter, so the reference policy is the SFT adapter, not the bare base. Only "default" is
written out: one LoRA on the original base, servable by `serve`, vLLM and LoRAX like any SFT adapter. Checkpoints,
resume, progress lines and the adapter directory follow the SFT path (train.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from .data import jsonl_objects, require_messages
from .errors import BadJob
from .job import TrainJob
from .launch import rank_zero_first
from .model import Hardware, load_base
from .training_args import training_args

PAIR_FIELDS = ("prompt", "chosen", "rejected")


def load_pairs(path: str | Path, key: str, sft_dataset: str | None = None) -> list[dict[str, Any]]:
    """Read a pairs JSONL file ({prompt, chosen, rejected, tools, dataset?}); a malformed line is a BadJob naming it.
    A pair that names its SFT dataset (the sha256 of the rendered train file, as the render stage writes) must
    name the one the starting adapter was trained on."""
    path = Path(path)
    pairs = []
    for lineno, raw in jsonl_objects(path, "pairs"):
        for field in PAIR_FIELDS:
            require_messages(raw, field, f"{path}:{lineno}", " (a preference pair)")
        if raw["chosen"] == raw["rejected"]:
            raise BadJob(f"{path}:{lineno}: chosen and rejected are the same answer")
        if sft_dataset and raw.get("dataset") and raw["dataset"] != sft_dataset:
            raise BadJob(
                f"{key}: {path}:{lineno} is a pair of dataset {str(raw['dataset'])[:12]}, but preference.startFrom "
                f"was trained on dataset {sft_dataset[:12]}; use the pairs rendered with the SFT adapter's data"
            )
        pairs.append(
            {
                "prompt": raw["prompt"],
                "chosen": raw["chosen"],
                "rejected": raw["rejected"],
                "tools": raw.get("tools") or [],
            }
        )
    if not pairs:
        raise BadJob(f"{path}: no preference pairs")
    return pairs


def start_adapter(job: TrainJob) -> tuple[Path, dict[str, Any]]:
    """The SFT adapter directory and its flywheel.json; it must be a LoRA on this job's base."""
    start = Path(job.preference.startFrom)
    meta_file = start / "flywheel.json"
    if not (start / "adapter_config.json").is_file() or not meta_file.is_file():
        raise BadJob(
            f"preference.startFrom: {start} is not an adapter directory written by a train job (no adapter_config.json / flywheel.json)"
        )
    meta = json.loads(meta_file.read_text())
    if meta.get("method") not in ("lora", "qlora", "dpo"):
        raise BadJob(f"preference.startFrom: {start} holds a {meta.get('method')} model, not a LoRA adapter")
    if meta.get("baseModel") != job.baseModel:
        raise BadJob(
            f"preference.startFrom: {start} was trained on {meta.get('baseModel')}, not this job's baseModel {job.baseModel}"
        )
    return start, meta


def load_policy(job: TrainJob, out: Path, hw: Hardware):
    """The base with the SFT adapter on it, trainable. A tiny base is the one the SFT run built (its tokenizer was
    trained on that run's rows), copied next to this run's adapter so serve finds it at ../base as usual."""
    from peft import PeftModel
    from transformers import AutoTokenizer, LlamaForCausalLM

    start, meta = start_adapter(job)
    if job.baseModel.startswith("tiny:"):
        base_dir = (start / meta.get("base", "../base")).resolve()
        if not base_dir.is_dir():
            raise BadJob(f"preference.startFrom: the tiny base its adapter names ({base_dir}) is not there")
        if (out / "base").resolve() != base_dir:
            shutil.copytree(base_dir, out / "base", dirs_exist_ok=True)
        model, tokenizer = LlamaForCausalLM.from_pretrained(out / "base"), AutoTokenizer.from_pretrained(out / "base")
    else:
        model, tokenizer = load_base(job, out / "base", [], hw)
    return PeftModel.from_pretrained(model, str(start), is_trainable=True), tokenizer


def dpo_config(job: TrainJob, hw: Hardware, out: Path, resuming: bool):
    from trl import DPOConfig

    p = job.preference
    return DPOConfig(
        **training_args(job, hw, out, resuming),
        beta=p.beta,
        loss_type=[p.lossType],
        label_smoothing=0.1 if p.lossType == "robust" else 0.0,
    )


def build_dpo_trainer(job: TrainJob, progress, hw: Hardware):
    """Everything up to trainer.train() for a DPO job, as build_trainer is for SFT."""
    import random

    from datasets import Dataset
    from transformers import PrinterCallback
    from trl import DPOTrainer

    from .progress import ProgressCallback

    out = Path(job.outputDir)
    sft_dataset = start_adapter(job)[1].get("trainSha256")
    train = load_pairs(job.data.train, "data.train", sft_dataset)
    val = load_pairs(job.data.val, "data.val", sft_dataset)
    if job.optim.maxEvalRows and len(val) > job.optim.maxEvalRows:
        val = random.Random(job.optim.seed).sample(val, job.optim.maxEvalRows)
    model, tokenizer = rank_zero_first(lambda: load_policy(job, out, hw))
    trainer = DPOTrainer(
        model=model,
        args=dpo_config(job, hw, out, job.resumeFrom is not None),
        train_dataset=Dataset.from_list(train),
        eval_dataset=Dataset.from_list(val),
        processing_class=tokenizer,
        callbacks=[ProgressCallback(progress)] if progress else [],
    )
    trainer.remove_callback(PrinterCallback)
    return trainer, tokenizer
