"""Priors mixed into the router's next-token distribution at answer time, p = (1 - w) p_model + w p_prior, only
where they have a view: the retrieval prior on the decision (examples.py) and the copy prior here, on values.

The copy prior: a router copies ids, numbers and names from the request into its arguments, and a small one
miscounts long runs (a Salesforce id's eight zeros become seven, 20234 becomes 2024). Where the answer's last word
(its trailing run of letters and digits, two or more, inside the arguments) is the start of a longer word in the
request's user turns or tool results, the rest of that word's first token gets the weight; several such words
share it. Whether a value ends where the request's word ends, or goes on past it, stays the model's call: the
prior only speaks mid-word (a pointer-generator's copy, Gu et al. 2016 / See et al. 2017, reduced to a lookup)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

DEFAULT_COPY_WEIGHT = 0.5  # `flywheel serve --copy-weight`
MIN_RUN = 2
_WORD = re.compile(r"[A-Za-z0-9]+")
_TRAILING_WORD = re.compile(r"[A-Za-z0-9]+$")
ARGUMENTS = '"arguments":'


def mix_in(logits, shares: dict[int, float], weight: float):
    """log((1 - weight) softmax(logits) + weight q), q the normalised `shares` over token ids."""
    import torch

    total = sum(shares.values())
    probs = torch.softmax(logits.float(), dim=-1) * (1 - weight)
    for token, share in shares.items():
        probs[token] += weight * share / total
    return torch.log(probs)


def source_text(messages: list[dict[str, Any]]) -> str:
    """Where argument values come from: the user turns and tool results (not the system prompt and tool list)."""
    return "\n".join(m["content"] for m in messages if m.get("role") in ("user", "tool") and isinstance(m.get("content"), str))


@dataclass
class CopyPrior:
    tokenizer: Any
    words: frozenset[str]
    weight: float
    n_prompt: int

    @classmethod
    def build(cls, tokenizer: Any, text: str, weight: float, n_prompt: int) -> "CopyPrior | None":
        words = frozenset(w for w in _WORD.findall(text) if len(w) > MIN_RUN)
        return cls(tokenizer, words, weight, n_prompt) if words and weight > 0 else None

    def continuations(self, answer_text: str) -> list[str]:
        """The rest of each request word the answer's last word begins (none before the arguments)."""
        at = answer_text.find(ARGUMENTS)
        if at < 0:
            return []
        m = _TRAILING_WORD.search(answer_text, at + len(ARGUMENTS))
        if m is None or len(m.group()) < MIN_RUN:
            return []
        run = m.group()
        return sorted(w[len(run):] for w in self.words if len(w) > len(run) and w.startswith(run))

    def mix(self, seq: list[int], logits):
        answer = seq[self.n_prompt :]
        rests = self.continuations(self.tokenizer.decode(answer)) if answer else []
        if not rests:
            return logits
        shares: dict[int, float] = {}
        for rest in rests:
            token = self.tokenizer.encode(rest, add_special_tokens=False)[0]
            shares[token] = shares.get(token, 0.0) + 1.0
        return mix_in(logits, shares, self.weight)


@dataclass
class Chain:
    """Priors applied one after the other."""

    priors: list[Any]

    def mix(self, seq: list[int], logits):
        for prior in self.priors:
            logits = prior.mix(seq, logits)
        return logits


def chain(*priors: Any) -> Any:
    present = [p for p in priors if p is not None]
    return None if not present else present[0] if len(present) == 1 else Chain(present)
