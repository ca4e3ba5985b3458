/**
 * Chunked stages across two workers, one of them killed mid-stage, against a local OpenAI-compatible stand-in for
 * the teacher (helpers/openai-stand-in.ts stands in for a real endpoint such as OpenAI or vLLM, unreachable here).
 * The run must finish on the surviving worker with the dataset an unchunked single-worker run builds, and pay for
 * no teacher answer twice: answers already received were cached in the artifact store, and answers the killed
 * worker was waiting for are never delivered.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { parseConfig } from '../../core/config/load.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { startStandIn, type StandIn } from '../helpers/openai-stand-in.js';
import { REPO, datasetOnlyDefault, tempDir } from '../helpers/fixtures.js';
import { startTemporal, startWorker } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';

const KEY_ENV = 'FLYWHEEL_TEST_TEACHER_KEY';
let env: TestWorkflowEnvironment;
let local: Awaited<ReturnType<typeof startWorker>>;
let standIn: StandIn;
let other: ChildProcess | undefined;

async function config(chunkSize: number, extra: { perGoal?: number; rateLimit?: Record<string, unknown> } = {}) {
  // Dataset stages only, on the two sandboxes, with the teacher at the stand-in.
  const example = await datasetOnlyDefault();
  return parseConfig({
    ...example,
    name: 'scale-out',
    artifacts: { store: `file://${tempDir()}` },
    dataset: {
      ...example.dataset!,
      perGoal: extra.perGoal ?? 4,
      chunkSize,
      teacher: {
        kind: 'openai',
        baseUrl: standIn.url,
        model: 'teacher-model',
        apiKeyEnv: KEY_ENV,
        concurrency: 4,
        // One intent per drafting call: a row makes two calls, enough to fill the rate windows measured here.
        batchSize: 1,
        timeoutMs: 10_000,
        ...(extra.rateLimit ? { rateLimit: extra.rateLimit } : {}),
      },
    },
  });
}

/** A second worker process, as on another machine; resolves once it polls for activities. */
async function startOtherWorker(): Promise<string> {
  other = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker'], {
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, [KEY_ENV]: 'test-key' },
    stdio: 'ignore',
    detached: true,
  });
  const otherId = `${other.pid}@`;
  await until(
    'the second worker polls for activities',
    async () => {
      const q = await env.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'flywheel' },
        taskQueueType: 2 /* TASK_QUEUE_TYPE_ACTIVITY */,
      });
      return (q.pollers ?? []).some((p) => p.identity?.startsWith(otherId));
    },
    { timeoutMs: 60_000 },
  );
  return otherId;
}

/** The identities of the workers that ran `stageChunk` activities, and the attempts they were on. */
function chunkStartsOf(all: Awaited<ReturnType<typeof fetchEvents>>) {
  return all
    .filter(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        all.find((s) => Number(s.eventId) === Number(e.activityTaskStartedEventAttributes!.scheduledEventId))
          ?.activityTaskScheduledEventAttributes?.activityType?.name === 'stageChunk',
    )
    .map((e) => ({
      identity: e.activityTaskStartedEventAttributes!.identity ?? '',
      attempt: e.activityTaskStartedEventAttributes!.attempt ?? 1,
      lastFailure: e.activityTaskStartedEventAttributes!.lastFailure?.message ?? '',
    }));
}
type Handle = Awaited<ReturnType<typeof startRun>>['handle'];
const fetchEvents = async (handle: Handle) => (await handle.fetchHistory()).events ?? [];

describe('scale-out', () => {
  before(async () => {
    process.env[KEY_ENV] = 'test-key';
    env = await startTemporal();
    local = await startWorker(env);
    standIn = await startStandIn(undefined, 2500, 400);
  });
  after(async () => {
    if (other && other.exitCode === null && other.signalCode === null) process.kill(-other.pid!, 'SIGKILL');
    local?.worker.shutdown();
    await local?.running;
    await standIn?.close();
    await env?.teardown();
  });

  it('a worker killed mid-chunk: its chunk is retried on the other worker, no teacher answer is paid twice, and the dataset is the unchunked one', async () => {
    // The first worker is this process's.
    const otherId = await startOtherWorker();

    const cfg = await config(16);
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    const events = () => fetchEvents(handle);
    /** Chunks the second worker is running now (a running activity is in the execution's pending list, not yet in its history). */
    const runningThere = async () => {
      const { raw } = await handle.describe();
      return (raw.pendingActivities ?? []).filter(
        (p) => p.activityType?.name === 'stageChunk' && p.lastWorkerIdentity?.startsWith(otherId) && p.lastStartedTime,
      ).length;
    };
    // Stop answering while the second worker is mid-chunk, give it a moment to cache what it has, then kill it:
    // the answers it still waits for are then never delivered.
    for (let tries = 0; ; tries++) {
      let seen = '';
      await until(
        'the second worker to run a chunk with answers in hand',
        async () => {
          const running = await runningThere();
          seen = `answered ${standIn.answered}, running there ${running}, started by ${[...new Set((await events()).map((e) => e.activityTaskStartedEventAttributes?.identity).filter(Boolean))].join(' ')}`;
          return standIn.answered > 8 && running > 0;
        },
        { timeoutMs: 60_000, diagnose: () => seen },
      );
      standIn.hold();
      await new Promise((r) => setTimeout(r, 1000));
      if ((await runningThere()) > 0) break;
      standIn.release();
      assert.ok(tries < 5, 'never caught the second worker mid-chunk');
    }
    process.kill(-other!.pid!, 'SIGKILL');
    await new Promise((r) => other!.once('exit', r));
    await new Promise((r) => setTimeout(r, 500));
    standIn.release();

    await handle.result();
    const status = await runStatus(handle);
    assert.equal(status.state, 'completed');
    // Identical requests in flight together share one call (the teacher's single-flight), so every count is 1.
    assert.deepEqual(
      [...standIn.answersByRequest().values()].filter((n) => n > 1),
      [],
      'teacher answers paid twice',
    );
    const chunkStarts = chunkStartsOf(await events());
    assert.ok(
      chunkStarts.some((c) => !c.identity.startsWith(otherId)),
      'this worker ran chunks',
    );
    assert.ok(
      chunkStarts.some((c) => c.attempt > 1),
      'the killed chunk was retried',
    );

    // The same dataset from one worker and no chunks (a fresh store: nothing cached, nothing memoised).
    const single = await config(1_000_000);
    const ref = await startRun(env.client, single, { config: single, trigger: 'test' });
    await ref.handle.result();
    const refStatus = await runStatus(ref.handle);
    const shas = (s: typeof status) =>
      Object.fromEntries(
        s.stages
          .filter((x) => ['generate', 'solve', 'validate', 'split'].includes(x.name))
          .flatMap((x) => Object.entries(x.outputs).map(([k, v]) => [`${x.name}.${k}`, v.sha256])),
      );
    assert.deepEqual(shas(status), shas(refStatus));
  });
  it('one teacher budget across two workers: the endpoint never sees more than its requests/s in any 5-second window', async () => {
    const otherId = await startOtherWorker();
    const perSecond = 15;
    const from = standIn.arrivals.length;
    const cfg = await config(8, {
      perGoal: 2,
      rateLimit: { requestsPerSecond: perSecond, store: join(tempDir(), 'rate-limits.sqlite') },
    });
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    await handle.result();
    assert.equal((await runStatus(handle)).state, 'completed');
    const arrivals = standIn.arrivals.slice(from);
    let busiest = 0;
    for (let i = 0, j = 0; i < arrivals.length; i++) {
      while (arrivals[i]! - arrivals[j]! >= 5000) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    assert.ok(arrivals.length > 10 * perSecond, `enough calls to fill several windows (${arrivals.length})`);
    assert.ok(busiest <= perSecond * 5 * 1.1, `${busiest} requests in one 5-second window, budget ${perSecond}/s`);
    const chunkStarts = chunkStartsOf(await fetchEvents(handle));
    assert.ok(
      chunkStarts.some((c) => c.identity.startsWith(otherId)) &&
        chunkStarts.some((c) => !c.identity.startsWith(otherId)),
      'chunks ran on both workers',
    );
    const retried = chunkStarts.filter((c) => c.attempt > 1);
    assert.deepEqual(
      retried,
      [],
      'waiting for the budget failed no chunk (each retried chunk with the failure before it)',
    );
  });
});
