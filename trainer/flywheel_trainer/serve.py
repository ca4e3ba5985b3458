"""python -m flywheel_trainer serve: an OpenAI-compatible server for one base model and many LoRA adapters.

  GET  /v1/models                  the base (served name) and every loaded adapter
  POST /v1/chat/completions        `model` picks the adapter; `tools` offered -> router JSON, constrained so
                                   the tool name is one of the offered tools; a call comes back as tool_calls
  POST /v1/load_lora_adapter       {lora_name, lora_path}   (vLLM's runtime adapter API)
  POST /v1/unload_lora_adapter     {lora_name}

It is the dev/CI stand-in for vLLM (`--enable-lora`, runtime loading), which the GPU deployment uses; the
request and response shapes are the same. Generation is serialised by a lock: one request at a time."""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import uuid
from contextlib import nullcontext
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .constrain import RouterConstraint, tokenizer_data
from .errors import BadJob


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
    """Weights + vocabulary identity of a local base, to refuse adapters trained on another tiny base."""
    p = Path(model_dir)
    files = [p / "config.json", p / "tokenizer.json"]
    if not all(f.is_file() for f in files):
        return None
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


class Engine:
    def __init__(self, base: str, served_name: str = "base"):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.base, self.served_name = base, served_name
        self.base_fingerprint = fingerprint(base)
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        if not self.tokenizer.chat_template:
            raise BadJob(f"--base {base}: the tokenizer has no chat template")
        dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(base, dtype=dtype)
        if torch.cuda.is_available():
            self.model = self.model.to("cuda")
        self.model.eval()
        self.adapters: dict[str, str] = {}
        self.formats: dict[str, str] = {}  # how each adapter renders completions: router-json or hermes
        self.lock = threading.Lock()
        self.created = int(time.time())
        self._enforcer_data = None

    # adapters -------------------------------------------------------------------------------------------
    def load_adapter(self, name: str, path: str) -> None:
        from peft import PeftModel

        if not name or name == self.served_name:
            raise ApiError(400, f"lora_name {name!r} is empty or shadows the base model's name")
        adapter_dir = Path(path)
        base = base_of(adapter_dir)
        if self.base_fingerprint is not None and fingerprint(base) not in (None, self.base_fingerprint):
            raise ApiError(400, f"adapter {name} was trained on a different base ({base}) than this server's ({self.base})")
        fmt = adapter_meta(adapter_dir).get("format", "router-json")
        with self.lock:  # checks and changes under one lock: concurrent loads of one name cannot both pass
            if name in self.adapters:
                raise ApiError(400, f"The lora adapter '{name}' has already been loaded.")
            if not self.adapters:
                self.model = PeftModel.from_pretrained(self.model, str(adapter_dir), adapter_name=name)
            else:
                self.model.load_adapter(str(adapter_dir), adapter_name=name)
            self.model.eval()
            self.adapters[name] = str(adapter_dir)
            self.formats[name] = fmt

    def unload_adapter(self, name: str) -> None:
        with self.lock:
            if name not in self.adapters:
                raise ApiError(404, f"The lora adapter '{name}' cannot be found.", "NotFoundError")
            if len(self.adapters) == 1:
                self.model = self.model.unload()  # back to the plain base model
            else:
                if self.model.active_adapter == name:
                    self.model.set_adapter(next(n for n in self.adapters if n != name))
                self.model.delete_adapter(name)
            del self.adapters[name]
            del self.formats[name]

    def models(self) -> dict[str, Any]:
        entries = [{"id": self.served_name, "object": "model", "created": self.created, "owned_by": "mcp-flywheel", "root": self.base, "parent": None}]
        entries += [
            {"id": n, "object": "model", "created": self.created, "owned_by": "mcp-flywheel", "root": p, "parent": self.served_name}
            for n, p in self.adapters.items()
        ]
        return {"object": "list", "data": entries}

    # generation -----------------------------------------------------------------------------------------
    def chat(self, req: dict[str, Any]) -> dict[str, Any]:
        import torch

        model_name = req.get("model") or self.served_name
        messages = req.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ApiError(400, "messages: a non-empty list is required")
        tools = req.get("tools") or None
        names = [t.get("function", {}).get("name") for t in tools or []]
        if tools and not all(isinstance(n, str) and n for n in names):
            raise ApiError(400, "tools: every tool needs function.name")
        wants_tools = bool(tools) and req.get("tool_choice", "auto") != "none"
        max_tokens = int(req.get("max_tokens") or req.get("max_completion_tokens") or 256)
        temperature = float(req.get("temperature", 0) or 0)
        try:
            text = self.tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
        except Exception as err:  # noqa: BLE001 - a template error is the request's fault
            raise ApiError(400, f"messages: cannot apply the chat template: {err}") from None
        ids = self.tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"].to(self.model.device)
        kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens,
            "do_sample": temperature > 0,
            "eos_token_id": self.tokenizer.eos_token_id,
            "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
        }
        if temperature > 0:
            kwargs["temperature"] = temperature
        with self.lock:
            # Checked under the lock: an adapter unloaded meanwhile must not be answered by the base.
            if model_name != self.served_name and model_name not in self.adapters:
                raise ApiError(404, f"The model `{model_name}` does not exist.", "NotFoundError")
            fmt = self.formats.get(model_name, "router-json")
            constrained = wants_tools and fmt == "router-json"  # hermes adapters are served unconstrained
            if constrained:
                if self._enforcer_data is None:
                    self._enforcer_data = tokenizer_data(self.tokenizer)
                kwargs["prefix_allowed_tokens_fn"] = RouterConstraint(self._enforcer_data, names)
            if model_name in self.adapters:
                self.model.set_adapter(model_name)
                context = nullcontext()
            elif self.adapters:
                context = self.model.disable_adapter()
            else:
                context = nullcontext()
            with context, torch.no_grad():
                out = self.model.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)
        new = out[0, ids.shape[1]:].tolist()
        finished = bool(new) and new[-1] == self.tokenizer.eos_token_id
        content = self.tokenizer.decode(new, skip_special_tokens=True).strip()
        if constrained and finished:
            try:
                json.loads(content)
            except json.JSONDecodeError:
                # The grammar engine gave up (it allows end-of-text when it hits an internal error).
                raise ApiError(500, f"constrained decoding produced invalid JSON: {content[:200]!r}", "InternalServerError") from None
        message: dict[str, Any] = {"role": "assistant", "content": content}
        finish = "stop" if finished else "length"
        call = _tool_call(content, names, fmt) if tools else None
        if call is not None:
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model_name,
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": ids.shape[1], "completion_tokens": len(new), "total_tokens": ids.shape[1] + len(new)},
        }


HERMES_CALL = re.compile(r"^\s*<tool_call>\s*(\{.*\})\s*</tool_call>\s*$", re.DOTALL)


def _tool_call(content: str, names: list[str], fmt: str = "router-json") -> dict[str, Any] | None:
    """A call to an offered tool (router JSON, or a Hermes <tool_call> block) becomes an OpenAI tool call;
    anything else stays content."""
    if fmt == "hermes":
        match = HERMES_CALL.match(content)
        if not match:
            return None
        content = match.group(1)
    try:
        obj = json.loads(content)
    except json.JSONDecodeError:
        return None
    if fmt == "hermes" and isinstance(obj, dict):
        obj = {"tool": obj.get("name"), "arguments": obj.get("arguments", {})}
    if not isinstance(obj, dict) or obj.get("tool") not in names:
        return None
    args = obj.get("arguments", {})
    return {"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
            "function": {"name": obj["tool"], "arguments": json.dumps(args, separators=(",", ":"))}}


def make_handler(engine: Engine):
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
            self._send(err.status, {"error": {"message": str(err), "type": err.kind, "param": None, "code": err.status}})

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as err:
                raise ApiError(400, f"request body is not JSON: {err.msg}") from None
            if not isinstance(body, dict):
                raise ApiError(400, "request body must be a JSON object")
            return body

        def do_GET(self):  # noqa: N802
            if self.path in ("/v1/models", "/models"):
                self._send(200, engine.models())
            elif self.path == "/health":
                self._send(200, "")
            else:
                self._error(ApiError(404, f"no route {self.path}", "NotFoundError"))

        def do_POST(self):  # noqa: N802
            try:
                body = self._body()
                if self.path == "/v1/chat/completions":
                    if body.get("stream"):
                        raise ApiError(400, "stream: streaming is not supported by this server")
                    self._send(200, engine.chat(body))
                elif self.path == "/v1/load_lora_adapter":
                    name, path = body.get("lora_name"), body.get("lora_path")
                    if not isinstance(name, str) or not isinstance(path, str):
                        raise ApiError(400, "lora_name and lora_path are required strings")
                    engine.load_adapter(name, path)
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
            except Exception as err:  # noqa: BLE001 - a server error answers 500, the server keeps serving
                import traceback

                traceback.print_exc()
                self._error(ApiError(500, f"{type(err).__name__}: {err}", "InternalServerError"))

    return Handler


def serve(base: str | None, adapters: dict[str, str], host: str = "127.0.0.1", port: int = 8000, served_name: str = "base") -> None:
    from .train import quiet_libraries

    quiet_libraries()
    if base is None:
        if not adapters:
            raise BadJob("serve: give --base, or at least one --adapter to take the base from")
        base = base_of(Path(next(iter(adapters.values()))))
    engine = Engine(base, served_name)
    for name, path in adapters.items():
        try:
            engine.load_adapter(name, path)
        except ApiError as err:
            raise BadJob(f"--adapter {name}={path}: {err}") from None
    server = ThreadingHTTPServer((host, port), make_handler(engine))
    url = f"http://{host}:{server.server_address[1]}"
    print(json.dumps({"event": "listening", "url": f"{url}/v1", "base": base, "adapters": sorted(adapters)}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
