"""Load, validate and normalise a train job against trainer/job.schema.json (the same file the TypeScript
worker validates with ajv). Errors name the field path; defaults come from the schema, never from code.

A validated job is a `TrainJob`: frozen dataclasses whose fields are the schema's keys, one class per object in
the schema (a test keeps the two equal), so a key read that the schema does not define fails at once."""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from jsonschema import Draft202012Validator

from .errors import BadJob

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "job.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
_VALIDATOR = Draft202012Validator(SCHEMA)


@dataclass(frozen=True)
class JobData:
    train: str
    val: str
    format: str


@dataclass(frozen=True)
class PreferenceSettings:
    startFrom: str
    beta: float
    lossType: str


@dataclass(frozen=True)
class LoraSettings:
    rank: int
    alpha: int
    dropout: float
    targetModules: list[str]
    topLayers: int | None


@dataclass(frozen=True)
class OptimSettings:
    learningRate: float
    scheduler: str
    warmupRatio: float
    epochs: int
    earlyStoppingPatience: int
    effectiveBatchSize: int
    microBatchSize: int
    maxLength: int
    seed: int
    maxSteps: int | None
    maxEvalRows: int | None
    completionOnlyLoss: bool
    loraPlusRatio: float | None
    sharedPrefixRows: int
    decisionWeight: float
    tokenWeightedLoss: bool


@dataclass(frozen=True)
class Resources:
    gpus: int


@dataclass(frozen=True)
class TrainJob:
    """A train job with every default filled. `preference` is None unless method is dpo (the schema requires it
    there and nowhere else)."""

    # The fields that are objects of the schema, and the class each becomes.
    SECTIONS: ClassVar[dict[str, type]] = {
        "data": JobData,
        "preference": PreferenceSettings,
        "lora": LoraSettings,
        "optim": OptimSettings,
        "resources": Resources,
    }

    version: int
    baseModel: str
    data: JobData
    outputDir: str
    method: str
    preference: PreferenceSettings | None
    lora: LoraSettings
    optim: OptimSettings
    precision: str
    resources: Resources
    packing: bool
    checkpointEvery: int
    keepCheckpoints: int
    logEvery: int
    resumeFrom: str | None
    mergedExport: bool

    @classmethod
    def from_normalized(cls, job: dict[str, Any]) -> TrainJob:
        """From a validated job whose defaults are filled (`validate_job` calls it)."""
        sections = {name: kind(**job[name]) for name, kind in cls.SECTIONS.items() if job.get(name) is not None}
        return cls(**{**job, "preference": None, **sections})

    def to_dict(self) -> dict[str, Any]:
        """The normalised job as JSON data (what `validate --normalize` prints); an absent preference stays absent."""
        out = dataclasses.asdict(self)
        if out["preference"] is None:
            del out["preference"]
        return out


class JobError(BadJob):
    """A job that cannot run: each problem names its field path."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: invalid train job\n" + "\n".join(f"  - {p}" for p in problems))


def _path(parts: Any) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(root)"


def with_defaults(schema: dict[str, Any], value: Any) -> Any:
    """Fill `default`s of object properties, recursively (objects absent but with a default are created)."""
    if not isinstance(value, dict) or schema.get("type") != "object":
        return value
    out = dict(value)
    for name, sub in schema.get("properties", {}).items():
        if name not in out and "default" in sub:
            out[name] = copy.deepcopy(sub["default"])
        if name in out:
            out[name] = with_defaults(sub, out[name])
    return out


def validate_job(raw: Any, source: str = "job") -> TrainJob:
    """Validate, then fill defaults. Raises JobError listing every problem."""
    errors = sorted(_VALIDATOR.iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        problems = []
        for e in errors:
            if e.validator == "additionalProperties":
                extra = sorted(set(e.instance) - set(e.schema.get("properties", {})))
                problems.extend(f"{_path([*e.absolute_path, k])}: unknown key" for k in extra)
            else:
                problems.append(f"{_path(e.absolute_path)}: {e.message}")
        raise JobError(source, problems)
    return TrainJob.from_normalized(with_defaults(SCHEMA, raw))


def load_job(path: str | Path) -> TrainJob:
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise JobError(str(path), ["file not found"]) from None
    except json.JSONDecodeError as err:
        raise JobError(str(path), [f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}"]) from None
    return validate_job(raw, str(path))


def check_resume(job: TrainJob) -> None:
    """resumeFrom names a checkpoint directory (what the Trainer saved), or is null."""
    resume = job.resumeFrom
    if resume is not None and not (Path(resume) / "trainer_state.json").is_file():
        raise BadJob(f"resumeFrom: {resume} is not a checkpoint directory (no trainer_state.json)")
