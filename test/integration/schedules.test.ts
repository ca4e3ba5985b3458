/**
 * Schedules on a real dev server: `apply` is idempotent, a trigger starts flywheelRun with the schedule's
 * input, and a second trigger while that run is in progress is skipped (overlap policy SKIP).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { FlywheelRunInput } from '../../core/pipeline/types.js';
import { loadSchedulesFile } from '../../core/schedules/definition.js';
import { applySchedule, scheduleIdOf, triggerSchedule } from '../../scripts/lib/schedules.js';
import { fixtureStdio, tempDir } from '../helpers/fixtures.js';
import { startTemporal, startWorker } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';

describe('flywheel schedules', () => {
  let env: TestWorkflowEnvironment;
  let worker: { worker: Worker; running: Promise<void> };
  let dir: string;

  before(async () => {
    env = await startTemporal();
    worker = await startWorker(env);
    dir = tempDir('flywheel-schedules-');
    // A catalog-only run that takes a few seconds (slow tools/list pages), so a second trigger overlaps it.
    const config = {
      version: 1,
      name: 'sched-test',
      artifacts: { store: `file://${join(dir, 'artifacts')}` },
      servers: [fixtureStdio('slow', ['--tools', '6', '--page-size', '2', '--delay-ms', '1500'])],
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  });
  after(async () => {
    worker?.worker.shutdown();
    await worker?.running;
    await env?.teardown();
  });

  // Hours half a day away in the schedule's zone: a cron that came due during the test would fire a run of its
  // own and the overlap counts below would be off by one.
  const berlinHour = Number(
    new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' }).format(
      new Date(),
    ),
  );
  const awayHour = (offset: number) => (berlinHour + offset) % 24;

  const writeSchedules = (cron: string) =>
    writeFileSync(
      join(dir, 'schedules.yaml'),
      `schedules:\n  - name: nightly-test\n    config: config.json\n    cron: "${cron}"\n    timezone: Europe/Berlin\n`,
    );

  it('apply creates, then leaves an unchanged schedule alone, then updates a changed one (keeping it paused)', async () => {
    writeSchedules(`0 ${awayHour(10)} * * *`);
    const [def] = await loadSchedulesFile(join(dir, 'schedules.yaml'));
    assert.equal(await applySchedule(env.client, def!), 'created');
    assert.equal(await applySchedule(env.client, def!), 'unchanged');
    const handle = env.client.schedule.getHandle(scheduleIdOf('nightly-test'));
    await handle.pause('maintenance');
    writeSchedules(`30 ${awayHour(12)} * * *`);
    const [changed] = await loadSchedulesFile(join(dir, 'schedules.yaml'));
    assert.equal(await applySchedule(env.client, changed!), 'updated');
    assert.equal(await applySchedule(env.client, changed!), 'unchanged');
    const d = await handle.describe();
    assert.equal(d.state.paused, true, 'apply never unpauses');
    assert.equal(d.spec.timezone, 'Europe/Berlin');
    assert.deepEqual(d.spec.calendars?.[0]?.hour, [{ start: awayHour(12), end: awayHour(12), step: 1 }]);
    assert.equal(d.policies.overlap, 'SKIP');
    assert.equal(d.policies.pauseOnFailure, true);
  });

  it('trigger starts flywheelRun with the schedule input; a second trigger while it runs is skipped', async () => {
    const handle = env.client.schedule.getHandle(scheduleIdOf('nightly-test'));
    await handle.unpause('test');
    await triggerSchedule(env.client, 'nightly-test');
    let first: { workflowId: string; firstExecutionRunId: string } | undefined;
    await until(
      'the triggered run to start',
      async () => {
        const a = (await handle.describe()).info.recentActions[0]?.action;
        first = a?.type === 'startWorkflow' ? a.workflow : undefined;
        return first !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const run = env.client.workflow.getHandle(first!.workflowId, first!.firstExecutionRunId);
    assert.equal((await run.describe()).status.name, 'RUNNING');
    // Scheduled workflow ids end in the second they were due: trigger in a later second, or the ids collide.
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await run.describe()).status.name, 'RUNNING', 'the first run is still in progress');
    await triggerSchedule(env.client, 'nightly-test'); // overlaps the run in progress: SKIP drops it
    await run.result();
    const d = await handle.describe();
    assert.equal(d.info.numActionsSkippedOverlap, 1, `the overlapping trigger was skipped: ${JSON.stringify(d.info)}`);
    assert.equal(d.info.numActionsTaken, 1);
    assert.equal(d.state.paused, false);
    const started = (await run.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
    const input = defaultPayloadConverter.fromPayload(started.input!.payloads![0]!) as FlywheelRunInput;
    assert.equal(input.trigger, 'schedule:nightly-test');
    assert.equal((input.config as { name: string }).name, 'sched-test');
    assert.match(first!.workflowId, /^flywheel-sched-test-nightly-test/);
  });

  it('the shipped temporal-config/schedules.yaml is valid and names a valid config', async () => {
    const defs = await loadSchedulesFile(join(process.cwd(), 'temporal-config', 'schedules.yaml'));
    assert.deepEqual(
      defs.map((d) => [d.name, d.overlap, d.timezone]),
      [['nightly', 'skip', 'Europe/Berlin']],
    );
  });

  it('bad definitions name the file and key', async () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      'schedules:\n  - name: Bad_Name\n    config: config.json\n    cron: "every night"\n    timezone: Mars/Olympus\n',
    );
    await assert.rejects(
      loadSchedulesFile(join(dir, 'bad.yaml')),
      (err: Error) =>
        /bad\.yaml: invalid config/.test(err.message) &&
        /schedules\[0\]\.name/.test(err.message) &&
        /schedules\[0\]\.cron/.test(err.message) &&
        /schedules\[0\]\.timezone/.test(err.message),
    );
  });
});
