import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';

export const TRAINER_ROOT = fileURLToPath(new URL('../../trainer', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Python that runs the trainer: $FLYWHEEL_PYTHON, else the project's .venv, else python3 on PATH. */
export function trainerPython(): string {
  if (process.env.FLYWHEEL_PYTHON) return process.env.FLYWHEEL_PYTHON;
  const venv = join(REPO_ROOT, '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

/** This process's environment with the trainer package importable. */
function trainerEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: [TRAINER_ROOT, process.env.PYTHONPATH].filter(Boolean).join(':') };
}

/** One progress line of `python -m flywheel_trainer train` (see trainer/flywheel_trainer/progress.py). */
export interface TrainerEvent {
  event: 'start' | 'step' | 'eval' | 'checkpoint' | 'done' | 'error' | 'listening';
  step?: number;
  total?: number;
  epoch?: number;
  loss?: number;
  eval_loss?: number;
  lr?: number;
  tokens_per_s?: number;
  checkpoint?: string;
  adapter?: string;
  kind?: 'bad_job' | 'failed';
  message?: string;
  /** `serve`: the OpenAI base URL it listens on. */
  url?: string;
}

export interface TrainerExit {
  /** Exit code; null when killed by a signal. 2 = bad job (retrying cannot help). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines of stderr, for failure messages. */
  stderrTail: string;
  /** The trainer's own error line, when it wrote one. */
  error?: TrainerEvent;
}

export interface TrainerRun {
  pid: number;
  /** Resolves when the process has exited and every event has been handled. */
  done: Promise<TrainerExit>;
  /** Kill the trainer and everything it started (its process group): SIGTERM, then SIGKILL after graceMs. */
  kill(graceMs?: number): void;
}

const TAIL_BYTES = 4000;

/**
 * Spawn `python -m flywheel_trainer <args>` in its own process group. Progress lines are handed to onEvent
 * one at a time, in order (awaited, so an upload in onEvent holds back the next line, not the trainer);
 * stderr goes to stderrFile and its tail is kept. If onEvent throws, the trainer is stopped and `done`
 * rejects with that error.
 */
export function startTrainer(
  args: string[],
  opts: { stderrFile: string; onEvent: (e: TrainerEvent) => Promise<void> | void; env?: NodeJS.ProcessEnv },
): TrainerRun {
  const child = spawn(trainerPython(), ['-m', 'flywheel_trainer', ...args], {
    cwd: REPO_ROOT,
    detached: true, // own process group: cancellation kills dataloader workers and anything else it forked
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...trainerEnv(), ...opts.env, PYTHONUNBUFFERED: '1', FLYWHEEL_DIE_WITH_PARENT: '1' },
  });
  const stderrLog = createWriteStream(opts.stderrFile, { flags: 'a' });
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrLog.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
  });
  const signalGroup = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  let error: TrainerEvent | undefined;
  let handlerError: unknown;
  const lines = (async () => {
    for await (const line of createInterface({ input: child.stdout!, crlfDelay: Infinity })) {
      let event: TrainerEvent;
      try {
        event = JSON.parse(line) as TrainerEvent;
      } catch {
        tail = (tail + `\n[stdout] ${line}`).slice(-TAIL_BYTES); // not ours (a library printing): keep it for diagnosis
        continue;
      }
      if (event.event === 'error') error = event;
      if (handlerError !== undefined) continue; // keep draining stdout so the trainer never blocks on a full pipe
      try {
        await opts.onEvent(event);
      } catch (err) {
        // The caller could not handle progress (an upload failed): stop the trainer, report the cause.
        handlerError = err;
        signalGroup('SIGTERM');
      }
    }
  })();
  // 'close', not 'exit': stdout and stderr are drained by then, so no late chunk hits a closed log.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const done = (async (): Promise<TrainerExit> => {
    try {
      const { code, signal } = await exited;
      await lines;
      if (handlerError !== undefined) throw handlerError;
      return { code, signal, stderrTail: tail.trim(), ...(error ? { error } : {}) };
    } finally {
      await new Promise<void>((r) => stderrLog.end(() => r()));
    }
  })();
  return {
    pid: child.pid!,
    done,
    kill(graceMs = 10_000) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      void exited.then(() => {
        clearTimeout(timer);
        signalGroup('SIGKILL'); // the leader is gone; make sure its children are too
      });
    },
  };
}

/** Where converted packaged bases live on this machine: $FLYWHEEL_BASE_CACHE, else .flywheel/bases in the repo. */
export function baseCacheRoot(): string {
  return process.env.FLYWHEEL_BASE_CACHE ?? join(REPO_ROOT, '.flywheel', 'bases');
}

/** A packaged base that cannot be converted as asked (not installed, corrupt): retrying cannot help. */
export class BaseModelError extends InputError {
  override name = 'BaseModelError';
}

/**
 * `python -m flywheel_trainer convert-base --name NAME --out DIR`: the GGUF of a packaged base, checked and
 * converted to safetensors. Exit 2 (package missing, file corrupt) is a BaseModelError carrying the trainer's
 * message, which names the package and the path.
 */
export async function convertBase(name: string, out: string): Promise<void> {
  const child = spawn(trainerPython(), ['-m', 'flywheel_trainer', 'convert-base', '--name', name, '--out', out], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: trainerEnv(),
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-TAIL_BYTES)));
  child.stdout!.resume();
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code === 2)
    throw new BaseModelError(
      stderr
        .split('\n')
        .filter((l) => l.startsWith('error: '))
        .pop()
        ?.slice(7) ?? stderr.trim(),
    );
  if (code !== 0) throw new Error(`converting base ${name} failed (exit ${code}): ${stderr.trim().slice(-1500)}`);
}
