"""method: dpo on the tiny model: SFT, then DPO from its adapter with that adapter as the reference. The DPO loss
starts at ln 2 (policy and reference are the same adapter, not the bare base); the output is one LoRA on the base;
a run killed after a checkpoint resumes and follows the uninterrupted one; bad jobs exit 2 naming the key."""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conftest import make_job, run_train as _run, step_losses as _losses
from synthetic import write_pairs

if TYPE_CHECKING:
    from flywheel_trainer.job import TrainJob

TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def sft(tmp_path_factory):
    """One SFT adapter on the tiny base, shared by the DPO tests."""
    from synthetic import write_rows

    d = tmp_path_factory.mktemp("sft")
    data = {"train": str(write_rows(d / "train.jsonl", 96, 1)), "val": str(write_rows(d / "val.jsonl", 24, 2))}
    job = make_job(d, data, optim={"maxSteps": 12}, checkpointEvery=12)
    code, events, stderr = _run(job, d / "job.json")
    assert code == 0, stderr[-3000:]
    return Path(job.outputDir) / "adapter"


def _dpo_job(tmp_path: Path, sft: Path, dataset: str | None = None, **over) -> TrainJob:
    tmp_path.mkdir(parents=True, exist_ok=True)
    pairs = {
        "train": str(write_pairs(tmp_path / "pairs-train.jsonl", 48, 3, dataset)),
        "val": str(write_pairs(tmp_path / "pairs-val.jsonl", 12, 4, dataset)),
    }
    settings = {
        "method": "dpo",
        "preference": {"startFrom": str(sft)},
        "optim": {"maxSteps": 6, "effectiveBatchSize": 4, "microBatchSize": 4, "learningRate": 0.005},
        "checkpointEvery": 3,
    }
    return make_job(tmp_path, pairs, **{**settings, **over})


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_dpo_starts_from_the_sft_adapter_and_writes_one_lora(tmp_path, sft):
    sft_dataset = json.loads((sft / "flywheel.json").read_text())["trainSha256"]
    assert sft_dataset == _sha256(sft.parent.parent / "train.jsonl"), "the SFT adapter names the file it was trained on"
    job = _dpo_job(tmp_path / "a", sft, dataset=sft_dataset)
    code, events, stderr = _run(job, tmp_path / "a.json")
    assert code == 0, stderr[-3000:]
    losses = _losses(events)
    assert sorted(losses) == list(range(1, 7))
    # The reference is the SFT adapter itself: before any update policy and reference agree, so the loss is ln 2.
    assert abs(losses[1] - math.log(2)) < 1e-3, losses[1]
    assert losses[6] < losses[1], losses
    out = Path(job.outputDir) / "adapter"
    assert (out / "adapter_model.safetensors").is_file() and not (out / "ref").exists(), (
        "only the trained adapter ships"
    )
    meta = json.loads((out / "flywheel.json").read_text())
    assert meta["method"] == "dpo" and meta["startFrom"] == str(sft) and meta["base"] == "../base"
    assert meta["trainSha256"] == sft_dataset, "a DPO adapter keeps the SFT dataset it continues"
    sft_tools = json.loads((sft / "flywheel.json").read_text())["tools"]
    assert sft_tools and meta["tools"] == sft_tools, "and the tools it may name (serve's offer check)"

    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import LlamaForCausalLM

    model = PeftModel.from_pretrained(LlamaForCausalLM.from_pretrained(out / meta["base"]), str(out))
    assert list(model.peft_config) == ["default"], "one LoRA on the base, as serve, vLLM and LoRAX load any other"
    before, after = load_file(sft / "adapter_model.safetensors"), load_file(out / "adapter_model.safetensors")
    assert before.keys() == after.keys() and any((before[k] - after[k]).abs().max() > 0 for k in before), (
        "DPO moved the adapter"
    )


def test_dpo_killed_after_a_checkpoint_resumes_on_the_same_trajectory(tmp_path, sft):
    straight = _run(_dpo_job(tmp_path / "a", sft), tmp_path / "a.json")[1]
    job = _dpo_job(tmp_path / "b", sft)
    code, _, _ = _run(job, tmp_path / "b.json", kill_after_checkpoint=3)
    assert code == -signal.SIGKILL
    checkpoint = Path(job.outputDir) / "checkpoints" / "checkpoint-3"
    code, resumed, stderr = _run(job, tmp_path / "b.json", resume=str(checkpoint))
    assert code == 0, stderr[-3000:]
    assert resumed[0]["event"] == "start" and resumed[0]["step"] == 3
    a, b = _losses(straight), _losses(resumed)
    assert sorted(b) == [4, 5, 6]
    for step in b:
        assert abs(a[step] - b[step]) <= TOLERANCE * abs(a[step]), (step, a[step], b[step])


def test_a_dpo_job_without_a_starting_adapter_is_refused_naming_the_key(tmp_path, sft):
    from flywheel_trainer.job import JobError, validate_job

    job = _dpo_job(tmp_path, sft).to_dict()
    del job["preference"]
    with pytest.raises(JobError, match="'preference' is a required property"):
        validate_job(job)
    code, events, stderr = _run(
        _dpo_job(tmp_path / "x", sft, preference={"startFrom": str(tmp_path / "not-an-adapter")}), tmp_path / "x.json"
    )
    assert code == 2, stderr[-2000:]
    assert events[-1]["kind"] == "bad_job" and "preference.startFrom" in events[-1]["message"]


def test_pairs_of_another_dataset_than_the_sft_adapters_are_refused_naming_the_key(tmp_path, sft):
    code, events, stderr = _run(_dpo_job(tmp_path / "x", sft, dataset="0" * 64), tmp_path / "x.json")
    assert code == 2, stderr[-2000:]
    message = events[-1]["message"]
    assert (
        events[-1]["kind"] == "bad_job"
        and message.startswith("data.train: ")
        and "pair of dataset 000000000000" in message
    ), message
    assert "preference.startFrom" in message
