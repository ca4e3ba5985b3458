"""Load the base model and tokenizer a job names: tiny:<preset>, a local directory, or a Hugging Face id."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import tiny
from .errors import BadJob
from .job import TrainJob
from .packaged import PACKAGED, ensure_converted, is_packaged

HF_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


@dataclass
class Hardware:
    cuda: bool
    bf16: bool  # a GPU with bf16: weights and autocast in bf16
    flash_attention: bool
    cpu_bf16: bool = False  # no GPU, and a CPU with native bf16: the frozen base's weights in bf16, no autocast


def cpu_has_native_bf16() -> bool:
    """avx512_bf16 or amx_bf16 (read from Linux's /proc/cpuinfo): there bf16 matrix products run about twice as
    fast as float32's; elsewhere torch emulates bf16, which is slower than float32."""
    try:
        return re.search(r"\b(avx512_bf16|amx_bf16)\b", Path("/proc/cpuinfo").read_text()) is not None
    except OSError:
        return False


def detect_hardware() -> Hardware:
    import torch

    cuda = torch.cuda.is_available()
    return Hardware(
        cuda=cuda,
        bf16=cuda and torch.cuda.is_bf16_supported(),
        flash_attention=cuda and importlib.util.find_spec("flash_attn") is not None,
        cpu_bf16=not cuda and cpu_has_native_bf16(),
    )


def resolve_dtype(precision: str, hw: Hardware, method: str = "lora"):
    """The base's weights' dtype. A CPU with native bf16 holds a frozen base (LoRA, DPO) in bf16: ~1.2x faster
    steps measured on one; a full fine-tune stays float32 there (no float32 master weights to update)."""
    import torch

    cpu_bf16 = hw.cpu_bf16 and method != "full"
    if precision == "auto":
        return torch.bfloat16 if hw.bf16 or cpu_bf16 else torch.float32
    if precision == "bf16" and not hw.cuda:
        if cpu_bf16:
            return torch.bfloat16
        raise BadJob(
            "precision: bf16 on a CPU needs native bf16 (avx512_bf16, amx_bf16) and a frozen base (not method full); use auto or fp32"
        )
    if precision == "fp16" and not hw.cuda:
        raise BadJob("precision: fp16 needs a GPU; this machine has none (use auto or fp32)")
    if precision == "bf16" and not hw.bf16:
        raise BadJob("precision: bf16 is not supported by this GPU (use fp16 or auto)")
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[precision]


def padding_free(job: TrainJob, hw: Hardware) -> bool:
    """Padding-free packing under FlashAttention: on unless rows share prefixes, whose tree mask it cannot take."""
    return bool(job.packing and hw.flash_attention and job.optim.sharedPrefixRows <= 1)


def check_method(job: TrainJob, hw: Hardware) -> None:
    if job.optim.sharedPrefixRows > 1 and job.method == "dpo":
        raise BadJob("optim.sharedPrefixRows: rows share prefixes in SFT; DPO pairs do not (leave it out or 1)")
    if job.optim.loraPlusRatio is not None and job.method not in ("lora", "qlora"):
        raise BadJob(
            f"optim.loraPlusRatio: LoRA+ sets the learning rate of LoRA's B matrices in SFT (method lora or qlora), not method {job.method}"
        )
    if job.method == "qlora":
        if not hw.cuda:
            raise BadJob("method: qlora (4-bit NF4) needs a GPU; this machine has none (use lora)")
        if importlib.util.find_spec("bitsandbytes") is None:
            raise BadJob("method: qlora needs the bitsandbytes package (installed in the GPU worker image)")
        if job.baseModel.startswith("tiny:"):
            raise BadJob("method: qlora is for real base models, not tiny:<preset>")


def load_base(job: TrainJob, base_dir: Path, corpus: list[str], hw: Hardware):
    """Returns (model, tokenizer). tiny:<preset> is built (or reloaded) in base_dir; anything else is loaded
    with from_pretrained and never resized, so the adapter stays servable by vLLM."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    name = job.baseModel
    dtype = resolve_dtype(job.precision, hw, job.method)
    if name.startswith("tiny:"):
        model, tokenizer = tiny.build_or_load(name, base_dir, corpus, job.optim.maxLength, job.optim.seed)
        return model.to(dtype), tokenizer
    if is_packaged(name):
        # Loaded from the converted directory (the GPU worker puts the stored base-model artifact there).
        name = str(ensure_converted(name))
    elif "/" not in name and name.split("-")[0] in {p.split("-")[0] for p in PACKAGED}:
        raise BadJob(f"baseModel: unknown packaged base '{name}' (packaged: {', '.join(sorted(PACKAGED))})")

    looks_like_path = name.startswith((".", "/", "~")) or Path(name).exists()
    if looks_like_path and not Path(name).expanduser().is_dir():
        raise BadJob(f"baseModel: {name} is not a directory")
    if not looks_like_path and not HF_ID.match(name):
        raise BadJob(f"baseModel: '{name}' is neither tiny:<preset>, a local directory, nor a Hugging Face id")
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
    except Exception as err:  # noqa: BLE001 - classified below
        raise _classify_load_error(name, err) from err
    if not tokenizer.chat_template:
        raise BadJob(f"baseModel: {name} has no chat template; use an instruct/chat model")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token  # no new token: embeddings stay the base's size
    kwargs: dict[str, Any] = {"dtype": dtype}
    if padding_free(job, hw):
        kwargs["attn_implementation"] = "flash_attention_2"
    elif not hw.cuda:
        # On a CPU, a router row's short sequence trains faster through plain matmuls than through SDPA's flash
        # kernel: 1.11-1.26x the tokens/s for SmolLM2 (trainer/bench/cpu_step.py --attn, docs/benchmarks.md).
        kwargs["attn_implementation"] = "eager"
    if job.method == "qlora":
        import torch
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16,
        )
    try:
        model = AutoModelForCausalLM.from_pretrained(name, **kwargs)
    except Exception as err:  # noqa: BLE001
        raise _classify_load_error(name, err) from err
    return model, tokenizer


def _classify_load_error(name: str, err: Exception) -> Exception:
    """A missing or gated repository cannot succeed on retry; a network error can."""
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, (RepositoryNotFoundError, GatedRepoError)):
            return BadJob(f"baseModel: cannot load {name}: {type(cause).__name__}")
        cause = cause.__cause__ or cause.__context__
    if "does not appear to have" in str(err) or "is not a valid model identifier" in str(err):
        return BadJob(f"baseModel: cannot load {name}: {err}")
    return RuntimeError(f"baseModel: cannot load {name} (may be transient): {err}")
