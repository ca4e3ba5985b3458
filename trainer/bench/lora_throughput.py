"""LoRA SFT throughput: our trainer's configuration vs plain TRL defaults, same model, same data, same run.

    python trainer/bench/lora_throughput.py                      # Llama-3-8B shape, bf16, seq 4096 (needs a GPU)
    python trainer/bench/lora_throughput.py --shape tiny --steps 3 --seq 512   # CPU smoke test of this script

The model is randomly initialised with Llama-3-8B's shape (no weights to download); the data are synthetic
router-like rows (random token ids, lengths 200..2000 like rendered rows with 8 tools). Reported per setup:
tokens/s (non-padding tokens the model trained on, after warm-up) and MFU.

MFU counts 4 x N FLOPs per token plus attention: LoRA runs the forward (2N) and the backward through the
activations (2N) but computes no gradient for the frozen weights (the 2N a full fine-tune adds). This is the
convention behind NVIDIA's published Llama-3-8B LoRA figure on one H100 (~12.5K tokens/s, ~41% MFU), the
anchor this benchmark compares against. Peak: 989 TFLOP/s dense bf16 (H100/H200 SXM) unless --peak-tflops.

Setups:
  flywheel       trainer/flywheel_trainer's SFTConfig for a default job (LoRA r16 on all projections, bf16,
                 padding-free packing to --seq when flash attention is installed, gradient checkpointing)
  trl-defaults   SFTConfig() as shipped, with only what a run needs set (output dir, max steps, bf16, the LoRA
                 config): its defaults are max_length 1024 (longer rows truncated), batch 8, no packing
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SHAPES = {
    "llama3-8b": dict(
        vocab_size=128256,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        rope_theta=500000.0,
    ),
    "tiny": dict(
        vocab_size=2048,
        hidden_size=64,
        intermediate_size=192,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
    ),
}


def synthetic_rows(n: int, vocab: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        length = rng.randint(200, 2000)
        completion = rng.randint(20, 80)
        ids = [rng.randrange(16, vocab) for _ in range(length)]
        rows.append({"input_ids": ids, "completion_mask": [0] * (length - completion) + [1] * completion})
    return rows


def build_model(shape: str, seq: int, device: str, attn: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**SHAPES[shape], max_position_embeddings=max(seq, 8192), tie_word_embeddings=False)
    config._attn_implementation = attn
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    with torch.device(device):
        torch.manual_seed(0)
        model = LlamaForCausalLM(config).to(dtype)
    return model


class Timer:
    """Records (time, tokens seen) at each step end; throughput is measured after the warm-up steps."""

    def __init__(self):
        from transformers import TrainerCallback

        marks = self.marks = []

        class CB(TrainerCallback):
            def on_step_end(self, args, state, control, **kw):
                import torch

                if torch.cuda.is_available():
                    torch.cuda.synchronize()
                marks.append((time.perf_counter(), state.num_input_tokens_seen))

        self.callback = CB()

    def tokens_per_s(self, warmup: int) -> float:
        (t0, n0), (t1, n1) = self.marks[warmup - 1], self.marks[-1]
        return (n1 - n0) / (t1 - t0)


def run_setup(name: str, args, rows, attn: str) -> dict:
    import torch
    from datasets import Dataset
    from transformers import PrinterCallback
    from trl import SFTConfig, SFTTrainer

    from flywheel_trainer.job import validate_job
    from flywheel_trainer.model import Hardware
    from flywheel_trainer.tiny import train_tokenizer
    from flywheel_trainer.train import lora_config, sft_config

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = build_model(args.shape, args.seq, device, attn)
    n_params = sum(p.numel() for p in model.parameters())
    out = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
    job = validate_job(
        {
            "version": 1,
            "baseModel": "bench",
            "data": {"train": "-", "val": "-"},
            "outputDir": str(out),
            "optim": {
                "maxLength": args.seq,
                "maxSteps": args.steps,
                "microBatchSize": args.micro_batch,
                "effectiveBatchSize": args.micro_batch * args.grad_accum,
            },
            "checkpointEvery": 10**6,
            "logEvery": 10**6,
        }
    )
    if name == "flywheel":
        hw = Hardware(cuda=device == "cuda", bf16=device == "cuda", flash_attention=attn == "flash_attention_2")
        config = sft_config(job, hw, out, resuming=False)
        config.eval_strategy = "no"
        config.eval_on_start = False
        config.save_strategy = "no"
        config.load_best_model_at_end = False
        config.gradient_checkpointing = device == "cuda"
    else:
        config = SFTConfig(
            output_dir=str(out),
            max_steps=args.steps,
            report_to="none",
            disable_tqdm=True,
            bf16=device == "cuda",
            use_cpu=device != "cuda",
            save_strategy="no",
            completion_only_loss=True,
            include_num_input_tokens_seen="non_padding",
        )
    timer = Timer()
    # Rows are already token ids; the tokenizer only supplies the pad id (0) to the collator.
    tokenizer = train_tokenizer(["router bench"], 300)
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_list(rows),
        peft_config=lora_config(job),
        processing_class=tokenizer,
        callbacks=[timer.callback],
    )
    trainer.remove_callback(PrinterCallback)
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    tps = timer.tokens_per_s(args.warmup)
    cfg = model.config
    # 4N per token (LoRA: no frozen-weight gradients) + causal attention: a token at position p does 4*p*h FLOPs
    # per layer forward (scores and values), twice that with the backward: 8*L*h*E[p] over the trained rows.
    lengths = [min(len(r["input_ids"]), config.max_length or 10**9) for r in rows]
    mean_position = sum(n * n for n in lengths) / (2 * sum(lengths))
    flops_per_token = 4 * n_params + 8 * cfg.num_hidden_layers * cfg.hidden_size * mean_position
    mfu = tps * flops_per_token / (args.peak_tflops * 1e12) if device == "cuda" else None
    result = {
        "setup": name,
        "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
        "attention": attn,
        "params": n_params,
        "tokens_per_s": round(tps, 1),
        "mfu": round(mfu, 4) if mfu is not None else None,
        "steps": args.steps,
        "warmup": args.warmup,
        "max_length": config.max_length,
        "packing": bool(config.packing),
        "padding_free": bool(config.padding_free),
        "batch": config.per_device_train_batch_size,
        "grad_accum": config.gradient_accumulation_steps,
        "gradient_checkpointing": bool(config.gradient_checkpointing),
        "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None,
    }
    del trainer, model
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return result


def main() -> int:
    import importlib.util

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", choices=sorted(SHAPES), default="llama3-8b")
    p.add_argument("--seq", type=int, default=4096)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--rows", type=int, default=2000)
    p.add_argument("--peak-tflops", type=float, default=989.0)
    p.add_argument("--setups", default="flywheel,trl-defaults")
    p.add_argument("--out", help="also write the results as JSON here")
    args = p.parse_args()
    args.warmup = min(args.warmup, args.steps - 1)
    attn = "flash_attention_2" if importlib.util.find_spec("flash_attn") else "sdpa"
    from flywheel_trainer.train import quiet_libraries

    quiet_libraries()
    import torch

    if args.shape != "tiny" and not torch.cuda.is_available():
        print(
            "this benchmark needs a GPU for the llama3-8b shape; use --shape tiny for a CPU smoke test", file=sys.stderr
        )
        return 2
    vocab = SHAPES[args.shape]["vocab_size"]
    rows = synthetic_rows(args.rows, vocab, seed=0)
    results = [run_setup(name, args, rows, attn) for name in args.setups.split(",")]
    for r in results:
        print(json.dumps(r))
    if len(results) == 2:
        print(
            json.dumps(
                {
                    "ratio_tokens_per_s": round(results[0]["tokens_per_s"] / results[1]["tokens_per_s"], 3),
                    "anchor": "NVIDIA Llama-3-8B LoRA, 1x H100: ~12.5K tokens/s, ~41% MFU",
                }
            )
        )
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
