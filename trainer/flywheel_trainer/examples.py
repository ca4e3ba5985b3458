"""The retrieval prior: an adapter's own training requests, looked up at answer time, vote on its first decision.

A small router trained for a few hundred steps has seen a fraction of its rows once; the rows themselves say
which tool (or which no-call) requests like this one were taught. As in kNN-LM (Khandelwal et al., "Generalization
through Memorization", 2020), the model's next-token distribution is interpolated with one read off the nearest
training examples, p = (1 - λ) p_model + λ p_examples, but only along the decision's tokens: `{"tool":"NAME"`
for a call, the whole `{"tool":null,"verdict":V,"code":C}` for a no-call. The arguments stay the model's.

Neighbours are found by TF-IDF cosine over the request's user turns (words, numbers and word pairs), the k most
similar voting with their similarity. λ is scaled by the best similarity, so a request unlike any training row
(hand-typed, another phrasing) is left to the model."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .priors import encode_continuation, mix_in, text_of

EXAMPLES_FILE = "examples.jsonl"  # in the adapter directory, written by the trainer (train.py)
# λ at similarity 1; `flywheel serve --retrieval-weight`. Chosen on the demo's validation split (172 rows, not the
# test set): 0.5 / 0.8 / 1.0 scored 0.558 / 0.593 / 0.576 exact, tool accuracy 0.703 / 0.750 / 0.750.
DEFAULT_WEIGHT = 0.8
TOP_K = 10

_WORD = re.compile(r"[a-z]+|\d+")


def request_text(messages: list[dict[str, Any]]) -> str:
    """What a request asks, for lookup: its user turns (the system prompt and tool results are the same kind of
    text for every request)."""
    return "\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")


def decision_of(answer: str) -> str | None:
    """The decision opening of a router-JSON answer as trained: `{"tool":"NAME"` or the whole no-call; None when
    the answer is not router JSON written tool first."""
    try:
        obj = json.loads(answer)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not answer.startswith('{"tool":'):
        return None
    tool = obj.get("tool")
    if isinstance(tool, str):
        opening = '{"tool":' + json.dumps(tool, ensure_ascii=False)
        return opening if answer.startswith(opening) else None
    return answer if tool is None else None


def examples_of(rows: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    """{"text", "decision"} for each router-JSON training row (prompt and completion as data.py reads them)."""
    out = []
    for row in rows:
        completion = row.get("completion") or []
        answer = completion[0].get("content") if completion and isinstance(completion[0], dict) else None
        decision = decision_of(answer) if isinstance(answer, str) else None
        text = request_text(row.get("prompt") or [])
        if decision and text:
            out.append({"text": text, "decision": decision})
    return out


def write_examples(rows: Iterable[dict[str, Any]], path: Path) -> int:
    examples = examples_of(rows)
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples), encoding="utf-8")
    return len(examples)


def _features(text: str) -> Counter:
    words = _WORD.findall(text.lower())
    return Counter(words + [a + " " + b for a, b in zip(words, words[1:])])


class ExampleIndex:
    """TF-IDF vectors of the training requests, with each one's decision."""

    def __init__(self, examples: list[dict[str, str]]):
        self.decisions = [e["decision"] for e in examples]
        features = [_features(e["text"]) for e in examples]
        df = Counter(k for f in features for k in f)
        n = len(examples)
        self.idf = {k: math.log((n + 1) / (c + 1)) + 1 for k, c in df.items()}
        self.unseen_idf = math.log(n + 1) + 1
        self.vectors = [self._vector(f) for f in features]
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, v in enumerate(self.vectors):
            for k, x in v.items():
                self.postings.setdefault(k, []).append((i, x))

    @classmethod
    def load(cls, adapter_dir: Path) -> "ExampleIndex | None":
        path = adapter_dir / EXAMPLES_FILE
        if not path.is_file():
            return None
        examples = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{n}: not JSON: {err}") from None
            if not isinstance(e, dict) or not isinstance(e.get("text"), str) or not isinstance(e.get("decision"), str):
                raise ValueError(f"{path}:{n}: an example needs string fields text and decision")
            if _decision_tool(e["decision"]) is False:
                raise ValueError(
                    f'{path}:{n}: decision {e["decision"][:80]!r} is neither {{"tool":"NAME" nor a router-JSON no-call'
                )
            examples.append(e)
        return cls(examples) if examples else None

    def _vector(self, f: Counter) -> dict[str, float]:
        v = {k: (1 + math.log(c)) * self.idf.get(k, self.unseen_idf) for k, c in f.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {k: x / norm for k, x in v.items()}

    def vote(self, text: str, allowed, k: int = TOP_K) -> tuple[dict[str, float], float]:
        """(decision → summed similarity of the k nearest examples whose decision `allowed` accepts, the best
        similarity among them)."""
        scores: dict[int, float] = {}
        for key, x in self._vector(_features(text)).items():
            for i, y in self.postings.get(key, ()):
                scores[i] = scores.get(i, 0.0) + x * y
        ranked = sorted(((s, i) for i, s in scores.items() if allowed(self.decisions[i])), reverse=True)[:k]
        votes: dict[str, float] = {}
        for s, i in ranked:
            votes[self.decisions[i]] = votes.get(self.decisions[i], 0.0) + s
        return votes, (ranked[0][0] if ranked else 0.0)


def callable_decision(nameable: set[str]):
    """Whether a decision may be answered to a request that lets the router name `nameable` tools."""

    def allowed(decision: str) -> bool:
        tool = _decision_tool(decision)
        return tool is None or tool in nameable

    return allowed


def _decision_tool(decision: str) -> str | None | bool:
    """The tool a decision names; None for a no-call; False when it is neither (a damaged examples.jsonl)."""
    if decision.startswith('{"tool":null'):
        return None if decision_of(decision) == decision else False
    try:
        tool = json.loads(decision + "}").get("tool")
    except (json.JSONDecodeError, AttributeError):
        return False
    return tool if isinstance(tool, str) and decision == '{"tool":' + json.dumps(tool, ensure_ascii=False) else False


@dataclass
class DecisionPrior:
    """The examples' vote as token paths: each decision's tokens as training tokenized them, with its share."""

    paths: list[tuple[list[int], float]]
    weight: float  # λ for this request
    n_prompt: int  # where the answer starts in a sequence

    @classmethod
    def build(cls, tokenizer: Any, votes: dict[str, float], weight: float, n_prompt: int) -> "DecisionPrior | None":
        total = sum(votes.values())
        if total <= 0 or weight <= 0:
            return None
        paths = []
        for decision, w in votes.items():
            if decision.startswith('{"tool":null'):
                ids = encode_continuation(tokenizer, decision)
            else:  # the token holding the name's closing quote may run on into `,"`: tokenize what follows too
                ids = _covering(tokenizer, decision + ',"arguments":', len(decision))
            paths.append((ids, w / total))
        return cls(paths, weight, n_prompt)

    def mix(self, seq: list[int], logits):
        """`logits` (the model's, one position) as the log of the interpolated distribution after `seq`; unchanged
        where no decision's path continues from the answer so far."""
        answer = seq[self.n_prompt :]
        n = len(answer)
        nxt: dict[int, float] = {}
        for ids, w in self.paths:
            if len(ids) > n and ids[:n] == answer:
                nxt[ids[n]] = nxt.get(ids[n], 0.0) + w
        return mix_in(logits, nxt, self.weight) if nxt else logits


def _covering(tokenizer: Any, text: str, length: int) -> list[int]:
    """The tokens of `text` up to and including the one that covers character `length - 1`."""
    ids = encode_continuation(tokenizer, text)
    out, seen = [], 0
    for token in ids:
        out.append(token)
        seen = len(tokenizer.decode(out))
        if seen >= length:
            break
    return out
