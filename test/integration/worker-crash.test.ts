/**
 * Durability: kill the worker process (SIGKILL, whole process group) in the middle of a run, start a new
 * one, and the run completes. Work that finished before the crash is not redone; the interrupted listing
 * is retried after its heartbeat times out.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { openStore } from '../../core/artifacts/index.js';
import type { Catalog } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { fixtureStdio, REPO, tempDir } from '../helpers/fixtures.js';
import { startTemporal } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';

let env: TestWorkflowEnvironment;
const workers: ChildProcess[] = [];

function spawnWorker(): ChildProcess {
  // detached: its own process group, so the kill takes the MCP server children down with it.
  const p = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker'], {
    env: { ...process.env, TEMPORAL_ADDRESS: env.address },
    stdio: 'ignore',
    detached: true,
  });
  workers.push(p);
  return p;
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

describe('worker crash mid-run', () => {
  before(async () => {
    env = await startTemporal();
  });
  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) process.kill(-w.pid!, 'SIGTERM');
    await env?.teardown();
  });

  it('completes on a new worker without redoing finished work', async () => {
    const dir = tempDir();
    const fastLog = join(dir, 'fast.log');
    const slowLog = join(dir, 'slow.log');
    const cfg = parseConfig({
      version: 1,
      name: 'crash',
      artifacts: { store: `file://${join(dir, 'artifacts')}` },
      servers: [
        fixtureStdio('fast', ['--tools', '2', '--log', fastLog]),
        fixtureStdio('slow', ['--tools', '3', '--page-size', '1', '--delay-ms', '2500', '--log', slowLog]),
      ],
    });

    const first = spawnWorker();
    const { handle, runId } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    const completedActivities = async () =>
      ((await handle.fetchHistory()).events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
    // resolveConfig and the fast listing are done; the slow listing is mid-way.
    await until(
      'the fast listing to finish and the slow one to start',
      async () => lines(fastLog).length === 1 && lines(slowLog).length >= 1 && (await completedActivities()) >= 2,
    );
    process.kill(-first.pid!, 'SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const slowCallsBeforeCrash = lines(slowLog).length;
    assert.ok(slowCallsBeforeCrash < 3, 'the slow listing was interrupted');

    spawnWorker();
    await handle.result();

    const status = await runStatus(handle);
    assert.equal(status.runId, runId);
    assert.equal(status.state, 'completed');
    assert.deepEqual(lines(fastLog), ['tools/list fast cursor=0'], 'the finished listing was not redone');
    assert.deepEqual(
      lines(slowLog).slice(slowCallsBeforeCrash),
      ['tools/list slow cursor=0', 'tools/list slow cursor=1', 'tools/list slow cursor=2'],
      'the interrupted listing was retried from the start',
    );
    const events = (await handle.fetchHistory()).events ?? [];
    const attempts = events
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.ok(attempts.includes(2), `a retry happened (attempts ${attempts})`);
    const catalog = await openStore(cfg.artifacts.store).readJson<Catalog>(status.stages[0]!.outputs.catalog!);
    assert.deepEqual(
      catalog.servers.map((s) => [s.name, s.tools]),
      [
        ['fast', 2],
        ['slow', 3],
      ],
    );
  });
});
