"""python -m flywheel_trainer serve: an OpenAI-compatible server for base models and their LoRA adapters.

  GET  /v1/models                  every hosted base and every loaded adapter; an adapter's `parent` is the id
                                   of the base it runs on
  POST /v1/chat/completions        `model` picks an adapter or a base; `tools` offered -> router JSON, constrained
                                   to an offered tool with arguments valid for its schema, or a known verdict and
                                   code; a call to an offered tool comes back as tool_calls; an adapter may
                                   also name a tool of its catalog (flywheel.json "tools") the request does not
                                   offer, which stays router JSON in content, as any engine returns it (the
                                   gateway and the evaluator answer it as tool_not_offered, core/router/checks.ts);
                                   `logprobs` / `top_logprobs` (0-5) as in OpenAI's API; `constrained: false` (an
                                   extension) decodes freely
  POST /v1/load_lora_adapter       {lora_name, lora_path}   (vLLM's runtime adapter API)
  POST /v1/unload_lora_adapter     {lora_name}

Several bases: an adapter runs on the base it was trained on (base_of). Bases are told apart by fingerprint
(local directories: config, tokenizer, tiny-build spec) or by model id, so adapters of one base share it and an
adapter of another base (tiny runs each build their own) loads that base beside the others. The --base model is
served as --served-name ("base"); any other base as `base-<12 hex>` (of its fingerprint, else of sha256(id)).
The server may start empty (no --base, no adapters) and be filled at runtime: the deploy's "local" target.
A base is dropped when its last adapter is unloaded (memory stays bounded on a long-running server; reloading a
tiny base takes a second), except the --base one, which is always served.

It is the dev/CI stand-in for vLLM (`--enable-lora`, runtime loading), which the GPU deployment uses; the
request and response shapes are the same. Generation, loading and unloading are serialised by one lock: one
request at a time."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from contextlib import nullcontext
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .access import Access, AccessError, check_exposure
from .constrain import RouterConstraint, RouterLogitsProcessor, tokenizer_data
from .contract import parse_answer
from .decode import Decoded, PrefixCache, TokenScore, greedy, score_of
from .errors import BadJob
from .examples import DEFAULT_WEIGHT, DecisionPrior, ExampleIndex, callable_decision, request_text
from .fill import DEFAULT_FILL_WEIGHT, FillPrior
from .model import cpu_has_native_bf16
from .packaged import ensure_converted, is_packaged
from .priors import DEFAULT_COPY_WEIGHT, CopyPrior, chain, source_text


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str = "BadRequestError"):
        super().__init__(message)
        self.status, self.kind = status, kind


def adapter_meta(path: Path) -> dict[str, Any]:
    if not (path / "adapter_config.json").is_file():
        raise ApiError(400, f"{path} is not a LoRA adapter directory (no adapter_config.json)")
    meta_file = path / "flywheel.json"
    return json.loads(meta_file.read_text()) if meta_file.is_file() else {}


def base_of(adapter_dir: Path) -> str:
    """The base an adapter was trained on: ../base for tiny runs, else the recorded model id."""
    meta = adapter_meta(adapter_dir)
    base = meta.get("base") or json.loads((adapter_dir / "adapter_config.json").read_text())["base_model_name_or_path"]
    local = (adapter_dir / base).resolve()
    return str(local) if local.is_dir() else base


def fingerprint(model_dir: str) -> str | None:
    """Identity of a local base: config, vocabulary and, for tiny bases, the build spec (its seed decides the
    weights). None for a model id or a directory without config.json + tokenizer.json."""
    p = Path(model_dir)
    files = [p / "config.json", p / "tokenizer.json"]
    if not all(f.is_file() for f in files):
        return None
    files += [f for f in [p / "flywheel-tiny.json"] if f.is_file()]
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


def base_identity(source: str) -> tuple[str, str]:
    """(key, default id) of a base: equal keys share one loaded model."""
    fp = fingerprint(source)
    digest = fp or hashlib.sha256(source.encode()).hexdigest()
    return fp or source, f"base-{digest[:12]}"


def load_model(source: str) -> tuple[Any, Any]:
    """(model, tokenizer) of a base in eval mode, on the GPU when there is one."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if is_packaged(source):
        source = str(ensure_converted(source))
    tokenizer = AutoTokenizer.from_pretrained(source)
    if not tokenizer.chat_template:
        raise BadJob(f"base {source}: the tokenizer has no chat template")
    dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype)
    if torch.cuda.is_available():
        model = model.to("cuda")
    return model.eval(), tokenizer


@dataclass
class Base:
    """A hosted base model; it becomes a PeftModel once adapters are attached."""

    id: str
    source: str
    key: str
    model: Any
    tokenizer: Any
    pinned: bool = False  # the --base one: never dropped
    enforcer_data: Any = None  # the vocabulary as the constraint engine sees it, built on first use
    prefixes: PrefixCache = field(default_factory=PrefixCache)  # recent prompts' keys and values per model
    merged: str | None = None  # the adapter merged into the weights now (Engine._select)
    copies: dict[str | None, Any] = field(default_factory=dict)  # bf16 weights per adapter (None: bare), CPU only


@dataclass
class Adapter:
    path: str
    fmt: str  # how it renders completions: router-json or hermes
    base: Base
    # The catalog's tools it was trained on (flywheel.json "tools"): it may name one the request does not offer,
    # which the checks after the router answer as tool_not_offered (core/router/checks.ts).
    tools: list[dict[str, Any]] = field(default_factory=list)
    # Its training requests and what each was taught (examples.jsonl): the retrieval prior's neighbours.
    examples: ExampleIndex | None = None


@dataclass
class ChatParams:
    """The validated fields of a chat request."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    names: list[str]
    wants_tools: bool
    max_tokens: int
    temperature: float
    logprobs: bool
    top_logprobs: int
    constrained: bool = True
    retrieval: bool = True
    copy: bool = True
    fill: bool = True


def chat_params(req: dict[str, Any], default_model: str) -> ChatParams:
    messages = req.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "messages: a non-empty list is required")
    tools = req.get("tools") or None
    names = [t.get("function", {}).get("name") for t in tools or []]
    if tools and not all(isinstance(n, str) and n for n in names):
        raise ApiError(400, "tools: every tool needs function.name")
    logprobs = req.get("logprobs") or False
    top = req.get("top_logprobs")
    if not isinstance(logprobs, bool):
        raise ApiError(400, "logprobs: a boolean is required")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= 5):
        raise ApiError(400, "top_logprobs: an integer from 0 to 5 is required")
    if top and not logprobs:
        raise ApiError(400, "top_logprobs: logprobs must be true when top_logprobs is used")
    constrained = req.get("constrained", True)
    if not isinstance(constrained, bool):
        raise ApiError(400, "constrained: a boolean is required")
    switches = {key: req.get(key, True) for key in ("retrieval", "copy", "fill")}
    for key, value in switches.items():
        if not isinstance(value, bool):
            raise ApiError(400, f"{key}: a boolean is required")
    return ChatParams(
        model=req.get("model") or default_model,
        messages=messages,
        tools=tools,
        names=names,
        wants_tools=bool(tools) and req.get("tool_choice", "auto") != "none",
        max_tokens=int(req.get("max_tokens") or req.get("max_completion_tokens") or 256),
        temperature=float(req.get("temperature", 0) or 0),
        logprobs=logprobs,
        top_logprobs=top or 0,
        constrained=constrained,
        **switches,
    )


CPU_DTYPES = ("auto", "float32", "bfloat16")
BF16_COPIES = 3  # per base: the candidate, production and one more answer without rebuilding a copy


def answers_in_bf16(cpu_dtype: str) -> bool:
    """Whether a CPU server answers from bf16 copies of its weights (on a GPU the weights are bf16 already)."""
    import torch

    if cpu_dtype not in CPU_DTYPES:
        raise BadJob(f"--cpu-dtype {cpu_dtype!r}: expected one of {', '.join(CPU_DTYPES)}")
    if torch.cuda.is_available() or cpu_dtype == "float32":
        return False
    if cpu_dtype == "bfloat16":
        return True
    return cpu_has_native_bf16()


def bf16_copy(model: Any) -> Any:
    """A plain bf16 model with `model`'s weights as they stand: an adapter selected and merged (Engine._select),
    or none."""
    import copy

    import torch
    from peft import PeftModel

    clone = copy.deepcopy(model)
    if isinstance(clone, PeftModel):
        clone = clone.unload()  # the LoRA wrappers go; a merged adapter stays in the weights
    return clone.to(torch.bfloat16).eval()


class Engine:
    def __init__(
        self,
        base: str | None = None,
        served_name: str = "base",
        cpu_dtype: str = "auto",
        retrieval_weight: float = DEFAULT_WEIGHT,
        copy_weight: float = DEFAULT_COPY_WEIGHT,
        fill_weight: float = DEFAULT_FILL_WEIGHT,
    ):
        self.served_name = served_name
        self.retrieval_weight = retrieval_weight  # λ of the retrieval prior at similarity 1 (examples.py); 0: off
        self.copy_weight = copy_weight  # the copy prior's weight on values (priors.py); 0: off
        self.fill_weight = fill_weight  # the fill prior's weight on stated optional values (fill.py); 0: off
        # Weights stay float32 (adapters merge and unmerge exactly); answers may come from bf16 copies (_runner).
        self.bf16_answers = answers_in_bf16(cpu_dtype)
        self.bases: dict[str, Base] = {}  # by id
        self.adapters: dict[str, Adapter] = {}
        self.lock = threading.Lock()
        self.created = int(time.time())
        self.last_decode: Decoded | None = None  # what the last greedy answer cost (read by tests)
        if base is not None:
            model, tokenizer = load_model(base)
            self.bases[served_name] = Base(served_name, base, base_identity(base)[0], model, tokenizer, pinned=True)

    # adapters -------------------------------------------------------------------------------------------
    def load_adapter(self, name: str, path: str) -> None:
        adapter_dir = Path(path)
        source = base_of(adapter_dir)
        meta = adapter_meta(adapter_dir)
        fmt = meta.get("format", "router-json")
        known = known_tools(meta, adapter_dir)
        try:
            examples = ExampleIndex.load(adapter_dir) if fmt == "router-json" else None
        except ValueError as err:
            raise ApiError(400, str(err)) from None
        with self.lock:  # checks and changes under one lock: concurrent loads of one name cannot both pass
            if not name or name == self.served_name or name in self.bases:
                raise ApiError(400, f"lora_name {name!r} is empty or shadows a base model's name")
            if name in self.adapters:
                raise ApiError(400, f"The lora adapter '{name}' has already been loaded.")
            base = self._base_for(name, source)
            try:
                self._attach(base, name, adapter_dir)
            except Exception:
                self._drop_if_unused(base)
                raise
            self.adapters[name] = Adapter(str(adapter_dir), fmt, base, known, examples)

    def _base_for(self, name: str, source: str) -> Base:
        """The hosted base with the adapter's base identity, else that base loaded beside the others."""
        key, base_id = base_identity(source)
        hosted = next((b for b in self.bases.values() if b.key == key), None)
        if hosted is not None:
            return hosted
        if base_id in self.adapters:
            raise ApiError(400, f"adapter {name}: its base's id {base_id} is taken by an adapter")
        try:
            model, tokenizer = load_model(source)
        except Exception as err:  # noqa: BLE001 - missing, unreadable or unsupported: the request's fault
            raise ApiError(400, f"adapter {name}: cannot load its base {source}: {type(err).__name__}: {err}") from None
        self.bases[base_id] = Base(base_id, source, key, model, tokenizer)
        return self.bases[base_id]

    def _attach(self, base: Base, name: str, adapter_dir: Path) -> None:
        from peft import PeftModel

        base.prefixes.clear()  # a name may come back with other weights
        base.copies.clear()
        self._unmerge(base)

        if not self._adapters_of(base):
            base.model = PeftModel.from_pretrained(base.model, str(adapter_dir), adapter_name=name)
        else:
            base.model.load_adapter(str(adapter_dir), adapter_name=name)
        base.model.eval()

    def _adapters_of(self, base: Base) -> list[str]:
        return [n for n, a in self.adapters.items() if a.base is base]

    def _drop_if_unused(self, base: Base) -> None:
        if not base.pinned and not self._adapters_of(base):
            self.bases.pop(base.id, None)

    def unload_adapter(self, name: str) -> None:
        with self.lock:
            if name not in self.adapters:
                raise ApiError(404, f"The lora adapter '{name}' cannot be found.", "NotFoundError")
            base = self.adapters[name].base
            base.prefixes.clear()
            base.copies.clear()
            self._unmerge(base)
            others = [n for n in self._adapters_of(base) if n != name]
            if not others:
                base.model = base.model.unload()  # back to the plain base model
            else:
                if base.model.active_adapter == name:
                    base.model.set_adapter(others[0])
                base.model.delete_adapter(name)
            del self.adapters[name]
            self._drop_if_unused(base)

    def models(self) -> dict[str, Any]:
        # Copies: a load may change the dicts meanwhile (listing does not wait for a generation to end).
        bases, adapters = list(self.bases.values()), list(self.adapters.items())

        def entry(model_id: str, root: str, parent: str | None) -> dict[str, Any]:
            return {
                "id": model_id,
                "object": "model",
                "created": self.created,
                "owned_by": "mcp-flywheel",
                "root": root,
                "parent": parent,
            }

        return {
            "object": "list",
            "data": [entry(b.id, b.source, None) for b in bases] + [entry(n, a.path, a.base.id) for n, a in adapters],
        }

    def _resolve(self, model_name: str) -> tuple[Base, str | None]:
        """(base, adapter name or None) that serve `model_name`; call under the lock."""
        if model_name in self.adapters:
            return self.adapters[model_name].base, model_name
        if model_name in self.bases:
            return self.bases[model_name], None
        raise ApiError(404, f"The model `{model_name}` does not exist.", "NotFoundError")

    # generation -----------------------------------------------------------------------------------------
    def chat(self, req: dict[str, Any]) -> dict[str, Any]:
        p = chat_params(req, self.served_name)
        with self.lock:
            # Checked under the lock: an adapter unloaded meanwhile must not be answered by the base.
            base, adapter = self._resolve(p.model)
            fmt = self.adapters[adapter].fmt if adapter else "router-json"
            # hermes adapters are served unconstrained; `constrained: false` (our extension) turns it off, for ablations
            constrained = p.wants_tools and fmt == "router-json" and p.constrained
            ids = prompt_ids(base, p)
            # What the answer may name: the offered tools, and the catalog's others an adapter knows (their
            # schemas constrain the arguments as an offered tool's would).
            nameable = (p.tools or []) + [
                t for t in (self.adapters[adapter].tools if adapter else []) if t["function"]["name"] not in p.names
            ]
            constraint = self._constraint(base, nameable) if constrained else None
            prior = (
                self._prior(base, adapter, p, nameable, ids.shape[1], constraint) if constraint is not None else None
            )
            new, scores = self._generate(base, adapter, ids, p, constraint, prior)
        return completion(base.tokenizer, p, ids.shape[1], new, scores, constrained)

    def _constraint(self, base: Base, nameable: list[dict[str, Any]]) -> RouterConstraint:
        if base.enforcer_data is None:
            base.enforcer_data = tokenizer_data(base.tokenizer)
        return RouterConstraint(base.enforcer_data, nameable)

    def _prior(
        self,
        base: Base,
        adapter: str | None,
        p: ChatParams,
        nameable: list[dict[str, Any]],
        n_prompt: int,
        constraint: RouterConstraint | None = None,
    ) -> Any:
        """What is mixed into a constrained answer's next-token distribution: the copy prior on argument values
        (priors.py), the fill prior on optional values the request states (fill.py), and for an adapter with
        examples the retrieval prior on the decision (examples.py: its nearest training requests' decisions among
        those it may answer, λ scaled by the best similarity). None when none applies."""
        copying = (
            CopyPrior.build(base.tokenizer, source_text(p.messages), self.copy_weight, n_prompt) if p.copy else None
        )
        allows = constraint.accepts_text if constraint is not None else None
        filling = (
            FillPrior.build(base.tokenizer, nameable, request_text(p.messages), self.fill_weight, n_prompt, allows)
            if p.fill
            else None
        )
        examples = self.adapters[adapter].examples if adapter else None
        if examples is None or not p.retrieval or self.retrieval_weight <= 0:
            return chain(copying, filling)
        votes, best = examples.vote(
            request_text(p.messages), callable_decision({t["function"]["name"] for t in nameable})
        )
        return chain(
            DecisionPrior.build(base.tokenizer, votes, self.retrieval_weight * best, n_prompt), copying, filling
        )

    def _generate(
        self,
        base: Base,
        adapter: str | None,
        ids,
        p: ChatParams,
        constraint: RouterConstraint | None,
        prior: Any = None,
    ):
        import torch

        tokenizer = base.tokenizer
        kwargs: dict[str, Any] = {
            "max_new_tokens": p.max_tokens,
            "do_sample": p.temperature > 0,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id or tokenizer.eos_token_id,
        }
        if p.temperature > 0:
            kwargs["temperature"] = p.temperature
        if p.logprobs:
            kwargs.update(output_scores=True, return_dict_in_generate=True)
        fast = p.temperature == 0  # greedy, logprobs or not: decode.greedy
        if constraint is not None and not fast:
            from transformers import LogitsProcessorList

            kwargs["logits_processor"] = LogitsProcessorList([RouterLogitsProcessor(constraint, prior)])
        context, model = self._runner(base, adapter)
        with context, torch.no_grad():
            if fast:
                prompt = ids[0].tolist()
                self.last_decode = greedy(
                    model,
                    tokenizer,
                    prompt,
                    p.max_tokens,
                    constraint,
                    base.prefixes,
                    adapter,
                    prior=prior,
                    logprobs=p.top_logprobs if p.logprobs else None,
                )
                return self.last_decode.tokens, self.last_decode.scores
            out = model.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)
        if not p.logprobs:
            return out[0, ids.shape[1] :].tolist(), None
        new = out.sequences[0, ids.shape[1] :].tolist()
        return new, scored(new, out.scores, p.top_logprobs)

    def _runner(self, base: Base, adapter: str | None) -> tuple[Any, Any]:
        """(context, model) that answer as `adapter`. A CPU with native bf16 answers from a bf16 copy of the
        weights as the adapter sees them, made on first use (merged in float32 first): a 600-token prompt reads
        in about half float32's time (docs/training-and-serving.md, "Serve"). The float32 weights stay, so
        copies of other adapters start from exact weights."""
        if not self.bf16_answers:
            return self._select(base, adapter), base.model
        model = base.copies.pop(adapter, None)
        if model is None:
            with self._select(base, adapter):
                model = bf16_copy(base.model)
            while len(base.copies) >= BF16_COPIES:
                base.copies.pop(next(iter(base.copies)))  # the least recently used
        base.copies[adapter] = model
        return nullcontext(), model

    def _select(self, base: Base, adapter: str | None):
        """Set the model up to answer as `adapter` (None: the bare base); a context to generate in. In float32 the
        adapter is merged into the weights, so a pass costs what the base's costs, and stays merged while requests
        name it. (In bf16, merging and unmerging in turn would round the base weights further each time.)"""
        import torch

        if base.merged is not None and base.merged != adapter:
            self._unmerge(base)
        if adapter is None:
            return base.model.disable_adapter() if self._adapters_of(base) else nullcontext()
        if base.merged == adapter:
            return nullcontext()  # (set_adapter would unmerge it)
        base.model.set_adapter(adapter)
        if base.model.get_base_model().dtype == torch.float32:
            base.model.merge_adapter()
            base.merged = adapter
        return nullcontext()

    @staticmethod
    def _unmerge(base: Base) -> None:
        if base.merged is not None:
            base.model.unmerge_adapter()
            base.merged = None


def prompt_ids(base: Base, p: ChatParams):
    try:
        text = base.tokenizer.apply_chat_template(p.messages, tools=p.tools, tokenize=False, add_generation_prompt=True)
    except Exception as err:  # noqa: BLE001 - a template error is the request's fault
        raise ApiError(400, f"messages: cannot apply the chat template: {err}") from None
    return base.tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"].to(base.model.device)


def completion(
    tokenizer: Any, p: ChatParams, n_prompt: int, new: list[int], scores: list[TokenScore] | None, constrained: bool
) -> dict[str, Any]:
    """The chat.completion object for the answer tokens `new` (with one TokenScore per token when logprobs were
    asked for)."""
    finished = bool(new) and new[-1] == tokenizer.eos_token_id
    content = tokenizer.decode(new, skip_special_tokens=True).strip()
    if constrained and finished:
        try:
            json.loads(content)
        except json.JSONDecodeError:
            # The grammar engine gave up (it allows end-of-text when it hits an internal error).
            raise ApiError(
                500, f"constrained decoding produced invalid JSON: {content[:200]!r}", "InternalServerError"
            ) from None
    message: dict[str, Any] = {"role": "assistant", "content": content}
    finish = "stop" if finished else "length"
    call = _tool_call(content, p.names) if p.tools else None
    if call is not None:
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    logprobs = None
    if p.logprobs:
        generated = new[:-1] if finished else new  # the final eos is not part of the text
        logprobs = {"content": token_logprobs(tokenizer, generated, scores or [])}
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": p.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": logprobs}],
        "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(new), "total_tokens": n_prompt + len(new)},
    }


# JSON has no -infinity; vLLM reports a token the decoding excluded with this logprob.
MIN_LOGPROB = -9999.0


def scored(ids: list[int], scores: tuple, top: int) -> list[TokenScore]:
    """Each generated token's TokenScore from generate()'s processed scores (output_scores=True): the logits after
    the decoding constraint (and the temperature, when sampling)."""
    return [score_of(step[0], token, top) for token, step in zip(ids, scores)]


def token_logprobs(tokenizer: Any, ids: list[int], scores: list[TokenScore]) -> list[dict[str, Any]]:
    """OpenAI's logprobs.content for the generated `ids` and their scores (decode.greedy's or scored()'s). Each
    logprob is the token's probability among the continuations the constraint allowed, the distribution the token
    was actually chosen from; a token the constraint excluded shows MIN_LOGPROB. (vLLM by default,
    --logprobs-mode raw_logprobs, reports them before any processing.)"""
    content = []
    for text, (logprob, top) in zip(token_texts(tokenizer, ids), scores):
        entry = _logprob(text, logprob)
        entry["top_logprobs"] = [_logprob(tokenizer.decode([i]), v) for i, v in top]
        content.append(entry)
    return content


def _logprob(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": max(logprob, MIN_LOGPROB), "bytes": list(token.encode("utf-8"))}


def token_texts(tokenizer: Any, ids: list[int]) -> list[str]:
    """Each token's text, such that they concatenate to tokenizer.decode(ids): differences of decoded prefixes.
    Decoding tokens one by one is not enough: a byte-level token holding part of a UTF-8 character decodes to
    U+FFFD alone (here it gets '' and the token completing the character gets all of it), and some tokenizers
    drop a word's leading space when it is decoded alone."""
    texts, done = [], ""
    for i in range(1, len(ids) + 1):
        text = tokenizer.decode(ids[:i])
        if i < len(ids):
            text = text.rstrip("\ufffd")  # an incomplete character waits for its last byte
        texts.append(text[len(done) :] if text.startswith(done) else tokenizer.decode(ids[i - 1 : i]))
        done = text
    return texts


def known_tools(meta: dict[str, Any], adapter_dir: Path) -> list[dict[str, Any]]:
    """flywheel.json's "tools": OpenAI tool objects, each with a function name; anything else is refused."""
    tools = meta.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and isinstance(t.get("function"), dict) and isinstance(t["function"].get("name"), str)
        for t in tools
    ):
        raise ApiError(
            400, f"{adapter_dir / 'flywheel.json'}: tools must be a list of OpenAI tool objects with function.name"
        )
    return tools


def _tool_call(content: str, names: list[str]) -> dict[str, Any] | None:
    """One call to an offered tool (router JSON or a Hermes block, read by the contract's parse) becomes an OpenAI
    tool call; anything else stays content, for the checks after the router to judge."""
    parsed = parse_answer(content)
    calls = parsed.get("calls") or []
    if len(calls) != 1 or calls[0]["tool"] not in names:
        return None
    return {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": calls[0]["tool"], "arguments": json.dumps(calls[0]["arguments"], separators=(",", ":"))},
    }


def make_handler(engine: Engine, access: Access | None = None):
    access = access or Access()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # access log on stderr, one line per request
            import sys

            print(f"{self.address_string()} {fmt % args}", file=sys.stderr)

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if not isinstance(body, str) else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, err: ApiError) -> None:
            self._send(
                err.status, {"error": {"message": str(err), "type": err.kind, "param": None, "code": err.status}}
            )

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as err:
                raise ApiError(400, f"request body is not JSON: {err.msg}") from None
            if not isinstance(body, dict):
                raise ApiError(400, "request body must be a JSON object")
            return body

        def _denied(self, err: AccessError) -> None:
            self._send(
                err.status,
                {"error": {"message": str(err), "type": "invalid_request_error", "param": None, "code": err.code}},
            )

        def do_GET(self):  # noqa: N802
            if self.path in ("/v1/models", "/models"):
                try:
                    access.check_inference(self.headers.get("Authorization"))
                except AccessError as err:
                    return self._denied(err)
                self._send(200, engine.models())
            elif self.path == "/health":
                self._send(200, "")
            else:
                self._error(ApiError(404, f"no route {self.path}", "NotFoundError"))

        def do_POST(self):  # noqa: N802
            try:
                body = self._body()
                if self.path in ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"):
                    access.check_admin(self.headers.get("Authorization"))
                elif self.path == "/v1/chat/completions":
                    access.check_inference(self.headers.get("Authorization"))
                if self.path == "/v1/chat/completions":
                    if body.get("stream"):
                        raise ApiError(400, "stream: streaming is not supported by this server")
                    self._send(200, engine.chat(body))
                elif self.path == "/v1/load_lora_adapter":
                    name, path = body.get("lora_name"), body.get("lora_path")
                    if not isinstance(name, str) or not isinstance(path, str):
                        raise ApiError(400, "lora_name and lora_path are required strings")
                    engine.load_adapter(name, access.adapter_path(path))
                    self._send(200, f"Success: LoRA adapter '{name}' added successfully.")
                elif self.path == "/v1/unload_lora_adapter":
                    name = body.get("lora_name")
                    if not isinstance(name, str):
                        raise ApiError(400, "lora_name is a required string")
                    engine.unload_adapter(name)
                    self._send(200, f"Success: LoRA adapter '{name}' removed successfully.")
                else:
                    raise ApiError(404, f"no route {self.path}", "NotFoundError")
            except ApiError as err:
                self._error(err)
            except AccessError as err:
                self._denied(err)
            except Exception as err:  # noqa: BLE001 - a server error answers 500, the server keeps serving
                import traceback

                traceback.print_exc()
                self._error(ApiError(500, f"{type(err).__name__}: {err}", "InternalServerError"))

    return Handler


def serve(
    base: str | None,
    adapters: dict[str, str],
    host: str = "127.0.0.1",
    port: int = 8000,
    served_name: str = "base",
    access: Access | None = None,
    cpu_dtype: str = "auto",
    retrieval_weight: float = DEFAULT_WEIGHT,
    copy_weight: float = DEFAULT_COPY_WEIGHT,
    fill_weight: float = DEFAULT_FILL_WEIGHT,
) -> None:
    """With neither a base nor adapters the server starts empty; adapters are loaded at runtime (access.py says by whom)."""
    from .train import quiet_libraries

    access = access or Access()
    check_exposure(host, access)
    quiet_libraries()
    if base is None and adapters:
        # `serve --adapter NAME=DIR` serves that adapter's base under served_name, as vLLM's --model would.
        name, path = next(iter(adapters.items()))
        try:
            base = base_of(Path(path))
        except ApiError as err:
            raise BadJob(f"--adapter {name}={path}: {err}") from None
    engine = Engine(base, served_name, cpu_dtype, retrieval_weight, copy_weight, fill_weight)
    for name, path in adapters.items():
        try:
            engine.load_adapter(name, path)
        except ApiError as err:
            raise BadJob(f"--adapter {name}={path}: {err}") from None
    server = ThreadingHTTPServer((host, port), make_handler(engine, access))
    url = f"http://{host}:{server.server_address[1]}"
    print(
        json.dumps(
            {
                "event": "listening",
                "url": f"{url}/v1",
                "base": base,
                "adapters": sorted(adapters),
                "cpu_bf16": engine.bf16_answers,
            }
        ),
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
