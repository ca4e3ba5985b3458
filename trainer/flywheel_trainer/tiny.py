"""tiny:<preset> base models: a small Llama-architecture model built from a config, with a byte-level BPE
tokenizer trained on the training corpus and a ChatML chat template with tools.

This is the embedded default where no weights can be downloaded. The built base (weights + tokenizer) is
saved next to the run's outputs so that a resumed run and the server load exactly the same model."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import BadJob

CHAT_TEMPLATE = (Path(__file__).resolve().parent / "chat_template.jinja").read_text()
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


@dataclass(frozen=True)
class TinyPreset:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int


PRESETS: dict[str, TinyPreset] = {
    # ~0.3M parameters: tests and the CPU demo.
    "nano": TinyPreset(2048, 64, 192, 2, 4, 2),
    # ~2M parameters.
    "micro": TinyPreset(4096, 128, 384, 4, 4, 2),
    # ~12M parameters: a CPU run that can learn the routing format.
    "small": TinyPreset(8192, 256, 768, 6, 8, 4),
}


def preset(base_model: str) -> TinyPreset:
    name = base_model.removeprefix("tiny:")
    if name not in PRESETS:
        raise BadJob(f"baseModel: unknown tiny preset '{name}' (known: {', '.join('tiny:' + p for p in PRESETS)})")
    return PRESETS[name]


def train_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer (GPT-2 style) trained on `texts`, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(p: TinyPreset, vocab_size: int, max_length: int, seed: int):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=p.hidden_size,
        intermediate_size=p.intermediate_size,
        num_hidden_layers=p.num_hidden_layers,
        num_attention_heads=p.num_attention_heads,
        num_key_value_heads=p.num_key_value_heads,
        max_position_embeddings=max(max_length, 512),
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=2,  # <|im_end|>
        pad_token_id=0,  # <|endoftext|>
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config)


def build_or_load(base_model: str, base_dir: Path, texts: list[str], max_length: int, seed: int):
    """Build the tiny base into base_dir (model + tokenizer), or load it if base_dir already holds the same
    preset. Returns (model, tokenizer)."""
    from transformers import AutoTokenizer, LlamaForCausalLM

    p = preset(base_model)
    marker = base_dir / "flywheel-tiny.json"
    spec = {"baseModel": base_model, "preset": asdict(p), "seed": seed}
    if marker.is_file() and json.loads(marker.read_text()) == spec:
        return LlamaForCausalLM.from_pretrained(base_dir), AutoTokenizer.from_pretrained(base_dir)
    tokenizer = train_tokenizer(texts, p.vocab_size)
    model = build_model(p, len(tokenizer), max_length, seed)
    model.config._name_or_path = base_model
    base_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(base_dir)
    tokenizer.save_pretrained(base_dir)
    marker.write_text(json.dumps(spec, indent=2))  # written last: a half-built base is rebuilt
    return model, tokenizer
