"""Where a router's call-or-not decision stands, read at the one token that carries it. After `{"tool":` a call
continues with `"` and a no-call with `null`; the first token where those two continuations differ is the decision.

  P(call)       the probability a model gives the call branch there (of the two), per expected label: a router
                that has learned the decision gives calls a high P(call) and no-calls a low one; one that has
                learned only a bias gives every label about the same
  linear probe  (--linear TRAIN.jsonl) logistic regression on the *base* model's hidden states at that position,
                fitted on N training rows and scored on the probed rows: whether the decision can be read off what
                the pretrained model already computes there (if so, training has to learn a readout, not new
                features)
  --decode      the whole answer, decoded greedily under the schema constraint on each side of the decision, and
                exact match per label twice: with the model's own decision (P(call) > 0.5), and with the decision
                forced to the right side. The second is what the router would score if it decided perfectly: it
                separates what the decision costs from what the rest of the answer (tool, arguments, code) costs

    PYTHONPATH=trainer .venv/bin/python trainer/bench/decision_probe.py --rendered TEST.jsonl [--adapter DIR]
        [--base smollm2-135m-instruct] [--n 60] [--linear TRAIN.jsonl --linear-n 200] [--decode]

Rows are rendered router-json rows (`flywheel artifacts get <rendered-test sha> rows.jsonl`), shuffled with a
fixed seed and cut to --n. DIR: a trained adapter or checkpoint (PEFT); without it the base is probed. The last
line: `decision: n=<n> acc=<x> pcall_calls=<x> pcall_nocalls=<x>`."""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

CALL, NO_CALL = '{"tool":"', '{"tool":null'
MAX_ANSWER = 160  # answer tokens decoded after the decision (the router's answers are ~20-60)


def load(path: str, n: int, seed: int) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    for i, r in enumerate(rows):
        answer = r["completion"][0]["content"] or ""
        if not answer.startswith('{"tool":'):
            raise SystemExit(f'{path}:{i + 1}: the answer does not start with {{"tool": (router-json rows only)')
    random.Random(seed).shuffle(rows)
    return rows[:n]


def label(row: dict) -> str:
    answer = json.loads(row["completion"][0]["content"])
    return "call" if answer.get("tool") else str(answer.get("code"))


@dataclass
class Decision:
    """A row tokenized in context up to its decision: the prompt, the prompt and answer up to the decision, and the
    call and no-call token there."""

    prompt: list[int]
    ids: list[int]
    call: int
    no_call: int


def decision_point(tok, row: dict) -> Decision:
    text = tok.apply_chat_template(
        row["prompt"], tools=row.get("tools") or None, tokenize=False, add_generation_prompt=True
    )
    prompt = tok(text, add_special_tokens=False)["input_ids"]
    call = tok(text + CALL, add_special_tokens=False)["input_ids"]
    no_call = tok(text + NO_CALL, add_special_tokens=False)["input_ids"]
    i = next(k for k, (a, b) in enumerate(zip(call, no_call)) if a != b)
    return Decision(prompt, call[:i], call[i], no_call[i])


def forced_answer(model, tok, data, row: dict, d: Decision, token: int) -> str:
    """The constrained greedy answer with the decision forced to `token`."""
    from flywheel_trainer.constrain import RouterConstraint
    from flywheel_trainer.decode import greedy

    if d.ids[: len(d.prompt)] != d.prompt:
        raise SystemExit(f"row {row.get('id')}: the prompt tokenizes differently before an answer; cannot force one")
    constraint = RouterConstraint(data, row.get("tools") or [])
    opening = [*d.ids[len(d.prompt) :], token]
    out = greedy(model, tok, constraint.begin(d.prompt, opening), MAX_ANSWER, constraint, None, None)
    return tok.decode(opening + out.tokens, skip_special_tokens=True)


def same_answer(got: str, want: str) -> bool:
    try:
        return json.loads(got) == json.loads(want)
    except json.JSONDecodeError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rendered", required=True, help="router-json rows to probe")
    ap.add_argument("--adapter", help="adapter or checkpoint directory (PEFT); absent: the base alone")
    ap.add_argument("--base", default="smollm2-135m-instruct", help="packaged base name, local directory or HF id")
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--linear", help="training rows for the linear probe on the base's hidden states")
    ap.add_argument("--linear-n", type=int, default=200)
    ap.add_argument(
        "--decode", action="store_true", help="decode each answer on both sides of the decision and score it"
    )
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from flywheel_trainer.packaged import ensure_converted, is_packaged

    source = str(ensure_converted(args.base)) if is_packaged(args.base) else args.base
    tok = AutoTokenizer.from_pretrained(source)
    base = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32).eval()
    model = base
    if args.adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(base, args.adapter).eval()
    rows = load(args.rendered, args.n, seed=1)

    by_label: dict[str, list[float]] = defaultdict(list)
    exact: dict[str, list[tuple[bool, bool]]] = defaultdict(list)  # (own decision, right decision) per label
    data = None
    if args.decode:
        from flywheel_trainer.constrain import tokenizer_data

        data = tokenizer_data(tok)
    right = 0
    for row in rows:
        d = decision_point(tok, row)
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor([d.ids])).logits[0, -1], -1)
        p = (probs[d.call] / (probs[d.call] + probs[d.no_call])).item()
        by_label[label(row)].append(p)
        is_call = label(row) == "call"
        right += (p > 0.5) == is_call
        if data is not None:
            want = row["completion"][0]["content"]
            with torch.no_grad():
                answers = {
                    t: same_answer(forced_answer(model, tok, data, row, d, t), want) for t in (d.call, d.no_call)
                }
            exact[label(row)].append(
                (answers[d.call if p > 0.5 else d.no_call], answers[d.call if is_call else d.no_call])
            )
    order = lambda kv: (kv[0] != "call", -len(kv[1]), kv[0])  # noqa: E731
    print(
        f"{'label':20s} {'n':>4s} {'P(call)':>8s}" + (f" {'exact':>6s} {'exact, right decision':>22s}" if exact else "")
    )
    for name, ps in sorted(by_label.items(), key=order):
        line = f"{name:20s} {len(ps):4d} {sum(ps) / len(ps):8.2f}"
        if exact:
            own, oracle = zip(*exact[name])
            line += f" {sum(own):3d}/{len(own):<2d} {sum(oracle):19d}/{len(oracle)}"
        print(line)
    if exact:
        pairs = [e for es in exact.values() for e in es]
        print(
            f"exact: own decision {sum(e[0] for e in pairs) / len(pairs):.3f}, right decision {sum(e[1] for e in pairs) / len(pairs):.3f} (n={len(pairs)})"
        )

    if args.linear:
        from contextlib import nullcontext

        with model.disable_adapter() if args.adapter else nullcontext():  # the base's own states
            linear_probe(model, tok, load(args.linear, args.linear_n, seed=2), rows)

    calls = by_label.get("call", [])
    no_calls = [p for name, ps in by_label.items() if name != "call" for p in ps]
    mean = lambda ps: sum(ps) / len(ps) if ps else float("nan")  # noqa: E731
    print(
        f"decision: n={len(rows)} acc={right / len(rows):.3f} pcall_calls={mean(calls):.2f} pcall_nocalls={mean(no_calls):.2f}"
    )


def linear_probe(model, tok, train: list[dict], probed: list[dict]) -> None:
    """Logistic regression (L2, LBFGS) on hidden states at the decision position, at a third, two thirds and the
    last of the base's layers; per label, the share of probed rows it decides right."""
    import torch

    layers = (model.get_base_model() if hasattr(model, "get_base_model") else model).config.num_hidden_layers
    picks = sorted({layers // 3, 2 * layers // 3, layers})

    def states(rows: list[dict]):
        out = {layer: [] for layer in picks}
        for row in rows:
            with torch.no_grad():
                hidden = model(torch.tensor([decision_point(tok, row).ids]), output_hidden_states=True).hidden_states
            for layer in picks:
                out[layer].append(hidden[layer][0, -1])
        return {layer: torch.stack(v) for layer, v in out.items()}

    x_train, x_probe = states(train), states(probed)
    y = torch.tensor([float(label(r) == "call") for r in train])
    truth = [label(r) == "call" for r in probed]
    print(
        f"linear probe on the base's hidden states, fitted on {len(train)} rows (majority {max(sum(truth), len(truth) - sum(truth)) / len(truth):.3f}):"
    )
    for layer in picks:
        mu, sd = x_train[layer].mean(0), x_train[layer].std(0) + 1e-6
        a, b = (x_train[layer] - mu) / sd, (x_probe[layer] - mu) / sd
        w = torch.zeros(a.shape[1], requires_grad=True)
        bias = torch.zeros(1, requires_grad=True)
        opt = torch.optim.LBFGS([w, bias], max_iter=500)

        def closure(opt=opt, a=a, w=w, bias=bias):  # this iteration's probe; opt.step calls it with no arguments
            opt.zero_grad()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(a @ w + bias, y) + 1e-2 * (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)
        with torch.no_grad():
            predicted = ((b @ w + bias) > 0).tolist()
        per: dict[str, list[bool]] = defaultdict(list)
        for row, guess, want in zip(probed, predicted, truth):
            per[label(row)].append(guess == want)
        shares = " ".join(
            f"{name}={sum(v)}/{len(v)}"
            for name, v in sorted(per.items(), key=lambda kv: (kv[0] != "call", -len(kv[1])))
        )
        print(f"  layer {layer:3d}: acc {sum(p == t for p, t in zip(predicted, truth)) / len(truth):.3f}  {shares}")


if __name__ == "__main__":
    main()
