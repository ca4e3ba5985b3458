"""Training on a tiny model: completion-only loss, loss goes down, outputs are servable, bad jobs fail fast."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flywheel_trainer.data import Row, encode_row, load_rows
from flywheel_trainer.errors import BadJob
from flywheel_trainer.train import build_trainer, run_training

from conftest import make_job


def test_every_prompt_token_label_is_ignored(tmp_path, dataset):
    job = make_job(tmp_path, dataset)
    trainer, tokenizer = build_trainer(job)
    rows = load_rows(dataset["train"])
    examples = list(trainer.train_dataset)
    assert len(examples) == len(rows)
    for row, ex in zip(rows, examples):
        prompt_text = tokenizer.apply_chat_template(
            row.prompt, tools=row.tools, tokenize=False, add_generation_prompt=True
        )
        n_prompt = len(tokenizer(prompt_text, add_special_tokens=False)["input_ids"])
        labels, ids = ex["labels"], ex["input_ids"]
        assert all(label == -100 for label in labels[:n_prompt]), f"{row.id}: a prompt token carries loss"
        assert labels[n_prompt:] == ids[n_prompt:], f"{row.id}: a completion token is masked"
        # The trained span is exactly the assistant's answer and its end-of-turn token.
        assert tokenizer.decode(ids[n_prompt:]) == row.completion[0]["content"] + "<|im_end|>\n"

    # The collator TRL uses keeps the mask and ignores padding as well.
    batch = trainer.data_collator(examples[:4])
    for i, ex in enumerate(examples[:4]):
        n = len(ex["input_ids"])
        assert batch["labels"][i, :n].tolist() == ex["labels"]
        assert (batch["labels"][i, n:] == -100).all()


def test_mask_starts_where_prompt_and_full_rendering_diverge():
    class Template:
        """A template that renders the prompt alone differently (like some Llama 3 templates)."""

        def apply_chat_template(self, messages, tools, tokenize, add_generation_prompt):
            text = "|".join(m["content"] for m in messages)
            return text + ("|gen" if add_generation_prompt else "")

        def __call__(self, text, add_special_tokens):
            return {"input_ids": [ord(c) for c in text]}

    row = Row("r", [{"role": "user", "content": "ab"}], [{"role": "assistant", "content": "xy"}], [])
    enc = encode_row(Template(), row)
    assert enc["input_ids"] == [ord(c) for c in "ab|xy"]
    assert enc["completion_mask"] == [0, 0, 0, 1, 1]


def test_tiny_training_reduces_eval_loss_and_writes_a_servable_adapter(tmp_path, dataset):
    job = make_job(tmp_path, dataset, optim={"maxSteps": 24, "learningRate": 0.005})
    adapter = run_training(job)
    events = [json.loads(line) for line in (Path(job.outputDir) / "metrics.jsonl").read_text().splitlines()]
    evals = [e for e in events if e["event"] == "eval"]
    assert evals[0]["step"] == 0
    done = events[-1]
    assert done["event"] == "done" and done["step"] == 24
    assert done["eval_loss"] < evals[0]["eval_loss"] * 0.9, (evals[0], done)
    steps = [e for e in events if e["event"] == "step"]
    assert all({"step", "total", "epoch", "loss", "lr", "tokens_per_s"} <= set(e) for e in steps)
    assert [e["checkpoint"] for e in events if e["event"] == "checkpoint"][0].endswith("checkpoint-6")

    config = json.loads((adapter / "adapter_config.json").read_text())
    assert config["r"] == 16 and config["lora_alpha"] == 32
    assert sorted(config["target_modules"]) == sorted(job.lora.targetModules)
    assert not config.get("modules_to_save")
    for name in ("adapter_model.safetensors", "tokenizer.json", "chat_template.jinja", "flywheel.json"):
        assert (adapter / name).is_file(), name
    meta = json.loads((adapter / "flywheel.json").read_text())
    assert meta["base"] == "../base" and (adapter / meta["base"] / "model.safetensors").is_file()
    assert not (adapter.parent / "adapter.tmp").exists()


def _bad(tmp_path, dataset, **over) -> str:
    with pytest.raises(BadJob) as err:
        build_trainer(make_job(tmp_path, dataset, **over))
    return str(err.value)


def test_bad_jobs_fail_before_training_with_a_clear_message(tmp_path, dataset):
    assert "unknown tiny preset 'huge'" in _bad(tmp_path, dataset, baseModel="tiny:huge")
    assert "is not a directory" in _bad(tmp_path, dataset, baseModel=str(tmp_path / "no-such-model"))
    assert "neither tiny:<preset>" in _bad(tmp_path, dataset, baseModel="not a model id!")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "dataset is empty" in _bad(tmp_path, dataset, data={"train": str(empty), "val": dataset["val"]})
    msg = _bad(tmp_path, dataset, optim={"maxLength": 64})
    assert "longer than optim.maxLength=64" in msg and "row-0 (" in msg
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": [], "completion": []}\n')
    assert f"{broken}:1: field 'prompt'" in _bad(tmp_path, dataset, data={"train": str(broken), "val": dataset["val"]})
    assert "qlora (4-bit NF4) needs a GPU" in _bad(tmp_path, dataset, method="qlora")


def test_a_cpu_with_native_bf16_holds_a_frozen_base_in_bf16_without_autocast(tmp_path, dataset):
    import torch

    from flywheel_trainer.model import Hardware, resolve_dtype
    from flywheel_trainer.training_args import training_args

    cpu16 = Hardware(cuda=False, bf16=False, flash_attention=False, cpu_bf16=True)
    cpu = Hardware(cuda=False, bf16=False, flash_attention=False)
    assert resolve_dtype("auto", cpu16, "lora") == resolve_dtype("bf16", cpu16, "dpo") == torch.bfloat16
    assert resolve_dtype("auto", cpu16, "full") == torch.float32, (
        "every weight trains: bf16 would round the updates away"
    )
    assert resolve_dtype("auto", cpu, "lora") == resolve_dtype("fp32", cpu16, "lora") == torch.float32
    with pytest.raises(BadJob, match="needs native bf16"):
        resolve_dtype("bf16", cpu, "lora")
    with pytest.raises(BadJob, match="not method full"):
        resolve_dtype("bf16", cpu16, "full")
    for precision in ("auto", "bf16"):
        args = training_args(make_job(tmp_path, dataset, precision=precision), cpu16, tmp_path, False)
        assert args["bf16"] is False and args["fp16"] is False, "no autocast on a CPU: it casts every weight every pass"


def test_local_base_directory_full_fine_tune_and_merged_export(tmp_path, dataset):
    # A tiny run's saved base is a local model directory with its own chat template: the path real models take.
    first = make_job(tmp_path / "a", dataset, optim={"maxSteps": 2})
    run_training(first)
    base_dir = str(Path(first.outputDir) / "base")

    lora = make_job(tmp_path / "b", dataset, baseModel=base_dir, optim={"maxSteps": 2}, mergedExport=True)
    adapter = run_training(lora)
    config = json.loads((adapter / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == base_dir
    assert json.loads((adapter / "flywheel.json").read_text())["base"] == base_dir
    merged = Path(lora.outputDir) / "merged"
    assert (merged / "model.safetensors").is_file() and not (merged / "adapter_config.json").exists()
    assert not (Path(lora.outputDir) / "base").exists(), "a real base is never copied"

    full = make_job(tmp_path / "c", dataset, baseModel=base_dir, method="full", optim={"maxSteps": 2})
    model_dir = run_training(full)
    assert (model_dir / "model.safetensors").is_file() and not (model_dir / "adapter_config.json").exists()


def test_on_a_cpu_the_lm_head_scores_answer_tokens_only_and_the_loss_is_the_same(tmp_path, dataset):
    """score_answer_tokens_only: TRL's head over the labelled positions only, on a CPU; same loss as over all."""
    import torch
    import trl.trainer.utils as trl_utils

    trainer, _ = build_trainer(make_job(tmp_path, dataset))
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(4)])
    model = trainer.model
    model.eval()
    losses = {}
    patched = trl_utils._use_triton
    for name, use in (("answer only", patched), ("every position", lambda device: False)):
        trl_utils._use_triton = use
        with torch.no_grad():
            out = model(
                input_ids=batch["input_ids"],
                attention_mask=batch["attention_mask"],
                labels=batch["labels"],
                fused_lm_head=True,
            )
        losses[name] = (-out.log_probs.sum() / out.label_mask.sum()).item()
    trl_utils._use_triton = patched
    assert patched(torch.device("cpu")) is True
    assert losses["answer only"] == pytest.approx(losses["every position"], rel=1e-5)


def test_the_private_trl_patch_applies_only_to_the_pinned_release(monkeypatch):
    """score_answer_tokens_only patches a private TRL function: only on the release it was written for, which
    requirements.txt pins; on any other it leaves TRL alone and says so."""
    import trl
    import trl.trainer.utils as trl_utils

    from flywheel_trainer.train import PATCHED_TRL, score_answer_tokens_only

    pins = (Path(__file__).resolve().parent.parent / "requirements.txt").read_text().splitlines()
    assert f"trl=={PATCHED_TRL}" in pins
    monkeypatch.delattr(trl_utils, "_flywheel_compact", raising=False)
    monkeypatch.setattr(trl, "__version__", "99.0.0")
    before = trl_utils._use_triton
    with pytest.warns(UserWarning, match="TRL 99.0.0 is not"):
        assert score_answer_tokens_only() is False
    assert trl_utils._use_triton is before


def test_top_layers_eval_rows_and_whole_sequence_loss(tmp_path, dataset):
    """lora.topLayers adapts only the last layers; optim.maxEvalRows samples the validation rows; completionOnlyLoss
    false puts the prompt under the loss too (the study's ablation)."""
    job = make_job(tmp_path, dataset, lora={"topLayers": 1}, optim={"maxEvalRows": 5, "completionOnlyLoss": False})
    trainer, _ = build_trainer(job)
    adapted = {
        n.split(".layers.")[1].split(".")[0]
        for n, p in trainer.model.named_parameters()
        if p.requires_grad and "lora_" in n
    }
    layers = trainer.model.get_base_model().config.num_hidden_layers
    assert adapted == {str(layers - 1)}, f"only the last of {layers} layers: {adapted}"
    assert len(trainer.eval_dataset) == 5
    assert trainer.args.completion_only_loss is False
    with pytest.raises(BadJob, match=r"lora.topLayers: 9 is more than the base's 2 layers"):
        build_trainer(make_job(tmp_path / "b", dataset, lora={"topLayers": 9}))


def test_decision_spans_cover_the_call_or_not_choice_tool_verdict_and_code():
    from flywheel_trainer.data import decision_spans

    def covered(answer):
        return [answer[a:b] for a, b in decision_spans(answer)]

    assert covered('{"tool":"get_invoice","arguments":{"number":"7"}}') == [':"get_invoice"']
    assert covered('{"tool":null,"verdict":"abstain","code":"no_tool"}') == [":null", ':"abstain"', ':"no_tool"']
    # hermes: only the top-level name; a "name" inside the arguments is a value copied from the request
    assert covered('<tool_call>\n{"arguments":{"name":"x","code":1},"name":"get_invoice"}\n</tool_call>') == [
        ':"get_invoice"'
    ]
    assert covered('{ "tool" : "a" , "arguments" : {} }') == [': "a"']
    assert covered("no JSON here") == [] and covered('{"tool":"a", broken') == [':"a"']


def test_decision_weight_weighs_the_decision_tokens_in_the_training_loss_only(tmp_path, dataset):
    """optim.decisionWeight: the answer tokens that decide weigh w, the rest 1; the loss is sum(w x NLL) / tokens,
    computed through TRL's fused head (the shift checked against full logits); eval loss stays unweighted."""
    import torch

    plain, _ = build_trainer(make_job(tmp_path / "plain", dataset))
    assert "loss_weight" not in plain.train_dataset.column_names
    # float32: the fused head and the reference below agree to 1e-4 there, not in bf16
    trainer, tokenizer = build_trainer(
        make_job(tmp_path / "w", dataset, precision="fp32", optim={"decisionWeight": 4.0})
    )
    assert "loss_weight" not in trainer.eval_dataset.column_names
    examples = [trainer.train_dataset[i] for i in range(4)]
    for ex in examples:
        weighted = tokenizer.decode([t for t, w in zip(ex["input_ids"], ex["loss_weight"]) if w == 4.0])
        assert weighted and all(w == 1.0 for w, label in zip(ex["loss_weight"], ex["labels"]) if label == -100)
        assert (
            "get_invoice" in weighted
            or "create_case" in weighted
            or "list_accounts" in weighted
            or "no_tool" in weighted
        )
        assert "printer broken" not in weighted and "arguments" not in weighted

    loader = trainer.get_train_dataloader()
    batch = next(iter(loader))
    assert batch["loss_weight"].shape == batch["input_ids"].shape
    assert trainer.data_collator.__class__.__name__ != "_WeightCollator", "the wrapper is only for the train loader"
    model = trainer.model
    model.train()
    torch.manual_seed(0)
    with torch.no_grad():
        model.eval()  # no dropout, so the two forwards compare; compute_loss weighs only in training mode
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        nll = torch.nn.functional.cross_entropy(
            logits[:, :-1].transpose(1, 2), batch["labels"][:, 1:], ignore_index=-100, reduction="none"
        )
        mask = batch["labels"][:, 1:] != -100
        expected = (nll * batch["loss_weight"][:, 1:]).sum() / mask.sum()
        unweighted = nll.sum() / mask.sum()
        eval_loss = trainer.compute_loss(model, dict(batch))
        model.training = True  # the weighted path, with dropout still off in every submodule
        train_loss = trainer.compute_loss(model, dict(batch))
    assert eval_loss.item() == pytest.approx(unweighted.item(), rel=1e-4)
    assert train_loss.item() == pytest.approx(expected.item(), rel=1e-4)
    assert train_loss.item() > eval_loss.item()


def test_token_weighted_loss_weighs_every_answer_token_alike(tmp_path, dataset):
    """optim.tokenWeightedLoss: each row's answer tokens weigh its answer length over the rows' mean, so a step's
    loss, sum(weight x NLL) / its answer tokens, is sum(NLL) / that mean: a short answer's tokens (a no-call's
    decision) no longer weigh more than a long one's. With decisionWeight the two multiply."""
    import torch

    trainer, _ = build_trainer(
        make_job(tmp_path / "t", dataset, precision="fp32", optim={"tokenWeightedLoss": True, "decisionWeight": 2.0})
    )
    assert "loss_weight" not in trainer.eval_dataset.column_names
    rows = [trainer.train_dataset[i] for i in range(len(trainer.train_dataset))]
    lengths = [sum(1 for label in ex["labels"] if label != -100) for ex in rows]
    mean = sum(lengths) / len(lengths)
    assert len(set(lengths)) > 1, "precondition: answers of different lengths"
    for ex, n in zip(rows, lengths):
        answer = {round(w, 6) for w, label in zip(ex["loss_weight"], ex["labels"]) if label != -100}
        assert answer <= {round(n / mean, 6), round(2.0 * n / mean, 6)} and round(2.0 * n / mean, 6) in answer, (
            n,
            answer,
        )

    batch = next(iter(trainer.get_train_dataloader()))
    model = trainer.model
    with torch.no_grad():
        model.eval()
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        nll = torch.nn.functional.cross_entropy(
            logits[:, :-1].transpose(1, 2), batch["labels"][:, 1:], ignore_index=-100, reduction="none"
        )
        expected = (nll * batch["loss_weight"][:, 1:]).sum() / (batch["labels"][:, 1:] != -100).sum()
        model.training = True
        assert trainer.compute_loss(model, dict(batch)).item() == pytest.approx(expected.item(), rel=1e-4)


def test_lora_plus_ratio_gives_the_b_matrices_a_larger_learning_rate(tmp_path, dataset):
    """optim.loraPlusRatio: LoRA+'s optimizer, B matrices at ratio x the learning rate, A (and anything else) at it;
    absent, the Trainer's own optimizer with one learning rate."""

    def rates(trainer):
        names = {id(p): n for n, p in trainer.model.named_parameters()}
        by_kind: dict[str, set[float]] = {}
        for group in trainer.create_optimizer().param_groups:
            for p in group["params"]:
                kind = "B" if "lora_B" in names[id(p)] else "A" if "lora_A" in names[id(p)] else "other"
                by_kind.setdefault(kind, set()).add(group["lr"])
        return by_kind

    plus, _ = build_trainer(make_job(tmp_path / "plus", dataset, optim={"learningRate": 0.001, "loraPlusRatio": 16}))
    assert rates(plus) == {"A": {0.001}, "B": {0.016}}
    plain, _ = build_trainer(make_job(tmp_path / "plain", dataset, optim={"learningRate": 0.001}))
    assert rates(plain) == {"A": {0.001}, "B": {0.001}}
    with pytest.raises(BadJob, match=r"optim.loraPlusRatio: .* not method full"):
        build_trainer(make_job(tmp_path / "full", dataset, method="full", optim={"loraPlusRatio": 16}))
