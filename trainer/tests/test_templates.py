"""The completion mask under real models' chat templates (the originals TRL ships for identity comparison):
Llama 3.x (tools in the first user turn), Phi-3 (no tool support), Qwen 2.5 and Qwen 3 (tools in the system
turn). The tiny tokenizer stands in for each model's own: the templates' special tokens become ordinary text,
which is enough to check where loss starts and that the whole answer and its end-of-turn marker get it."""

from __future__ import annotations

from pathlib import Path

import pytest
import trl

from flywheel_trainer.data import corpus_texts, encode_row, load_rows
from flywheel_trainer.tiny import train_tokenizer

TEMPLATES = Path(trl.__file__).resolve().parent / "chat_templates"
# What each template appends after the answer: the end-of-turn marker the model must learn to emit.
END_OF_TURN = {
    "llama3_1": "<|eot_id|>",
    "llama3_2": "<|eot_id|>",
    "phi3": "<|end|>",
    "qwen2_5": "<|im_end|>",
    "qwen3": "<|im_end|>",
}


@pytest.mark.parametrize("name", sorted(END_OF_TURN))
def test_loss_covers_exactly_the_answer_under_real_chat_templates(dataset, name):
    rows = load_rows(dataset["train"])[:12]
    tokenizer = train_tokenizer(corpus_texts(rows), 2048)
    tokenizer.chat_template = (TEMPLATES / f"{name}.jinja").read_text()
    for row in rows:
        enc = encode_row(tokenizer, row)
        start = enc["completion_mask"].index(1)
        assert all(enc["completion_mask"][start:]), "the mask is one contiguous span at the end"
        answer = row.completion[0]["content"]
        trained = tokenizer.decode(enc["input_ids"][start:])
        masked = tokenizer.decode(enc["input_ids"][:start])
        assert answer in trained, (name, trained)
        assert answer not in masked
        assert END_OF_TURN[name] in trained[trained.index(answer) + len(answer) :], (name, trained)
        # Beyond the answer and its end marker, at most a few characters the template adds (a newline, an
        # empty think block) or a BPE merge across the boundary get loss.
        assert len(trained) - len(answer) - len(END_OF_TURN[name]) <= 40, (name, trained)
