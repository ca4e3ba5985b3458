"""python -m flywheel_trainer train --job job.json

SFT with TRL on rendered rows, loss on the completion only. Layout of outputDir:
  base/                tiny:<preset> only: the built base model + tokenizer
  checkpoints/         checkpoint-N (adapter, optimizer, scheduler, RNG, trainer state)
  adapter/             the PEFT adapter (or the full model for method=full), tokenizer, chat template, flywheel.json
  merged/              optional merged export
  metrics.jsonl        every progress line
The adapter directory is written under a temporary name and renamed, so it is whole or absent."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

from .data import corpus_texts, encode_rows, load_rows, share_prefixes
from .errors import BadJob
from .examples import EXAMPLES_FILE, write_examples
from .job import TrainJob, check_resume
from .launch import is_main_process, rank_zero_first
from .model import Hardware, check_method, detect_hardware, load_base, padding_free
from .packaged import sha256_file, terms_files
from .progress import Progress, ProgressCallback
from .training_args import training_args


def sft_config(job: TrainJob, hw: Hardware, out: Path, resuming: bool):
    from trl import SFTConfig

    o = job.optim
    packed = padding_free(job, hw)
    return SFTConfig(
        **training_args(job, hw, out, resuming),
        load_best_model_at_end=o.earlyStoppingPatience > 0,
        metric_for_best_model="eval_loss",
        greater_is_better=False,
        packing=packed,
        packing_strategy="bfd",
        padding_free=packed,
        completion_only_loss=o.completionOnlyLoss,
        gradient_checkpointing=hw.cuda and not job.baseModel.startswith("tiny:"),
        include_num_input_tokens_seen="non_padding",
    )


def lora_config(job: TrainJob, num_layers: int | None = None):
    """`num_layers`: the base's transformer layer count, which lora.topLayers counts back from."""
    from peft import LoraConfig

    lc = job.lora
    top = lc.topLayers
    if top is not None and num_layers is not None and top > num_layers:
        raise BadJob(f"lora.topLayers: {top} is more than the base's {num_layers} layers")
    return LoraConfig(
        r=lc.rank,
        lora_alpha=lc.alpha,
        lora_dropout=lc.dropout,
        target_modules=lc.targetModules,
        # Adapting only the last layers lets backpropagation stop at the first adapted one.
        layers_to_transform=None
        if top is None or num_layers is None or top >= num_layers
        else list(range(num_layers - top, num_layers)),
        bias="none",
        task_type="CAUSAL_LM",
    )


def _dataset(encoded: list[dict[str, list[Any]]]):
    from datasets import Dataset

    return Dataset.from_dict({key: [e[key] for e in encoded] for key in encoded[0]})


def weighted_sft_trainer(lora_plus_ratio: float | None = None):
    """TRL's SFTTrainer, plus a per-token `loss_weight` column (optim.decisionWeight, optim.tokenWeightedLoss) in the training loss, and
    with `lora_plus_ratio` (optim.loraPlusRatio) LoRA+'s optimizer: the B matrices learn that many times faster.

    Without the column it is TRL's trainer unchanged. With it, the training loss is sum(weight x NLL) over the
    answer tokens divided by their count, through the same fused LM head; eval loss stays the plain mean NLL,
    so runs with different weights compare. Under data parallelism the count spans every process, as in
    Trainer.compute_loss."""
    import torch
    from trl import SFTTrainer

    class WeightedSFTTrainer(SFTTrainer):
        def create_optimizer(self, *args, **kwargs):
            if lora_plus_ratio is None or self.optimizer is not None:
                return super().create_optimizer(*args, **kwargs)
            from peft.optimizers import create_loraplus_optimizer

            optimizer_cls, optimizer_kwargs = self.get_optimizer_cls_and_kwargs(self.args, self.model)
            lr = optimizer_kwargs.pop("lr")
            self.optimizer = create_loraplus_optimizer(
                self.model, optimizer_cls, lr=lr, loraplus_lr_ratio=lora_plus_ratio, **optimizer_kwargs
            )
            return self.optimizer

        def _set_signature_columns_if_needed(self):
            super()._set_signature_columns_if_needed()
            extra = [c for c in ("loss_weight", "segments", "position_ids") if c not in self._signature_columns]
            self._signature_columns = [*self._signature_columns, *extra]

        def get_train_dataloader(self):
            shared = "segments" in self.train_dataset.column_names
            self.data_collator = (
                _PrefixTreeCollator(self.data_collator) if shared else _WeightCollator(self.data_collator)
            )
            try:
                return super().get_train_dataloader()
            finally:
                self.data_collator = self.data_collator.inner

        def _track_num_input_tokens(self, inputs):
            mask = inputs.get("attention_mask")
            if mask is None or mask.dim() != 4 or self.args.include_num_input_tokens_seen == "no":
                return super()._track_num_input_tokens(inputs)
            # A tree mask's sum counts pairs, not tokens. Padding sits at position 0, and so does each row's first token.
            positions = inputs["position_ids"]
            tokens = torch.as_tensor(
                int(positions.ne(0).sum()) + positions.shape[0], device=self.args.device, dtype=torch.int64
            )
            self.state.num_input_tokens_seen += self.accelerator.gather(tokens).sum().item()

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            weights = inputs.pop("loss_weight", None)
            shared = inputs.get("attention_mask") is not None and inputs["attention_mask"].dim() == 4
            if (weights is None and not shared) or not model.training:
                return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
            inputs["use_cache"] = False
            if shared:
                inputs["attention_mask"] = _attention_mask_for(model, inputs["attention_mask"])
            outputs = model(**inputs, fused_lm_head=True)
            if weights is None:
                weights = torch.ones_like(inputs["labels"], dtype=torch.float32)
            # log_probs[:, t] scores the token at t + 1 (the head shifts the labels), so the weights shift too.
            weighted = -(outputs.log_probs * weights[:, 1:].to(outputs.log_probs.dtype)).sum()
            count = outputs.label_mask.sum() if num_items_in_batch is None else num_items_in_batch
            loss = weighted / torch.as_tensor(count).clamp(min=1)
            if self.args.average_tokens_across_devices and num_items_in_batch is not None:
                loss = loss * self.accelerator.num_processes  # as Trainer.compute_loss: the count spans every process
            return (loss, outputs) if return_outputs else loss

    return WeightedSFTTrainer


class _WeightCollator:
    """Wraps TRL's collator: pads (or, padding-free, concatenates) the loss_weight column like the labels."""

    def __init__(self, inner):
        self.inner = inner

    def __call__(self, examples):
        import torch

        weights = [torch.tensor(e.pop("loss_weight"), dtype=torch.float32) for e in examples if "loss_weight" in e]
        batch = self.inner(examples)
        if len(weights) == len(examples) and examples:
            shape = batch["input_ids"].shape
            if shape[0] == 1 and len(weights) > 1:
                batch["loss_weight"] = torch.cat(weights)[None, :]
            else:
                batch["loss_weight"] = torch.nn.utils.rnn.pad_sequence(weights, batch_first=True, padding_value=0.0)
            if batch["loss_weight"].shape != shape:
                raise RuntimeError(
                    f"loss_weight {tuple(batch['loss_weight'].shape)} does not match input_ids {tuple(shape)}"
                )
        return batch


class _PrefixTreeCollator:
    """Batches rows packed by data.share_prefixes: pads each to the longest, labels only what its own row would
    label, and attaches the tree mask (batch x 1 x L x L, True = may attend) with each rest's position ids."""

    def __init__(self, inner):
        self.inner = inner  # TRL's collator: kept for its pad token, and restored after the train dataloader is built
        self.pad = inner.pad_token_id

    def __call__(self, examples):
        import torch

        from .data import tree_attention_mask

        length = max(len(e["input_ids"]) for e in examples)

        def padded(key: str, value: Any, dtype) -> "torch.Tensor":
            return torch.tensor([list(e[key]) + [value] * (length - len(e[key])) for e in examples], dtype=dtype)

        labels = padded("labels", -100, torch.long)
        for b, e in enumerate(examples):
            # In the packed order a rest's first token comes after the rest before it, not after the prefix, so
            # whole-sequence loss must not score it (nor the first rest's, so that every row loses the same token).
            at = e["segments"][0]
            for rest in e["segments"][1:]:
                labels[b, at] = -100
                at += rest
        batch = {
            "input_ids": padded("input_ids", self.pad, torch.long),
            "labels": labels,
            "position_ids": padded("position_ids", 0, torch.long),
            "attention_mask": torch.stack([tree_attention_mask(e["segments"], length) for e in examples])[:, None],
        }
        if all("loss_weight" in e for e in examples):
            batch["loss_weight"] = padded("loss_weight", 0.0, torch.float32)
        return batch


def _attention_mask_for(model, mask):
    """The boolean tree mask as the model's attention takes it: SDPA and flex take booleans; eager adds the mask
    to its scores, so it gets 0 where allowed and the dtype's minimum elsewhere. FlashAttention takes no mask."""
    import torch

    impl = getattr(model.config, "_attn_implementation", None) or "sdpa"
    if impl == "eager":
        dtype = next(p for p in model.parameters()).dtype
        return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min).to(mask.device)
    if "flash" in impl:
        raise BadJob(
            f"optim.sharedPrefixRows needs an attention implementation that takes a mask (sdpa or eager); this model runs {impl}"
        )
    return mask


# The TRL release whose private `trl.trainer.utils._use_triton` score_answer_tokens_only was written and tested
# against (requirements.txt pins it). Another release may have moved or changed it: the patch is then skipped, which
# costs CPU speed, never the loss.
PATCHED_TRL = "1.16.0"


def score_answer_tokens_only() -> bool:
    """TRL's fused LM head projects only the positions that carry a label on Triton devices, but every position
    elsewhere (to keep tile shapes fixed for compilers). On a CPU that means the 49K-wide head runs over the whole
    ~600-token prompt to score a ~30-token answer: a third of a SmolLM2 step. Shapes that vary cost nothing on a
    CPU, so there it scores the labelled positions only; the loss is the same (test_train checks it). Only on
    PATCHED_TRL; returns whether the patch is in place."""
    import warnings

    import trl
    import trl.trainer.utils as trl_utils

    if getattr(trl_utils, "_flywheel_compact", False):
        return True
    triton = getattr(trl_utils, "_use_triton", None)
    if trl.__version__ != PATCHED_TRL or not callable(triton):
        warnings.warn(
            f"TRL {trl.__version__} is not {PATCHED_TRL}, the release score_answer_tokens_only patches: on a CPU the"
            " LM head scores every position (slower; the same loss)",
            stacklevel=2,
        )
        return False
    trl_utils._use_triton = lambda device: device.type == "cpu" or triton(device)
    trl_utils._flywheel_compact = True
    return True


def build_trainer(job: TrainJob, progress: Progress | None = None, hw: Hardware | None = None):
    """Everything up to (not including) trainer.train(): load rows, base model, tokenize, configure TRL."""
    from transformers import EarlyStoppingCallback, PrinterCallback

    score_answer_tokens_only()

    hw = hw or detect_hardware()
    check_method(job, hw)
    if job.method == "dpo":
        from .dpo import build_dpo_trainer

        return build_dpo_trainer(job, progress, hw)
    out = Path(job.outputDir)
    train_rows = load_rows(job.data.train)
    val_rows = load_rows(job.data.val)
    if job.optim.maxEvalRows and len(val_rows) > job.optim.maxEvalRows:
        val_rows = random.Random(job.optim.seed).sample(val_rows, job.optim.maxEvalRows)
    model, tokenizer = rank_zero_first(lambda: load_base(job, out / "base", corpus_texts(train_rows), hw))
    max_length = job.optim.maxLength
    train = encode_rows(
        tokenizer,
        train_rows,
        max_length,
        job.data.train,
        job.optim.decisionWeight,
        job.optim.tokenWeightedLoss,
    )
    if job.optim.sharedPrefixRows > 1:
        train = share_prefixes(train, job.optim.sharedPrefixRows, max_length)
    val = encode_rows(tokenizer, val_rows, max_length, job.data.val)
    resuming = job.resumeFrom is not None
    callbacks: list[Any] = [ProgressCallback(progress)] if progress else []
    if job.optim.earlyStoppingPatience > 0:
        callbacks.append(EarlyStoppingCallback(early_stopping_patience=job.optim.earlyStoppingPatience))
    trainer = weighted_sft_trainer(job.optim.loraPlusRatio)(
        model=model,
        args=sft_config(job, hw, out, resuming),
        train_dataset=_dataset(train),
        eval_dataset=_dataset(val),
        processing_class=tokenizer,
        peft_config=lora_config(job, getattr(model.config, "num_hidden_layers", None))
        if job.method in ("lora", "qlora")
        else None,
        callbacks=callbacks,
    )
    trainer.remove_callback(PrinterCallback)  # it prints Python dicts on stdout, which carries only JSON lines
    return trainer, tokenizer


def _sft_dataset(job: TrainJob) -> str | None:
    """The sha256 of the SFT training file behind this adapter: its own, or (dpo) its starting adapter's."""
    if job.method != "dpo":
        return sha256_file(Path(job.data.train))
    return json.loads((Path(job.preference.startFrom) / "flywheel.json").read_text()).get("trainSha256")


def _catalog_tools(job: TrainJob) -> list[dict[str, Any]]:
    """Every tool the SFT rows offered, in name order; (dpo) its starting adapter's. A name offered with two
    different schemas (two servers' tools of one name) is left out: serve could not tell which one was meant."""
    if job.method == "dpo":
        return json.loads((Path(job.preference.startFrom) / "flywheel.json").read_text()).get("tools", [])
    tools: dict[str, dict[str, Any]] = {}
    ambiguous: set[str] = set()
    with open(job.data.train, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                for tool in json.loads(line).get("tools") or []:
                    name = tool["function"]["name"]
                    if tools.setdefault(name, tool)["function"].get("parameters") != tool["function"].get("parameters"):
                        ambiguous.add(name)
    return [tools[name] for name in sorted(tools) if name not in ambiguous]


def _write_examples(job: TrainJob, adapter_dir: Path) -> None:
    """examples.jsonl: each SFT row's request and the decision it was taught, the retrieval prior's neighbours
    (examples.py); (dpo) its starting adapter's."""
    if job.method == "dpo":
        source = Path(job.preference.startFrom) / EXAMPLES_FILE
        if source.is_file():
            shutil.copyfile(source, adapter_dir / EXAMPLES_FILE)
        return
    with open(job.data.train, encoding="utf-8") as f:
        write_examples((json.loads(line) for line in f if line.strip()), adapter_dir / EXAMPLES_FILE)


def _write_outputs(job: TrainJob, trainer, tokenizer, out: Path) -> Path:
    final = out / "adapter"
    staging = out / "adapter.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    # DPO holds a frozen "ref" copy of its starting adapter beside the trained one: only the trained one ships.
    trainer.model.save_pretrained(staging, **({"selected_adapters": ["default"]} if job.method == "dpo" else {}))
    tokenizer.save_pretrained(staging)
    best = trainer.state.best_metric
    meta = {
        "baseModel": job.baseModel,
        "base": "../base" if job.baseModel.startswith("tiny:") else job.baseModel,
        "method": job.method,
        **({"startFrom": job.preference.startFrom} if job.method == "dpo" else {}),
        "format": job.data.format,
        # What it was trained on: preference pairs name the SFT dataset they belong with (dpo.py checks).
        "trainSha256": _sft_dataset(job),
        "steps": trainer.state.global_step,
        "bestEvalLoss": best if _best_on_disk(trainer.state) else None,
        # The tools its rows offered: serve lets it name one a request does not offer (answered tool_not_offered).
        "tools": _catalog_tools(job),
    }
    (staging / "flywheel.json").write_text(json.dumps(meta, indent=2))
    # An adapter is a derivative of its base: where the base's licence asks its terms to travel with derivatives
    # (Gemma's), they go into the adapter, so its artifact and what `flywheel publish` uploads carry them.
    for terms in terms_files(job.baseModel):
        shutil.copyfile(terms, staging / terms.name)
    if job.data.format == "router-json":
        _write_examples(job, staging)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(staging, final)
    if job.mergedExport and job.method != "full":
        merged_tmp = out / "merged.tmp"
        shutil.rmtree(merged_tmp, ignore_errors=True)
        trainer.model.merge_and_unload().save_pretrained(merged_tmp)
        tokenizer.save_pretrained(merged_tmp)
        shutil.rmtree(out / "merged", ignore_errors=True)
        os.replace(merged_tmp, out / "merged")
    return final


def _best_on_disk(state) -> bool:
    """After a resume in a new directory the earlier attempt's best checkpoint may be gone; transformers then
    keeps the last weights, so the best metric no longer describes what is written out."""
    return bool(state.best_model_checkpoint) and Path(state.best_model_checkpoint).is_dir()


def _finished(checkpoint: str) -> bool:
    """Whether a checkpoint ends its run: the last step, or early stopping decided to stop there."""
    state = json.loads((Path(checkpoint) / "trainer_state.json").read_text())
    if state.get("max_steps") and state["global_step"] >= state["max_steps"]:
        return True
    control = state.get("stateful_callbacks", {}).get("TrainerControl", {}).get("args", {})
    return bool(control.get("should_training_stop"))


def _restore_finished(trainer, checkpoint: str) -> float:
    """Load a finished checkpoint's weights and state instead of training; returns the mean training loss."""
    from peft import PeftModel, set_peft_model_state_dict
    from safetensors.torch import load_file
    from transformers import TrainerState

    ckpt = Path(checkpoint)
    if isinstance(trainer.model, PeftModel):
        set_peft_model_state_dict(trainer.model, load_file(ckpt / "adapter_model.safetensors"))
    else:
        trainer.model.load_state_dict(load_file(ckpt / "model.safetensors"), strict=False)
    trainer.state = TrainerState.load_from_json(str(ckpt / "trainer_state.json"))
    if not _best_on_disk(trainer.state):
        trainer.state.best_model_checkpoint = None
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return float(sum(losses) / len(losses)) if losses else float("nan")


def _final_eval_loss(trainer) -> float:
    """Eval loss of the weights written out: the best checkpoint's with early stopping (when it is still on
    disk), else the last eval if it ran at the final step, else a fresh evaluation."""
    state = trainer.state
    if trainer.args.load_best_model_at_end and state.best_metric is not None and _best_on_disk(state):
        return float(state.best_metric)
    last = next((h for h in reversed(state.log_history) if "eval_loss" in h), None)
    if last is not None and last.get("step") == state.global_step:
        return float(last["eval_loss"])
    return float(trainer.evaluate()["eval_loss"])


def quiet_libraries() -> None:
    """stdout carries progress lines only; library progress bars and info logs would drown stderr's tail."""
    import warnings

    import datasets
    import transformers

    # TRL still passes gradient_checkpointing, which transformers 5 renamed; the warning is not actionable here.
    warnings.filterwarnings("ignore", category=FutureWarning, module="transformers")

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


def run_training(job: TrainJob) -> Path:
    quiet_libraries()
    out = Path(job.outputDir)
    out.mkdir(parents=True, exist_ok=True)
    check_resume(job)
    resume = job.resumeFrom
    # Under torchrun every rank runs this; rank 0 alone reports progress and writes the outputs.
    main = is_main_process()
    progress = Progress(out / "metrics.jsonl") if main else Progress(None, out=open(os.devnull, "w"))
    try:
        trainer, tokenizer = build_trainer(job, progress)
        if resume is not None and _finished(resume):
            # transformers would take one more step from a final checkpoint; its weights are the result.
            training_loss = _restore_finished(trainer, resume)
            progress.emit("start", step=trainer.state.global_step, total=trainer.state.max_steps)
        else:
            training_loss = trainer.train(resume_from_checkpoint=resume).training_loss
        eval_loss = _final_eval_loss(trainer)  # may evaluate: every rank takes part
        adapter = out / "adapter"
        if main:
            adapter = _write_outputs(job, trainer, tokenizer, out)
        progress.emit(
            "done",
            step=trainer.state.global_step,
            total=trainer.state.max_steps,
            loss=round(training_loss, 6),
            eval_loss=round(eval_loss, 6),
            adapter=str(adapter),
        )
        return adapter
    finally:
        progress.close()
