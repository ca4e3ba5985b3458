"""The Python side of the train job contract."""

import json

import pytest

from flywheel_trainer.__main__ import main
from flywheel_trainer.job import JobError, load_job, validate_job

MINIMAL = {
    "version": 1,
    "baseModel": "tiny:test",
    "data": {"train": "train.jsonl", "val": "val.jsonl"},
    "outputDir": "out",
}


def test_defaults_follow_the_study():
    job = validate_job(MINIMAL)
    assert job["method"] == "lora"
    assert job["lora"] == {
        "rank": 16,
        "alpha": 32,
        "dropout": 0.05,
        "targetModules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        "topLayers": None,
    }
    assert job["optim"]["maxEvalRows"] is None and job["optim"]["completionOnlyLoss"] is True
    assert job["optim"]["learningRate"] == 0.0002
    assert job["optim"]["scheduler"] == "cosine"
    assert job["optim"]["warmupRatio"] == 0.03
    assert job["optim"]["epochs"] == 3
    assert job["optim"]["effectiveBatchSize"] == 32
    assert job["optim"]["maxLength"] == 4096
    assert job["data"]["format"] == "router-json"
    assert job["resumeFrom"] is None


@pytest.mark.parametrize(
    "patch, expected",
    [
        ({"lora": {"rank": 12}}, "lora.rank: 12 is not one of"),
        ({"optim": {"learningRate": 0}}, "optim.learningRate: 0 is less than or equal to the minimum"),
        ({"method": "ppo"}, "method: 'ppo' is not one of"),
        ({"method": "dpo"}, "(root): 'preference' is a required property"),
        ({"lora": {"targetModules": ["lm_head"]}}, "lora.targetModules[0]: 'lm_head' is not one of"),
        ({"epocs": 3}, "epocs: unknown key"),
        ({"data": {"train": "t", "val": "v", "test": "x"}}, "data.test: unknown key"),
    ],
)
def test_bad_jobs_name_the_field(patch, expected):
    with pytest.raises(JobError) as err:
        validate_job({**MINIMAL, **patch})
    assert any(p.startswith(expected) for p in err.value.problems), err.value.problems


def test_missing_required_fields_are_reported():
    with pytest.raises(JobError) as err:
        validate_job({"version": 1})
    assert "(root): 'baseModel' is a required property" in err.value.problems


def test_cli_validate_and_normalize(tmp_path, capsys):
    job = tmp_path / "job.json"
    job.write_text(json.dumps(MINIMAL))
    assert main(["validate", "--job", str(job), "--normalize"]) == 0
    assert json.loads(capsys.readouterr().out)["lora"]["rank"] == 16
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1,')
    assert main(["validate", "--job", str(bad)]) == 2
    assert "invalid JSON at line 1" in capsys.readouterr().err
    with pytest.raises(JobError):
        load_job(tmp_path / "missing.json")
