"""Greedy decoding for `serve`, faster than generate() on a router's answers and token for token the same:

- prompt prefix reuse: requests share their opening (the router's system prompt; an agent's whole tool list),
  whose keys and values are kept from recent requests on the same model and reused, so only the rest of the
  prompt is computed;
- grammar drafts: where the constraint leaves only one way to go (`{"tool":"`, the rest of a tool name once its
  prefix is unique, `","arguments":{"`), that text is tokenized and checked by the model in one forward pass
  instead of one pass per token. Each drafted token is kept only while it is what greedy decoding would have
  chosen there (speculative decoding with the grammar as the draft), so the answer is exactly greedy's;
- prompt lookup drafts (Saxena, "Prompt Lookup Decoding", 2023): a router copies most of its answer from its
  prompt (ids, dates and amounts from the request, key names from the tool list, verdict codes from the system
  prompt), so the answer's last characters are looked up in the prompt and what followed them there is drafted
  after the grammar's text, checked the same way. On a CPU a pass over seven tokens costs ~5 % more than a pass
  over one (a small model's pass is mostly per-layer overhead), so a rejected draft costs little.

Asked for logprobs, each answer token's is read from the distribution it was chosen from (the priors mixed in,
normalised over what the constraint allows), as generate()'s processed scores give them. Sampling goes through
generate() (serve.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .constrain import RouterConstraint
from .data import common_prefix_length

# A shared opening shorter than this is recomputed: reusing it would save less than copying the cache costs.
MIN_REUSE = 16
# Grammar-forced characters drafted at once (a tool name and the keys around it fit).
MAX_DRAFT_CHARS = 64
# Prompt lookup: the answer's last characters, longest first, sought in the prompt; fewer than MIN match by chance.
MIN_LOOKUP_CHARS, MAX_LOOKUP_CHARS = 3, 24
# Tokens drafted from the prompt at once.
MAX_LOOKUP_TOKENS = 6


# One answer token's logprob and the likeliest tokens' (id, logprob) at its position, best first.
TokenScore = tuple[float, list[tuple[int, float]]]


@dataclass
class Decoded:
    """A greedy answer and what it cost: forward passes, prompt tokens reused, draft tokens tried and kept; with
    logprobs asked for, one TokenScore per answer token."""

    tokens: list[int]
    passes: int = 0
    reused: int = 0
    drafted: int = 0
    kept: int = 0
    scores: list[TokenScore] | None = None


@dataclass
class PrefixCache:
    """The keys and values of the last few prompts, per served model (base or adapter name), most recent last.
    Several, so callers that interleave (two agents, two personas) each find their own opening. Cleared when
    adapters change. A SmolLM2 prompt of 600 tokens holds ~28 MB."""

    capacity: int = 4
    entries: list[tuple[str | None, list[int], Any]] = field(default_factory=list)

    def take(self, model: str | None, ids: list[int]) -> tuple[int, Any]:
        """(tokens reused, cache holding them) for a prompt `ids`, from the entry sharing the longest opening with
        it; (0, None) when none shares MIN_REUSE tokens. That entry is taken out: the caller extends its cache
        and puts it back as the new prompt's."""
        best, shared = None, 0
        for i, (m, old, _) in enumerate(self.entries):
            # One prompt token is always computed: its logits pick the first answer token.
            n = common_prefix_length(old, ids[:-1]) if m == model else 0
            if n > shared:
                best, shared = i, n
        if best is None or shared < MIN_REUSE:
            return 0, None
        _, _, cache = self.entries.pop(best)
        truncate(cache, shared)
        return shared, cache

    def put(self, model: str | None, ids: list[int], cache: Any) -> None:
        truncate(cache, len(ids))
        self.entries.append((model, ids, cache))
        del self.entries[: -self.capacity]

    def clear(self) -> None:
        self.entries.clear()


def truncate(cache: Any, length: int) -> None:
    """Keep the first `length` positions of a DynamicCache (its crop takes how many to remove, as a negative)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


def forced_text(constraint: RouterConstraint, seq: list[int]) -> str:
    """The characters the constraint forces after `seq`: while exactly one character is allowed and the answer
    cannot end there."""
    parser = constraint._state(seq).parser
    text = ""
    while len(text) < MAX_DRAFT_CHARS and not parser.can_end():
        allowed = set(parser.get_allowed_characters())
        if len(allowed) != 1:
            break
        c = allowed.pop()
        text += c
        parser = parser.add_character(c)
    return text


def lookup_text(prompt_text: str, answer_text: str) -> str:
    """What followed the answer's last characters where they last occur in the prompt (the longest such ending of
    at least MIN_LOOKUP_CHARS); "" when none occurs. The last occurrence: the request comes after the tool list."""
    for n in range(min(MAX_LOOKUP_CHARS, len(answer_text)), MIN_LOOKUP_CHARS - 1, -1):
        at = prompt_text.rfind(answer_text[-n:])
        if at >= 0:
            return prompt_text[at + n : at + n + 4 * MAX_LOOKUP_TOKENS]
    return ""


def draft_tokens(
    tokenizer: Any,
    constraint: RouterConstraint | None,
    seq: list[int],
    answer: list[int],
    prompt_text: str | None,
    room: int,
) -> list[int]:
    """Tokens to check after `seq` in one pass: the grammar's forced text, then what the prompt had after it
    (at most MAX_LOOKUP_TOKENS of those; none without `prompt_text`), cut before an end of turn (a prompt holding
    earlier answers has them) and to `room` tokens."""
    forced = forced_text(constraint, seq) if constraint is not None else ""
    looked = lookup_text(prompt_text, tokenizer.decode(answer) + forced) if prompt_text is not None else ""
    if not forced and not looked:
        return []
    n_forced = len(tokenizer.encode(forced, add_special_tokens=False)) if forced else 0
    draft = tokenizer.encode(forced + looked, add_special_tokens=False)[: n_forced + MAX_LOOKUP_TOKENS]
    if tokenizer.eos_token_id in draft:
        draft = draft[: draft.index(tokenizer.eos_token_id)]
    return draft[:room]


def _choose(constraint: RouterConstraint | None, seq: list[int], logits, prior: Any = None) -> tuple[int, Any]:
    """Greedy's pick and the scores it was picked from (the logits with the request's priors mixed in, priors.py):
    the model's first choice when the constraint allows it, else the best allowed token."""
    import torch

    if prior is not None:
        logits = prior.mix(seq, logits)
    best = int(logits.argmax())
    if constraint is None or constraint.accepts(seq, best):
        return best, logits
    allowed = torch.tensor(constraint.allowed(seq), dtype=torch.long)
    return int(allowed[logits[allowed].argmax()]), logits


def token_score(constraint: RouterConstraint | None, seq: list[int], scores, token: int, top: int) -> TokenScore:
    """`token`'s logprob after `seq` and the `top` likeliest tokens', from `scores` (_choose's) normalised over
    what the constraint allows there: what generate() under RouterLogitsProcessor reports. The allowed set is
    cached per prefix by the constraint engine, so this costs little beside a forward pass."""
    import torch

    if constraint is not None:
        allowed = torch.tensor(constraint.allowed(seq), dtype=torch.long)
        masked = torch.full_like(scores, float("-inf"))
        masked[allowed] = scores[allowed]
        scores = masked
    return score_of(scores, token, top)


def score_of(scores, token: int, top: int) -> TokenScore:
    """`token`'s logprob and the `top` likeliest tokens' under one step's `scores` (what the constraint excluded
    at -inf)."""
    import torch

    logprobs = torch.log_softmax(scores.float(), dim=-1)
    values, ids = logprobs.topk(top)
    return logprobs[token].item(), list(zip(ids.tolist(), values.tolist()))


def greedy(
    model: Any,
    tokenizer: Any,
    prompt: list[int],
    max_new: int,
    constraint: RouterConstraint | None,
    prefixes: PrefixCache | None,
    key: str | None,
    drafts: bool = True,
    lookup: bool = True,
    prior: Any = None,
    logprobs: int | None = None,
) -> Decoded:
    """The greedy answer to `prompt` (token ids, eos included when it finished) from `model` as it is set up now
    (adapter chosen or disabled by the caller). `key` names that setup in `prefixes`; without `prefixes` nothing is
    reused or kept; without `lookup` only the grammar drafts, and without `drafts` every token takes its own pass
    (for benchmarks' baselines). `prior`: what priors.py mixes into this request's answer. `logprobs`: when set,
    each answer token's score with that many top tokens (Decoded.scores)."""
    import torch
    from transformers import DynamicCache

    eos = tokenizer.eos_token_id
    reused, cache = prefixes.take(key, prompt) if prefixes is not None else (0, None)
    prompt_text = tokenizer.decode(prompt) if drafts and lookup else None
    cache = cache if cache is not None else DynamicCache()
    device = model.device

    done = Decoded([], reused=reused, scores=[] if logprobs is not None else None)

    def take(token: int, scores) -> None:
        if done.scores is not None:
            done.scores.append(token_score(constraint, seq, scores, token, logprobs))
        seq.append(token)
        answer.append(token)

    def forward(tokens: list[int], last_only: bool = False):
        done.passes += 1
        # The prompt needs its last position's logits only: the LM head over a 49K vocabulary at every prompt
        # position would be a fifth of the prefill.
        out = model(
            input_ids=torch.tensor([tokens], device=device),
            cache=cache,
            use_cache=True,
            logits_to_keep=1 if last_only else 0,
        )
        return out.logits[0].float()

    logits = forward(prompt[reused:], last_only=True)[-1]
    seq, answer = list(prompt), done.tokens
    while len(answer) < max_new:
        take(*_choose(constraint, seq, logits, prior))
        token = answer[-1]
        if token == eos or len(answer) >= max_new:
            break
        draft = draft_tokens(tokenizer, constraint, seq, answer, prompt_text, max_new - len(answer)) if drafts else []
        done.drafted += len(draft)
        step = forward([token, *draft])
        kept = 0
        for i, d in enumerate(draft):
            token, scores = _choose(constraint, seq, step[i], prior)
            if token != d:
                break
            take(token, scores)
            kept += 1
        done.kept += kept
        if kept < len(draft):
            truncate(cache, len(seq))  # the rejected draft tokens' keys and values
        logits = step[kept]
    if prefixes is not None:
        prefixes.put(key, prompt, cache)  # only after a whole answer: a failed forward may leave it half-updated
    return done
