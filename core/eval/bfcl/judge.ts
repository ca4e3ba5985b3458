/**
 * BFCL's own checker, run in the Python that has `bfcl-eval` (`.venv-bfcl`, installed by `make install`; or
 * $FLYWHEEL_BFCL_PYTHON). The answers reach it already in BFCL's call form (calls.ts); bfcl_judge.py says what
 * of BFCL's runs there.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../errors.js';
import type { BfclModelResult } from './data.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const JUDGE_SCRIPT = fileURLToPath(new URL('./bfcl_judge.py', import.meta.url));

/** The pinned judge, as the Makefile installs it. */
export const BFCL_INSTALL_HINT =
  'install it with `make install` (bfcl-eval==2026.3.23 and filelock, --no-deps, into .venv-bfcl from ' +
  'requirements-bfcl.txt), or set FLYWHEEL_BFCL_PYTHON to a Python that has them';

/** BFCL's checker cannot be imported: no eval is scored without its judge. */
export class BfclJudgeMissing extends InputError {}

/** The Python that runs the judge: $FLYWHEEL_BFCL_PYTHON, else the project's .venv-bfcl. */
export function bfclPython(): string {
  return process.env.FLYWHEEL_BFCL_PYTHON ?? join(REPO_ROOT, '.venv-bfcl', 'bin', 'python');
}

/** One answer to judge: the judge reads the question's functions and possible answers from BFCL's files by id. */
export interface JudgeItem {
  id: string;
  category: string;
  /** The answer as BFCL records one (calls.ts): [{name: arguments JSON}], [] for no call, or its text. */
  output: BfclModelResult;
}

export interface JudgeVerdict {
  id: string;
  valid: boolean;
  /** BFCL's error type (`simple_function_checker:missing_required`, …); empty when valid. */
  error_type: string;
  error: string;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runJudge(args: string[], input: string): Promise<Ran> {
  const python = bfclPython();
  if (!existsSync(python) && python.includes('/'))
    return Promise.reject(new BfclJudgeMissing(`BFCL's checker: ${python} does not exist; ${BFCL_INSTALL_HINT}`));
  return new Promise((resolve, reject) => {
    // bfcl_eval makes result/ and score/ folders under its project root on import: not inside the package.
    const env = { ...process.env, BFCL_PROJECT_ROOT: process.env.BFCL_PROJECT_ROOT ?? join(tmpdir(), 'flywheel-bfcl') };
    const child = spawn(python, [JUDGE_SCRIPT, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
    // A judge that exits before reading everything (an import error) closes its stdin: its exit code says why.
    child.stdin.on('error', () => undefined);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) =>
      reject(new BfclJudgeMissing(`BFCL's checker: cannot run ${python}: ${e.message}; ${BFCL_INSTALL_HINT}`)),
    );
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(input);
  });
}

/** Where bfcl_eval's data is, proving on the way that its checker imports; BfclJudgeMissing when it does not. */
export async function locateBfcl(): Promise<{ python: string; dataDir: string }> {
  const ran = await runJudge(['--check'], '');
  if (ran.code !== 0) {
    const why = ran.stderr.trim().split('\n').at(-1) ?? `exit ${ran.code}`;
    throw new BfclJudgeMissing(`BFCL's checker cannot be imported with ${bfclPython()}: ${why}; ${BFCL_INSTALL_HINT}`);
  }
  const { data } = JSON.parse(ran.stdout) as { data: string };
  return { python: bfclPython(), dataDir: data };
}

/** BFCL's verdict on every item, in the order given. */
export async function judgeBfcl(items: JudgeItem[]): Promise<JudgeVerdict[]> {
  if (items.length === 0) return [];
  const ran = await runJudge([], items.map((i) => `${JSON.stringify(i)}\n`).join(''));
  if (ran.code !== 0) {
    const tail = ran.stderr.trim().split('\n').slice(-6).join('\n');
    if (/ModuleNotFoundError|ImportError/.test(ran.stderr))
      throw new BfclJudgeMissing(
        `BFCL's checker cannot be imported with ${bfclPython()}: ${tail.split('\n').at(-1)}; ${BFCL_INSTALL_HINT}`,
      );
    throw new Error(`BFCL's checker failed (exit ${ran.code}):\n${tail}`);
  }
  const verdicts = ran.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JudgeVerdict);
  if (verdicts.length !== items.length || verdicts.some((v, i) => v.id !== items[i]!.id))
    throw new Error(`BFCL's checker answered ${verdicts.length} verdicts for ${items.length} answers`);
  return verdicts;
}
