"""The Python side of the train job contract."""

import dataclasses
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
    assert job.method == "lora"
    assert dataclasses.asdict(job.lora) == {
        "rank": 16,
        "alpha": 32,
        "dropout": 0.05,
        "targetModules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        "topLayers": None,
    }
    assert job.optim.maxEvalRows is None and job.optim.completionOnlyLoss is True
    assert job.optim.learningRate == 0.0002
    assert job.optim.scheduler == "cosine"
    assert job.optim.warmupRatio == 0.03
    assert job.optim.epochs == 3
    assert job.optim.effectiveBatchSize == 32
    assert job.optim.maxLength == 4096
    assert job.data.format == "router-json"
    assert job.resumeFrom is None


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


def _schema_objects(schema: dict, path: str = "") -> dict[str, dict]:
    """Every object node of the job schema by key path ("" is the job itself)."""
    out = {path: schema}
    for name, sub in schema.get("properties", {}).items():
        if sub.get("type") == "object":
            out.update(_schema_objects(sub, f"{path}.{name}".lstrip(".")))
    return out


def test_the_typed_job_has_exactly_the_schema_keys():
    from flywheel_trainer.job import SCHEMA, TrainJob

    classes = {"": TrainJob, **TrainJob.SECTIONS}
    objects = _schema_objects(SCHEMA)
    assert sorted(classes) == sorted(objects)
    for path, node in objects.items():
        fields = [f.name for f in dataclasses.fields(classes[path])]
        assert sorted(fields) == sorted(node["properties"]), path


def test_every_key_a_job_may_leave_out_has_its_default_in_the_schema():
    """Defaults live in the schema only: a key is required, has a default, or is a section a method requires."""
    from flywheel_trainer.job import SCHEMA

    missing = [
        f"{path}.{name}".lstrip(".")
        for path, node in _schema_objects(SCHEMA).items()
        for name, sub in node["properties"].items()
        if name not in node.get("required", []) and "default" not in sub
    ]
    assert missing == ["preference"]  # required when method is dpo (the schema's if/then), absent otherwise


def test_normalize_prints_what_the_typed_job_holds():
    from flywheel_trainer.job import SCHEMA, with_defaults

    job = validate_job({**MINIMAL, "optim": {"decisionWeight": 3}})
    assert job.to_dict() == with_defaults(SCHEMA, {**MINIMAL, "optim": {"decisionWeight": 3}})
    assert job.optim.decisionWeight == 3 and job.optim.sharedPrefixRows == 1 and job.resources.gpus == 1
    assert job.preference is None and "preference" not in job.to_dict()


def test_the_trainer_reads_the_job_by_attribute_never_with_a_fallback():
    """A `job[...]` or `.get(key, default)` on the job would be a second source of defaults beside the schema."""
    import ast
    from pathlib import Path

    import flywheel_trainer

    def rooted_at_job(node: ast.AST) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id == "job"

    found = []
    for path in sorted(Path(flywheel_trainer.__file__).parent.glob("*.py")):
        if path.name == "job.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            subscript = isinstance(node, ast.Subscript) and rooted_at_job(node.value)
            get = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and rooted_at_job(node.func.value)
            )
            if subscript or get:
                found.append(f"{path.name}:{node.lineno}")
    assert found == []
