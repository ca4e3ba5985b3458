import { spawn } from 'node:child_process';
import { TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';
import { parse, type Command } from '../lib/args.js';
import {
  DEFAULT_ADAPTER_DIR,
  DEFAULT_SERVE_ADMIN_TOKEN_ENV,
  DEFAULT_SERVE_ENDPOINT,
  DEFAULT_SERVE_HOST,
  DEFAULT_SERVE_PORT,
} from '../../core/defaults.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: "run the local serving backend (the trainer's OpenAI-compatible multi-adapter server)",
  usage: `flywheel serve [--host H] [--port N] [--adapter NAME=DIR ...] [--adapter-dir DIR] [--admin-token-env VAR] [--api-key-env VAR]
                     [--cpu-dtype auto|float32|bfloat16] [--retrieval-weight W] [--copy-weight W]
                     [--fill-weight W]

The "local" deploy target: an OpenAI-compatible server (/v1/chat/completions, /v1/models) with vLLM's
runtime LoRA API (/v1/load_lora_adapter, /v1/unload_lora_adapter). Starts empty; deploys load versions
into it, each on the base it was trained on. In production, point deploy.endpoint at vLLM or LoRAX instead.
  --host H      default ${DEFAULT_SERVE_HOST}
  --port N      default ${DEFAULT_SERVE_PORT} (deploy.endpoint's default is ${DEFAULT_SERVE_ENDPOINT})
  --adapter NAME=DIR   load an adapter directory at start (repeatable)
  --adapter-dir DIR    runtime loads only from inside DIR: '..' and symlinks out are refused
                       (default ${DEFAULT_ADAPTER_DIR}, where deploy.adapterDir puts them)
  --admin-token-env VAR  environment variable with the token load/unload need (default
                       ${DEFAULT_SERVE_ADMIN_TOKEN_ENV}; unset: no token, which only a loopback --host allows)
  --api-key-env VAR    environment variable with the inference key(s), comma-separated (two at once while rotating)
  --cpu-dtype D        on a CPU, answer from bf16 copies of the weights (bfloat16) or from the float32 weights;
                       auto (default, or $FLYWHEEL_SERVE_CPU_DTYPE): bf16 where the CPU has native bf16
                       (avx512_bf16, amx_bf16), where it reads a prompt about twice as fast; answers can differ
                       from float32's where two tokens are nearly tied
  --retrieval-weight W how much an adapter's nearest training requests (its examples.jsonl) sway which tool it
                       names or which no-call it answers: λ at similarity 1, from 0 (off) to 1; default 0.8, or
                       $FLYWHEEL_SERVE_RETRIEVAL_WEIGHT (docs/training-and-serving.md, "Priors and the grounding check")
  --copy-weight W      mid-word in an argument value, how much the rest of the request's word it began sways the
                       next token (a miscounted id or number): 0 (off) to 1; default 0.5, or $FLYWHEEL_SERVE_COPY_WEIGHT
  --fill-weight W      where a call's arguments would close, how much an optional value the request states (the
                       only email address, for an email property; the only one of an enum's values, as a word)
                       sways writing it: 0 (off) to 1; default 0.5, or $FLYWHEEL_SERVE_FILL_WEIGHT
A request may turn each off for itself (our extensions, like "constrained": false): "retrieval": false,
"copy": false and "fill": false. The checks after the answer (offer, grounding of ids, the tool's schema, scopes) are not serve's: the
gateway and the evaluator make them for every engine (docs/router-contract.md).
A --host beyond loopback needs the admin token and the adapter directory, or the server does not start.
Runs until interrupted (Ctrl-C).`,
  async run(argv) {
    const { values } = parse(argv, {
      host: { type: 'string', default: DEFAULT_SERVE_HOST },
      port: { type: 'string', default: String(DEFAULT_SERVE_PORT) },
      adapter: { type: 'string', multiple: true },
      'adapter-dir': { type: 'string', default: DEFAULT_ADAPTER_DIR },
      'admin-token-env': { type: 'string', default: DEFAULT_SERVE_ADMIN_TOKEN_ENV },
      'api-key-env': { type: 'string' },
      'cpu-dtype': { type: 'string' },
      'retrieval-weight': { type: 'string' },
      'copy-weight': { type: 'string' },
      'fill-weight': { type: 'string' },
    });
    const args = [
      '-m',
      'flywheel_trainer',
      'serve',
      '--host',
      values.host,
      '--port',
      values.port,
      ...(values.adapter ?? []).flatMap((a) => ['--adapter', a]),
      '--adapter-dir',
      values['adapter-dir'],
      '--admin-token-env',
      values['admin-token-env'],
      ...(values['api-key-env'] ? ['--api-key-env', values['api-key-env']] : []),
      ...(values['cpu-dtype'] ? ['--cpu-dtype', values['cpu-dtype']] : []),
      ...(values['retrieval-weight'] ? ['--retrieval-weight', values['retrieval-weight']] : []),
      ...(values['copy-weight'] ? ['--copy-weight', values['copy-weight']] : []),
      ...(values['fill-weight'] ? ['--fill-weight', values['fill-weight']] : []),
    ];
    const child = spawn(trainerPython(), args, {
      stdio: 'inherit',
      env: { ...process.env, PYTHONPATH: [TRAINER_ROOT, process.env.PYTHONPATH].filter(Boolean).join(':') },
    });
    const stop = (): void => void child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return new Promise((resolve) => child.once('close', (code) => resolve(code ?? 0)));
  },
};
