"""The server: tool calls for both render formats, several tiny bases in one server, and logprobs.

Two adapters are trained once per session on different data, so each has its own tiny base (tiny bases are
built per run, with a tokenizer trained on that run's rows)."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from flywheel_trainer import serve as serve_module
from flywheel_trainer.access import Access, check_exposure
from flywheel_trainer.constrain import RouterConstraint, tokenizer_data
from flywheel_trainer.decode import Decoded
from flywheel_trainer.errors import BadJob
from flywheel_trainer.serve import (
    Engine,
    _tool_call,
    base_of,
    fingerprint,
    make_handler,
    scored,
    token_logprobs,
    token_texts,
)

from conftest import make_job
from synthetic import TOOLS, write_rows


def test_router_json_and_hermes_calls_become_tool_calls_only_for_offered_tools():
    names = ["get_invoice"]
    call = _tool_call('{"arguments":{"number":"7"},"tool":"get_invoice"}', names)
    assert call["type"] == "function" and call["function"]["name"] == "get_invoice"
    assert json.loads(call["function"]["arguments"]) == {"number": "7"}
    hermes = _tool_call('<tool_call>\n{"arguments":{"number":"7"},"name":"get_invoice"}\n</tool_call>', names)
    assert hermes["function"]["name"] == "get_invoice" and json.loads(hermes["function"]["arguments"]) == {
        "number": "7"
    }
    assert _tool_call('{"arguments":{},"tool":"delete_all"}', names) is None, "not offered"
    assert _tool_call('{"code":"no_tool","reason":"x","tool":null,"verdict":"abstain"}', names) is None
    two = '<tool_call>{"name":"get_invoice","arguments":{}}</tool_call><tool_call>{"name":"get_invoice"}</tool_call>'
    assert _tool_call(two, names) is None, "several calls are not one decision"
    assert _tool_call("not json", names) is None


# fixtures and helpers -------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def adapters(tmp_path_factory) -> dict[str, str]:
    """Two tiny adapters trained on different data, hence on different tiny bases. `a` is trained long enough
    (~15 s) to answer with tool calls; `b` only needs to differ."""
    from flywheel_trainer.train import run_training

    out = {}
    for name, seed, optim in (
        ("a", 1, {"epochs": 5, "maxSteps": 30, "microBatchSize": 8, "learningRate": 0.005}),
        ("b", 5, {}),
    ):
        root = tmp_path_factory.mktemp(f"serve-{name}")
        data = {
            "train": str(write_rows(root / "train.jsonl", 96, seed)),
            "val": str(write_rows(root / "val.jsonl", 24, seed + 1)),
        }
        out[name] = str(run_training(make_job(root, data, optim=optim)))
    assert fingerprint(base_of(Path(out["a"]))) != fingerprint(base_of(Path(out["b"]))), (
        "the data differ, so do the bases"
    )
    return out


def base_id(adapter: str) -> str:
    return "base-" + fingerprint(base_of(Path(adapter)))[:12]


PROMPT = [
    {"role": "system", "content": "You route requests to tools. Reply with exactly one JSON object."},
    {"role": "user", "content": "Show me invoice 1234"},
]


class Client:
    def __init__(self, url: str):
        self.url = url

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, object]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req) as res:
                status, raw = res.status, res.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        try:
            return status, json.loads(raw)
        except json.JSONDecodeError:
            return status, raw.decode()

    def models(self) -> dict[str, str | None]:
        return {m["id"]: m["parent"] for m in self.call("GET", "/v1/models")[1]["data"]}

    def load(self, name: str, path: str) -> int:
        return self.call("POST", "/v1/load_lora_adapter", {"lora_name": name, "lora_path": path})[0]

    def unload(self, name: str) -> int:
        return self.call("POST", "/v1/unload_lora_adapter", {"lora_name": name})[0]

    def chat(self, model: str, **extra) -> dict:
        status, body = self.call(
            "POST",
            "/v1/chat/completions",
            {"model": model, "messages": PROMPT, "tools": TOOLS, "max_tokens": 96, **extra},
        )
        assert status == 200, body
        return body


@contextmanager
def serving(engine: Engine, access: Access | None = None):
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(engine, access))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Client(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


def answer(res: dict) -> tuple:
    """What a completion said, without the random call ids."""
    choice = res["choices"][0]
    calls = [c["function"] for c in choice["message"].get("tool_calls") or []]
    return choice["finish_reason"], choice["message"]["content"], calls


def plain_answer(base: str, adapter: str | None = None) -> tuple:
    """What a server hosting only `base` (and `adapter`) answers: the reference for the shared server."""
    engine = Engine(base)
    if adapter:
        engine.load_adapter("only", adapter)
    return answer(
        engine.chat({"model": "only" if adapter else "base", "messages": PROMPT, "tools": TOOLS, "max_tokens": 96})
    )


# the offer check --------------------------------------------------------------------------------------------
def test_a_call_naming_a_tool_the_request_does_not_offer_stays_router_json_for_the_checks_after_it(
    adapters, monkeypatch
):
    meta = json.loads((Path(adapters["a"]) / "flywheel.json").read_text())
    assert [t["function"]["name"] for t in meta["tools"]] == sorted(t["function"]["name"] for t in TOOLS), (
        "the tools its rows offered"
    )
    engine = Engine()
    engine.load_adapter("a", adapters["a"])
    tokenizer = engine.adapters["a"].base.tokenizer
    offered = [t for t in TOOLS if t["function"]["name"] != "get_invoice"]
    absent_call = tokenizer.encode('{"tool":"get_invoice","arguments":{"number":"1234"}}', add_special_tokens=False)
    seen = {}

    def choose_the_absent_tool(model, tok, prompt, max_new, constraint, *rest, **kw):
        # Stands in for the model's choice (a tiny model's is noise); the constraint is serve's own.
        seen["constraint"] = constraint
        constraint.begin(prompt, absent_call)  # raises if the decoder could not have named it
        return Decoded(absent_call + [tok.eos_token_id])

    monkeypatch.setattr(serve_module, "greedy", choose_the_absent_tool)
    res = engine.chat({"model": "a", "messages": PROMPT, "tools": offered, "max_tokens": 96})
    choice = res["choices"][0]
    # As vLLM returns it under the answer schema: the gateway and the evaluator answer it as tool_not_offered.
    assert json.loads(choice["message"]["content"]) == {"tool": "get_invoice", "arguments": {"number": "1234"}}
    assert choice["finish_reason"] == "stop" and "tool_calls" not in choice["message"]
    with pytest.raises(ValueError):  # offered tools alone: the absent name cannot be decoded
        RouterConstraint(tokenizer_data(tokenizer), offered).begin([0], absent_call)
    # The bare base was trained on no catalog: it may name only what is offered.
    with pytest.raises(ValueError):
        engine.chat({"model": base_id(adapters["a"]), "messages": PROMPT, "tools": offered, "max_tokens": 96})


def test_an_adapter_lists_the_tools_its_rows_offered_leaving_out_a_name_offered_with_two_schemas(tmp_path):
    from flywheel_trainer.job import validate_job
    from flywheel_trainer.train import _catalog_tools

    def tool(name, prop):
        return {
            "type": "function",
            "function": {"name": name, "parameters": {"type": "object", "properties": {prop: {"type": "string"}}}},
        }

    rows = [
        {"tools": [tool("b_get", "id"), tool("a_list", "q")]},
        {"tools": [tool("b_get", "id"), tool("a_list", "region")]},
    ]
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    job = validate_job(
        {"version": 1, "baseModel": "tiny:nano", "data": {"train": str(train), "val": str(train)}, "outputDir": "out"}
    )
    assert _catalog_tools(job) == [tool("b_get", "id")]


# the retrieval prior ----------------------------------------------------------------------------------------
def test_an_adapter_keeps_its_training_requests_and_what_each_was_taught(adapters):
    lines = (Path(adapters["a"]) / "examples.jsonl").read_text().splitlines()
    examples = [json.loads(line) for line in lines]
    assert len(examples) == 96, "one per training row"
    assert {e["decision"] for e in examples} <= {
        '{"tool":"get_invoice"',
        '{"tool":"create_case"',
        '{"tool":"list_accounts"',
        '{"tool":null,"verdict":"abstain","code":"no_tool"}',
    }
    shown = next(e for e in examples if e["text"].startswith("Show me invoice"))
    assert shown["decision"] == '{"tool":"get_invoice"'


def test_the_nearest_training_requests_decide_at_full_weight_and_retrieval_false_turns_them_off(adapters, tmp_path):
    """At weight 1 and a request identical to an example (similarity 1) the examples' vote is the whole
    distribution along the decision, whatever the weights say: examples that teach something the adapter was
    not trained on show that it is the vote that decides."""
    shutil.copytree(Path(adapters["b"]).parent, tmp_path / "out", ignore=shutil.ignore_patterns("checkpoints"))
    adapter = tmp_path / "out" / "adapter"  # beside its tiny base (flywheel.json: "../base")
    no_call = {"tool": None, "verdict": "escalate", "code": "prompt_injection"}
    request = {"model": "b", "messages": PROMPT, "tools": TOOLS, "max_tokens": 96}

    def served(decision: str, weight: float = 1.0, **extra) -> tuple:
        (adapter / "examples.jsonl").write_text(
            json.dumps({"text": PROMPT[-1]["content"], "decision": decision}) + "\n"
        )
        engine = Engine(retrieval_weight=weight)
        engine.load_adapter("b", str(adapter))
        return answer(engine.chat({**request, **extra}))

    _, _, calls = served('{"tool":"list_accounts"')
    assert [c["name"] for c in calls] == ["list_accounts"], "the vote named the tool; the model wrote its arguments"
    assert json.loads(served(json.dumps(no_call, separators=(",", ":")))[1]) == no_call
    own = served('{"tool":"list_accounts"', retrieval=False)
    (adapter / "examples.jsonl").unlink()
    engine = Engine()
    engine.load_adapter("b", str(adapter))
    assert answer(engine.chat(request)) == own, "retrieval: false answers as an adapter without examples"
    assert served('{"tool":"list_accounts"', weight=0.0) == own, "--retrieval-weight 0 too"
    # A vote for a tool the request does not let it name is no vote.
    assert served('{"tool":"delete_everything"') == own
    with pytest.raises(serve_module.ApiError, match="retrieval: a boolean"):
        Engine().chat({**request, "model": "x", "retrieval": "yes"})


# the fill prior ---------------------------------------------------------------------------------------------
def test_a_request_stating_an_optional_value_decodes_with_the_fill_prior_and_fill_false_without(adapters, monkeypatch):
    from flywheel_trainer.fill import FillPrior
    from flywheel_trainer.priors import Chain

    engine = Engine()
    engine.load_adapter("a", adapters["a"])
    seen = []

    def record_the_prior(model, tok, prompt, max_new, constraint, *rest, prior=None, **kw):
        seen.append(prior)  # what fill.py would steer: its own tests (test_fill.py) show how
        no_call = tok.encode('{"tool":null,"verdict":"abstain","code":"no_tool"}', add_special_tokens=False)
        return Decoded(no_call + [tok.eos_token_id])

    monkeypatch.setattr(serve_module, "greedy", record_the_prior)
    contact = {
        "type": "function",
        "function": {
            "name": "create_contact",
            "parameters": {
                "type": "object",
                "required": ["lastName"],
                "properties": {"lastName": {"type": "string"}, "email": {"type": "string", "format": "email"}},
            },
        },
    }
    ask = [{"role": "user", "content": "add Bo Novak, bo@novak.example"}]
    request = {"model": "a", "messages": ask, "tools": TOOLS + [contact], "max_tokens": 96}

    def fills(p) -> list:
        return [q for q in (p.priors if isinstance(p, Chain) else [p]) if isinstance(q, FillPrior)]

    engine.chat(request)
    assert [f.stated for f in fills(seen[-1])] == [{"create_contact": {"email": "bo@novak.example"}}]
    engine.chat({**request, "fill": False})
    assert fills(seen[-1]) == []
    engine.fill_weight = 0.0  # --fill-weight 0
    engine.chat(request)
    assert fills(seen[-1]) == []
    with pytest.raises(serve_module.ApiError, match="fill: a boolean"):
        Engine().chat({**request, "model": "x", "fill": "yes"})


# several bases --------------------------------------------------------------------------------------------
def test_an_empty_server_hosts_each_adapters_base_and_drops_it_with_its_last_adapter(adapters, tmp_path):
    with serving(Engine()) as client:
        assert client.models() == {}
        assert client.call("GET", "/health")[0] == 200
        assert client.call("POST", "/v1/chat/completions", {"model": "base", "messages": PROMPT})[0] == 404

        assert client.load("a", adapters["a"]) == 200
        assert client.models() == {base_id(adapters["a"]): None, "a": base_id(adapters["a"])}
        assert client.chat("a")["choices"][0]["finish_reason"] in ("tool_calls", "stop", "length")

        # An adapter whose base cannot be loaded is refused, and leaves nothing behind.
        orphan = tmp_path / "orphan"
        shutil.copytree(adapters["a"], orphan)
        (orphan / "flywheel.json").write_text(json.dumps({"base": str(tmp_path / "no-such-base")}))
        status, body = client.call("POST", "/v1/load_lora_adapter", {"lora_name": "orphan", "lora_path": str(orphan)})
        assert status == 400 and "cannot load its base" in body["error"]["message"], body
        assert client.load(base_id(adapters["a"]), adapters["a"]) == 400, "a base's id is taken"
        assert client.models() == {base_id(adapters["a"]): None, "a": base_id(adapters["a"])}

        assert client.unload("a") == 200
        assert client.models() == {}, "a base without adapters is dropped"


def test_adapters_of_different_bases_share_one_server_and_each_base_is_servable(adapters):
    a, b = adapters["a"], adapters["b"]
    with serving(Engine(base_of(Path(a)))) as client:  # as `serve --base <a's base>`
        for name, path in (("a", a), ("b", b), ("a2", a)):
            assert client.load(name, path) == 200
        assert client.models() == {"base": None, base_id(b): None, "a": "base", "b": base_id(b), "a2": "base"}

        # Each answers as it would alone: its own base and weights, whatever else the server hosts.
        assert answer(client.chat("a")) == answer(client.chat("a2")) == plain_answer(base_of(Path(a)), a)
        assert answer(client.chat("b")) == plain_answer(base_of(Path(b)), b)
        assert answer(client.chat(base_id(b))) == plain_answer(base_of(Path(b))), (
            "the base id answers from the plain base"
        )
        assert answer(client.chat("base")) == plain_answer(base_of(Path(a))) != answer(client.chat("a"))

        assert client.unload("b") == 200 and client.unload("a") == 200 and client.unload("a2") == 200
        assert client.models() == {"base": None}, "the --base model stays"
        assert answer(client.chat("base")) == plain_answer(base_of(Path(a)))


# logprobs -------------------------------------------------------------------------------------------------
def test_logprobs_cover_the_generated_tokens_under_the_constraint(adapters):
    with serving(Engine()) as client:
        assert client.load("a", adapters["a"]) == 200
        res = client.chat("a", max_tokens=200, logprobs=True, top_logprobs=3)
        choice = res["choices"][0]
        tokens = choice["logprobs"]["content"]
        assert len(tokens) == res["usage"]["completion_tokens"] - (choice["finish_reason"] != "length"), (
            "all but the eos"
        )
        text = "".join(t["token"] for t in tokens)
        if choice["finish_reason"] == "tool_calls":  # content is None; logprobs still carry the router JSON
            call = choice["message"]["tool_calls"][0]["function"]
            assert json.loads(text) == {"tool": call["name"], "arguments": json.loads(call["arguments"])}
        else:
            assert text.strip() == choice["message"]["content"]
        for t in tokens:
            assert t["logprob"] <= 0 and t["bytes"] == list(t["token"].encode())
            top = t["top_logprobs"]
            assert len(top) == 3 and [x["logprob"] for x in top] == sorted((x["logprob"] for x in top), reverse=True)
            assert top[0]["logprob"] == pytest.approx(t["logprob"]), "greedy: the chosen token is the likeliest"

        assert client.chat("a")["choices"][0]["logprobs"] is None
        unconstrained = client.chat("a", tools=None, max_tokens=8, logprobs=True)["choices"][0]["logprobs"]["content"]
        assert 0 < len(unconstrained) <= 8 and all(t["top_logprobs"] == [] for t in unconstrained)
        for bad in ({"logprobs": True, "top_logprobs": 9}, {"top_logprobs": 2}, {"logprobs": "yes"}):
            status, body = client.call("POST", "/v1/chat/completions", {"model": "a", "messages": PROMPT, **bad})
            assert status == 400, (bad, body)


def test_token_texts_concatenate_to_the_text_even_through_partial_characters(adapters):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base_of(Path(adapters["a"])))
    ids = tokenizer.encode('{"reason":"héllo 日本 ✓"}', add_special_tokens=False)
    assert "".join(tokenizer.decode([i]) for i in ids) != tokenizer.decode(ids), "one by one is not enough here"
    assert "".join(token_texts(tokenizer, ids)) == tokenizer.decode(ids)


# greedy decoding ------------------------------------------------------------------------------------------
def test_greedy_answers_are_generates_token_for_token_with_fewer_passes(adapters):
    """decode.greedy (prompt prefix reuse, grammar and prompt lookup drafts checked by the model) answers exactly
    what generate() answers under the full constraint mask (and the adapter's retrieval prior), for the adapter and for the bare
    base, constrained and free, with the same logprobs when asked; and on
    a trained adapter it keeps drafted tokens and reuses the system prompt's keys and values. The adapter is
    merged into the float32 weights while it answers, and unmerged for the base."""
    import torch

    from flywheel_trainer.constrain import RouterConstraint, RouterLogitsProcessor
    from flywheel_trainer.serve import chat_params, prompt_ids

    engine = Engine(cpu_dtype="float32")  # generate() below runs on the float32 weights
    engine.load_adapter("a", adapters["a"])
    base = engine.adapters["a"].base
    asks = ["Show me invoice 1234", "show invoice 77 please", "Cancel order 5 now", "what is the weather"]
    kept = reused = 0
    for model in ("a", base.id):
        for tools in (TOOLS, None):
            for ask in asks:
                req = {
                    "model": model,
                    "messages": [PROMPT[0], {"role": "user", "content": ask}],
                    "max_tokens": 64,
                    **({"tools": tools} if tools else {}),
                }
                got = engine.chat(req)["usage"]
                decoded = engine.last_decode
                kept, reused = kept + decoded.kept, reused + decoded.reused
                p = chat_params(req, "base")
                ids = prompt_ids(base, p)
                # The adapter's retrieval prior (its examples.jsonl) goes into both: the two paths agree with it too.
                constraint = RouterConstraint(base.enforcer_data, tools) if tools else None
                prior = (
                    engine._prior(base, "a" if model == "a" else None, p, tools, ids.shape[1], constraint)
                    if tools
                    else None
                )
                processors = [RouterLogitsProcessor(constraint, prior)] if tools else []
                with engine._select(base, "a" if model == "a" else None), torch.no_grad():
                    ref = base.model.generate(
                        ids,
                        attention_mask=torch.ones_like(ids),
                        max_new_tokens=64,
                        do_sample=False,
                        logits_processor=processors,
                        eos_token_id=base.tokenizer.eos_token_id,
                        pad_token_id=base.tokenizer.pad_token_id,
                        output_scores=True,
                        return_dict_in_generate=True,
                    )
                new = ref.sequences[0, ids.shape[1] :].tolist()
                assert decoded.tokens == new, (model, ask, base.tokenizer.decode(decoded.tokens))
                assert got["completion_tokens"] == len(decoded.tokens)
                assert decoded.passes <= len(decoded.tokens)
                assert base.merged == ("a" if model == "a" else None)

                # Asked for logprobs, greedy reports what generate()'s processed scores give, token for token.
                lp = engine.chat({**req, "logprobs": True, "top_logprobs": 3})["choices"][0]["logprobs"]["content"]
                assert engine.last_decode.tokens == new and len(engine.last_decode.scores) == len(new), "greedy's"
                generated = new[:-1] if new[-1] == base.tokenizer.eos_token_id else new
                want = token_logprobs(base.tokenizer, generated, scored(generated, ref.scores, 3))
                assert [t["token"] for t in lp] == [t["token"] for t in want]
                for g, w in zip(lp, want):
                    assert g["logprob"] == pytest.approx(w["logprob"], abs=1e-4), (model, ask, g["token"])
                    tops = [[x["logprob"] for x in t["top_logprobs"]] for t in (g, w)]
                    assert tops[0] == pytest.approx(tops[1], abs=1e-4)
    assert kept > 0, "the trained adapter writes the grammar's forced text; the drafts of it are kept"
    assert reused > 0, "prompts sharing the system prompt reuse its keys and values"


def test_prompt_lookup_drafts_what_followed_the_answers_end_in_the_prompt():
    """The longest ending of the answer found in the prompt wins, at its last occurrence; an ending shorter than 3
    characters, absent, or with nothing after it drafts nothing."""
    from flywheel_trainer.decode import lookup_text

    request = "tools: get_invoice(number)\nuser: show invoice INV-2041 for ACME"
    assert lookup_text(request, '{"tool":"get_invoice","arguments":{"number":"INV-').startswith("2041 for ACME")
    assert lookup_text("ship to Paris; bill to Lyon", '{"note":"ship to ').startswith("Paris;"), "longest ending first"
    assert lookup_text("order 11, then order 22", '{"id":"order ') == "22", "the last occurrence"
    assert lookup_text(request, '{"x":"zq') == "" and lookup_text(request, "ACME") == "", "absent; at the prompt's end"
    assert lookup_text("AB-12 then CD", '{"id":"xAB') == "", "two characters match by chance too often"


def test_prompt_lookup_drafts_stop_before_an_end_of_turn(adapters):
    """A prompt holding earlier answers has their end-of-turn token after them: a draft never carries it, so an
    answer ends only where the model ends it."""
    from transformers import AutoTokenizer

    from flywheel_trainer.decode import MAX_LOOKUP_TOKENS, draft_tokens

    tokenizer = AutoTokenizer.from_pretrained(base_of(Path(adapters["a"])))
    earlier = (
        '<|im_start|>assistant\n{"tool":null,"verdict":"abstain","code":"no_tool"}<|im_end|>\n<|im_start|>user\nhi'
    )
    answer = tokenizer.encode('{"tool":null,"verdict":"abstain","code":"no_to', add_special_tokens=False)
    draft = draft_tokens(tokenizer, None, answer, answer, earlier, 64)
    assert tokenizer.decode(draft) == 'ol"}', "what followed, up to the end of turn"
    assert draft_tokens(tokenizer, None, answer, answer, earlier, 1) == draft[:1], "cut to the room left"
    answer = tokenizer.encode('{"tool":null,"verdict":"abst', add_special_tokens=False)
    long = draft_tokens(tokenizer, None, answer, answer, earlier, 64)
    assert len(long) == MAX_LOOKUP_TOKENS and 'ain","code":"no_tool"}'.startswith(tokenizer.decode(long))
    assert draft_tokens(tokenizer, None, answer, answer, None, 64) == [], "no lookup: no prompt text"


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="on a GPU the served weights are bf16 already")
def test_bf16_answers_come_from_copies_of_the_weights_as_each_model_sees_them(adapters):
    """With --cpu-dtype bfloat16 each model (adapter or bare base) answers from its own bf16 copy of its weights:
    the answer of a plain bf16 model merged by PEFT itself. The served weights stay float32; copies are bounded,
    and loading or unloading an adapter drops them (a name may come back with other weights)."""
    import copy

    import torch

    from flywheel_trainer.serve import BF16_COPIES, Base, answers_in_bf16

    engine = Engine(cpu_dtype="bfloat16")
    engine.load_adapter("a", adapters["a"])
    base = engine.adapters["a"].base
    ask = lambda e, model: answer(e.chat({"model": model, "messages": PROMPT, "tools": TOOLS, "max_tokens": 96}))  # noqa: E731

    def reference(adapter: str | None) -> tuple:
        """What a server of one plain bf16 model answers: the adapter merged by PEFT, or the bare base."""
        clone = copy.deepcopy(base.model)  # before the engine answers: nothing merged yet
        clone = clone.merge_and_unload(adapter_names=[adapter]) if adapter else clone.unload()
        plain = Engine(cpu_dtype="float32")
        plain.bases["base"] = Base("base", base.source, base.key, clone.to(torch.bfloat16), base.tokenizer, pinned=True)
        return ask(plain, "base")

    expected = {"a": reference("a"), base.id: reference(None)}
    assert expected["a"] != expected[base.id], "the adapter changes the answer, so the test tells the two apart"
    for model in ("a", base.id, "a"):
        assert ask(engine, model) == expected[model], model
    assert set(base.copies) == {"a", None}
    assert all(p.dtype == torch.bfloat16 for m in base.copies.values() for p in m.parameters())
    assert all(p.dtype == torch.float32 for p in base.model.parameters()), "the served weights stay float32"

    for name in ("a1", "a2"):
        engine.load_adapter(name, adapters["a"])
        assert base.copies == {}, "a load drops the copies"
    for model in (base.id, "a", "a1", "a2"):
        ask(engine, model)
    assert list(base.copies) == ["a", "a1", "a2"][-BF16_COPIES:], "the least recently used copy goes first"
    engine.unload_adapter("a1")
    assert base.copies == {}, "an unload drops the copies"

    with pytest.raises(BadJob, match="--cpu-dtype 'fp8'"):
        answers_in_bf16("fp8")
    assert answers_in_bf16("float32") is False and answers_in_bf16("bfloat16") is True


# access: who may load, infer, and from where -------------------------------------------------------------
def test_load_needs_the_admin_token_and_a_path_inside_the_adapter_dir(adapters, tmp_path):
    served = tmp_path / "served"
    # As deploy materialises a tiny adapter: the adapter beside the tiny base its flywheel.json names (../base).
    shutil.copytree(adapters["a"], served / "a" / "adapter")
    shutil.copytree(Path(adapters["a"]).parent / "base", served / "a" / "base")
    outside = tmp_path / "elsewhere"
    shutil.copytree(served / "a", outside)
    (served / "sneaky").symlink_to(outside, target_is_directory=True)
    access = Access(admin_token="admin-secret", api_keys=("key-old", "key-new"), adapter_dir=served)
    with serving(Engine(), access) as client:

        def load(path, token):
            return client.call("POST", "/v1/load_lora_adapter", {"lora_name": "a", "lora_path": str(path)}, token)

        status, body = load(served / "a", None)
        assert status == 401 and body["error"]["code"] == "invalid_api_key", body
        assert load(served / "a", "key-new")[0] == 401, "an inference key does not open the admin API"
        assert load(served / "a", "admin-secret-")[0] == 401
        status, body = load(served / ".." / "elsewhere" / "adapter", "admin-secret")
        assert status == 400 and "'..'" in body["error"]["message"], body
        status, body = load(outside / "adapter", "admin-secret")
        assert status == 403 and "outside the adapter directory" in body["error"]["message"], body
        assert load(served / "sneaky" / "adapter", "admin-secret")[0] == 403, (
            "a symlink out of the directory is refused"
        )
        assert load(served / "a" / "adapter", "admin-secret")[0] == 200
        assert client.call("POST", "/v1/unload_lora_adapter", {"lora_name": "a"})[0] == 401
        # Inference takes either of two keys at once (rotation without downtime), and nothing else.
        chat = {"model": "a", "messages": PROMPT, "tools": TOOLS, "max_tokens": 8}
        assert client.call("POST", "/v1/chat/completions", chat)[0] == 401
        assert client.call("GET", "/v1/models")[0] == 401
        assert client.call("POST", "/v1/chat/completions", chat, "admin-secret")[0] == 401, (
            "the admin token is not an inference key"
        )
        assert client.call("POST", "/v1/chat/completions", chat, "key-old")[0] == 200
        assert client.call("POST", "/v1/chat/completions", chat, "key-new")[0] == 200
        assert client.call("POST", "/v1/unload_lora_adapter", {"lora_name": "a"}, "admin-secret")[0] == 200


def test_a_server_others_can_reach_needs_an_admin_token_and_an_adapter_dir(tmp_path):
    check_exposure("127.0.0.1", Access())
    check_exposure("::1", Access())
    with pytest.raises(BadJob, match="admin token .* and --adapter-dir"):
        check_exposure("0.0.0.0", Access())
    with pytest.raises(BadJob, match="needs --adapter-dir"):
        check_exposure("10.0.0.5", Access(admin_token="t"))
    check_exposure("0.0.0.0", Access(admin_token="t", adapter_dir=tmp_path))
