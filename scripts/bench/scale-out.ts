/**
 * Scale-out of the row-parallel stages: `generate` and `solve` (two teacher calls per row) through Temporal on 1, 2
 * and 4 worker processes (`flywheel worker --max-activities 1`: one chunk at a time, `--concurrency` teacher calls
 * in flight each), against a local OpenAI-compatible stand-in teacher with a fixed latency
 * (test/helpers/openai-stand-in.ts; a real endpoint cannot be reached here). Measured from the first generate
 * chunk's start to the end of solve's merge, from the run's history (worker start-up excluded). Efficiency is the
 * teacher calls/s the stand-in answered against the ideal workers × concurrency / latency (a row makes two calls,
 * less where identical requests in flight together share one). The run is terminated after solve: validate and later stages
 * do not call the teacher.
 *
 *   node --import tsx scripts/bench/scale-out.ts [--rows 28000] [--latency-ms 200] [--concurrency 8] [--workers 1,2,4] [--chunks 16]
 *
 * Last line: `scale-out: 1w=<rows/s> 2w=<rows/s> 4w=<rows/s> efficiency4=<0..1>` (efficiency of the most workers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { ingest, listServerTools } from '../../stages/ingest/activity.js';
import { intentsFor } from '../../stages/intents/activity.js';
import { SHIPPED_PACKS } from '../../workers/packs.js';
import { closeAllConnections } from '../../activities/connections.js';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract/search-attributes.js';
import { startStandIn } from '../../test/helpers/openai-stand-in.js';
import { REPO, tempDir, TEMPORAL_BIN } from '../../test/helpers/fixtures.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { runStatus, startRun } from '../lib/runs.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '28000' },
    'latency-ms': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '8' },
    workers: { type: 'string', default: '1,2,4' },
    chunks: { type: 'string', default: '16' },
  },
});
const rows = Number(values.rows);
const latencyMs = Number(values['latency-ms']);
const concurrency = Number(values.concurrency);
const workerCounts = values.workers.split(',').map(Number);
const KEY_ENV = 'FLYWHEEL_BENCH_TEACHER_KEY';
process.env[KEY_ENV] = 'test-key';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, searchAttributes: SEARCH_ATTRIBUTES },
});
const standIn = await startStandIn(undefined, 2500, latencyMs);
const {
  train: _t,
  evaluate: _e,
  gate: _g,
  deploy: _d,
  gateway: _w,
  ...example
} = await loadConfigFile(join(REPO, DEFAULT_CONFIG));

/** The config for `perGoal` intents per goal, in a fresh store (nothing cached or memoised). */
const configFor = (perGoal: number, chunkSize: number): FlywheelConfig =>
  parseConfig({
    ...example,
    name: 'scale-out',
    artifacts: { store: `file://${tempDir('flywheel-scale-out-')}` },
    dataset: {
      ...example.dataset!,
      perGoal,
      chunkSize,
      teacher: {
        kind: 'openai',
        baseUrl: standIn.url,
        model: 'teacher-model',
        apiKeyEnv: KEY_ENV,
        concurrency,
        // One intent per drafting call, so that a row costs two calls and calls/s measures the workers.
        batchSize: 1,
        timeoutMs: 60_000,
      },
    },
  });

/** Intents the intents stage draws at `perGoal` (the stage itself, in this process). */
async function intentsAt(perGoal: number): Promise<number> {
  const cfg = configFor(perGoal, 1000);
  const mock = new MockActivityEnvironment();
  const act = <A, R>(fn: (a: A) => Promise<R>, a: A): Promise<R> => mock.run(fn as never, a as never) as Promise<R>;
  const snapshots = await Promise.all(
    cfg.servers.map((server) => act(listServerTools, { store: cfg.artifacts, server, maxPages: 100 })),
  );
  const { outputs } = await act(ingest, {
    store: cfg.artifacts,
    project: cfg.name,
    catalog: cfg.catalog,
    snapshots,
    runId: 'bench',
  });
  const out = await act(intentsFor(SHIPPED_PACKS), {
    store: cfg.artifacts,
    runId: 'bench',
    dataset: cfg.dataset!,
    catalog: outputs.catalog,
    servers: cfg.servers,
  });
  return out.outputs.intents!.count;
}
// Intents grow linearly with perGoal: two probes give the perGoal for about --rows rows.
const [one, two] = [await intentsAt(1), await intentsAt(2)];
await closeAllConnections();
const perGoal = Math.max(1, Math.round((rows - one) / Math.max(1, two - one)) + 1);

function spawnWorkers(n: number): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker', '--max-activities', '1'], {
      env: { ...process.env, TEMPORAL_ADDRESS: env.address },
      stdio: 'ignore',
      detached: true,
    }),
  );
}

async function pollers(): Promise<number> {
  const q = await env.client.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: 'flywheel' },
    taskQueueType: 2 /* TASK_QUEUE_TYPE_ACTIVITY */,
  });
  return new Set((q.pollers ?? []).map((p) => p.identity)).size;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
type Scheduled = NonNullable<HistoryEvent['activityTaskScheduledEventAttributes']>;

const ms = (t: HistoryEvent['eventTime']) => Number(t!.seconds) * 1000 + Math.round((t!.nanos ?? 0) / 1e6);

interface Measured {
  workers: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Teacher calls the stand-in answered, per second: identical requests in flight together share one. */
  callsPerSecond: number;
  /** workers × concurrency / latency, in calls/s. */
  idealCalls: number;
}

async function measure(workers: number): Promise<Measured> {
  const procs = spawnWorkers(workers);
  try {
    for (let i = 0; (await pollers()) < workers; i++) {
      if (i > 600) throw new Error(`only ${await pollers()} of ${workers} workers polling after 60 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Sized after the intents are known: every worker count gets whole rounds of chunks.
    const cfg = configFor(perGoal, Math.ceil(rows / Number(values.chunks)));
    const callsBefore = standIn.answered;
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'bench' });
    for (;;) {
      const status = await runStatus(handle);
      if (status.state === 'failed')
        throw new Error(`run failed: ${status.stages.find((s) => s.state === 'failed')?.detail}`);
      if (status.stages.find((s) => s.name === 'solve')?.state === 'completed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const calls = standIn.answered - callsBefore;
    // At small sizes the run can finish its later stages before this call: already completed is fine.
    await handle.terminate('scale-out bench: measured through solve').catch((err: unknown) => {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    });
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Map(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => [Number(e.eventId), e.activityTaskScheduledEventAttributes!]),
    );
    const inputOf = (a: Scheduled) =>
      JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString('utf8')) as {
        stage?: string;
        intents?: { count: number };
      };
    const firstChunk = Math.min(
      ...events
        .filter((e) => {
          const s =
            e.activityTaskStartedEventAttributes &&
            scheduled.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId));
          return s?.activityType?.name === 'stageChunk' && inputOf(s).stage === 'generate';
        })
        .map((e) => ms(e.eventTime)),
    );
    const solveDone = events.find(
      (e) =>
        e.activityTaskCompletedEventAttributes &&
        scheduled.get(Number(e.activityTaskCompletedEventAttributes.scheduledEventId))?.activityType?.name === 'solve',
    );
    const generate = [...scheduled.values()].find((s) => s.activityType?.name === 'generate')!;
    const n = inputOf(generate).intents!.count;
    if (!Number.isFinite(firstChunk) || !solveDone)
      throw new Error('no chunked generate or no solve in the history: raise --rows or --chunks');
    const seconds = (ms(solveDone.eventTime) - firstChunk) / 1000;
    return {
      workers,
      rows: n,
      seconds,
      rowsPerSecond: n / seconds,
      callsPerSecond: calls / seconds,
      idealCalls: (workers * concurrency) / (latencyMs / 1000),
    };
  } finally {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) process.kill(-p.pid!, 'SIGTERM');
    await Promise.all(
      procs
        .filter((p) => p.exitCode === null && p.signalCode === null)
        .map((p) => new Promise((r) => p.once('exit', r))),
    );
  }
}

const results: Measured[] = [];
for (const w of workerCounts) results.push(await measure(w));
await standIn.close();
await env.teardown();

console.log(
  `teacher stand-in: ${latencyMs} ms per call, ${concurrency} calls in flight per worker; ${results[0]!.rows} rows (perGoal ${perGoal}), ${values.chunks} chunks per stage`,
);
console.log('workers  rows/s  teacher calls/s  ideal calls/s  efficiency  seconds (generate + solve)');
for (const r of results)
  console.log(
    `${String(r.workers).padStart(7)}  ${r.rowsPerSecond.toFixed(1).padStart(6)}  ${r.callsPerSecond.toFixed(1).padStart(15)}  ${r.idealCalls.toFixed(1).padStart(13)}  ${(r.callsPerSecond / r.idealCalls).toFixed(2).padStart(10)}  ${r.seconds.toFixed(1)}`,
  );
const last = results.at(-1)!;
console.log(
  `scale-out: ${results.map((r) => `${r.workers}w=${r.rowsPerSecond.toFixed(1)}`).join(' ')} efficiency${last.workers}=${(last.callsPerSecond / last.idealCalls).toFixed(2)}`,
);
