"""Priors mixed into the router's next-token distribution at answer time, p = (1 - w) p_model + w p_prior, only
where they have a view: the retrieval prior on the decision (examples.py) and the copy prior here, on values.

The copy prior: a router copies ids, numbers and names from the request into its arguments, and a small one
miscounts long runs (a Salesforce id's eight zeros become seven, 20234 becomes 2024). Where the answer's last word
(its trailing run of letters and digits, two or more, inside the arguments) is the start of a longer word in the
request's user turns or tool results, and is not itself a word there, the rest of that word's first token gets the
weight; several such words share it. Whether a value ends where a request's word ends stays the model's call (the
prior is silent once the run is a whole word there): a pointer-generator's copy (Gu et al. 2016, See et al. 2017)
reduced to a lookup."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# `flywheel serve --copy-weight`. At 0.5 the copy wins mid-word unless the model is certain of another token; at 0.3
# (a model 0.43 surer of another token keeps it) three of the five miscounted Salesforce ids the copy fixes stayed
# miscounted (docs/benchmarks.md). Where a value may end, the prior is silent.
DEFAULT_COPY_WEIGHT = 0.5
MIN_RUN = 2
_WORD = re.compile(r"[A-Za-z0-9]+")
_TRAILING_WORD = re.compile(r"[A-Za-z0-9]+$")
ARGUMENTS = '"arguments":'


# A prior never takes the whole distribution: among the tokens it does not name (all of them, where the
# constraint refuses its choice) the model's order must survive. Also keeps 1 - weight positive.
MAX_WEIGHT = 0.99


def mix_in(logits, shares: dict[int, float], weight: float):
    """log((1 - weight) softmax(logits) + weight q), q the normalised `shares` over token ids; weight at most
    MAX_WEIGHT. Computed in log space, so a token whose probability underflows keeps a finite score and the
    model's order among the tokens the prior does not name survives (the constraint may refuse every one it
    names)."""
    import math

    import torch

    weight = min(max(weight, 0.0), MAX_WEIGHT)
    total = sum(shares.values())
    out = torch.log_softmax(logits.float(), dim=-1) + math.log1p(-weight)
    if weight <= 0 or total <= 0:
        return out
    for token, share in shares.items():
        out[token] = torch.logaddexp(out[token], torch.tensor(math.log(weight * share / total)))
    return out


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts (as OpenAI SDKs send them)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def source_text(messages: list[dict[str, Any]]) -> str:
    """Where argument values come from: the user turns and tool results (not the system prompt and tool list)."""
    return "\n".join(text_of(m.get("content")) for m in messages if m.get("role") in ("user", "tool"))


def encode_continuation(tokenizer: Any, text: str) -> list[int]:
    """`text`'s tokens as they follow other text, not as a text's start: a SentencePiece tokenizer marks a start
    with a space (▁), which an answer continuing mid-line does not have. Encoded after a quote and cut there when
    the quote's tokens are a prefix; else encoded alone."""
    opening = tokenizer.encode('"', add_special_tokens=False)
    ids = tokenizer.encode('"' + text, add_special_tokens=False)
    if ids[: len(opening)] == opening and len(ids) > len(opening):
        return ids[len(opening) :]
    return tokenizer.encode(text, add_special_tokens=False)


@dataclass
class CopyPrior:
    tokenizer: Any
    words: frozenset[str]  # every word of the request, whatever its length
    weight: float
    n_prompt: int

    @classmethod
    def build(cls, tokenizer: Any, text: str, weight: float, n_prompt: int) -> "CopyPrior | None":
        words = frozenset(_WORD.findall(text))
        return cls(tokenizer, words, weight, n_prompt) if any(len(w) > MIN_RUN for w in words) and weight > 0 else None

    def continuations(self, answer_text: str) -> list[str]:
        """The rest of each request word the answer's last word begins (none before the arguments)."""
        at = answer_text.find(ARGUMENTS)
        if at < 0:
            return []
        m = _TRAILING_WORD.search(answer_text, at + len(ARGUMENTS))
        if m is None or len(m.group()) < MIN_RUN:
            return []
        run = m.group()
        if run in self.words:
            return []  # a whole word there: the value may end here
        return sorted(w[len(run) :] for w in self.words if len(w) > len(run) and w.startswith(run))

    def mix(self, seq: list[int], logits):
        answer = seq[self.n_prompt :]
        rests = self.continuations(self.tokenizer.decode(answer)) if answer else []
        if not rests:
            return logits
        shares: dict[int, float] = {}
        for rest in rests:
            token = encode_continuation(self.tokenizer, rest)[0]
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
