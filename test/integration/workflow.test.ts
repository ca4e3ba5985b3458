/** flywheelRun on a real Temporal dev server with real MCP servers (fixture server over stdio and HTTP). */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { openStore } from '../../core/artifacts/index.js';
import type { Catalog } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import type { ConfigInput } from '../../core/config/schema.js';
import { findRun, runStatus, startRun } from '../../scripts/lib/runs.js';
import { DATASET_SHA, FLYWHEEL_STAGE } from '../../workflows/contract/search-attributes.js';
import { entityOverlap } from '../../core/dataset/split.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { REPO, datasetOnlyDefault, fixtureStdio, runCli, startFixtureHttp, tempDir } from '../helpers/fixtures.js';
import { startTemporal, startWorker } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';
import { recordHistories } from '../helpers/record-histories.js';

let env: TestWorkflowEnvironment;
let worker: { worker: Worker; running: Promise<void> };
let http: Awaited<ReturnType<typeof startFixtureHttp>>;

function config(name: string, extra: Partial<ConfigInput> = {}): ConfigInput {
  return {
    version: 1,
    name,
    artifacts: { store: `file://${tempDir()}` },
    servers: [
      fixtureStdio('crm', ['--tools', '4', '--bad']),
      { name: 'erp', http: { url: http.url }, timeoutMs: 5000 },
    ],
    ...extra,
  };
}

async function historyEvents(workflowId: string, runId: string) {
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

describe('flywheelRun', () => {
  before(async () => {
    env = await startTemporal();
    worker = await startWorker(env);
    http = await startFixtureHttp(['--prefix', 'erp', '--tools', '3']);
  });
  after(async () => {
    worker?.worker.shutdown();
    await worker?.running;
    await http?.stop();
    await env?.teardown();
  });

  it('ingests every server into one catalog and reports outputs, search attributes and details', async () => {
    const cfg = parseConfig(config('ingest-ok'));
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    const result = await handle.result();
    assert.equal(result.state, 'completed');
    const status = await runStatus(handle);
    assert.equal(status.state, 'completed');
    assert.deepEqual(
      status.stages.map((s) => [s.name, s.state]),
      [['ingest', 'completed']],
    );
    const { catalog, catalogDiff } = status.stages[0]!.outputs;
    assert.ok(catalog && catalogDiff);
    const store = openStore(cfg.artifacts.store);
    const cat = await store.readJson<Catalog>(catalog);
    assert.deepEqual(
      cat.servers.map((s) => [s.name, s.tools, s.quarantined]),
      [
        ['crm', 4, 4],
        ['erp', 3, 0],
      ],
    );
    assert.equal((await store.readJson<{ added: string[] }>(catalogDiff)).added.length, 7);
    const desc = await handle.describe();
    assert.equal(desc.typedSearchAttributes.get(FLYWHEEL_STAGE), 'done');
    assert.match(status.stages[0]!.detail, /^cat-[0-9a-f]{12}: 7 tools, 4 quarantined$/);
  });

  it('runs the embedded default end to end: both sandboxes, every dataset stage, the same dataset from the same seed, chunked on two workers or not', async () => {
    // Dataset stages only: training has its own test (train-gpu-worker.test.ts) with a GPU worker.
    const example = await datasetOnlyDefault();
    const run = async (chunkSize?: number) => {
      const cfg = {
        ...example,
        artifacts: { ...example.artifacts, store: `file://${tempDir()}` },
        dataset: { ...example.dataset!, perGoal: 6, ...(chunkSize ? { chunkSize } : {}) },
      };
      const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
      await handle.result();
      return { cfg, handle, status: await runStatus(handle) };
    };
    const first = await run();
    const { status, cfg } = first;
    assert.deepEqual(
      status.stages.map((s) => [s.name, s.state]),
      ['ingest', 'intents', 'generate', 'solve', 'validate', 'corrupt', 'split', 'render'].map((n) => [n, 'completed']),
    );
    const store = openStore(cfg.artifacts.store);
    const cat = await store.readJson<Catalog>(status.stages[0]!.outputs.catalog!);
    assert.deepEqual(
      cat.servers.map((s) => [s.name, s.tools, s.quarantined]),
      [
        ['oracle-ebs', 18, 0],
        ['salesforce', 19, 0],
      ],
    );
    const split = status.stages.find((s) => s.name === 'split')!.outputs;
    const rows = async (name: string) => store.readJsonl<RouterRow>(split[name]!);
    const [train, val, test] = [await rows('train'), await rows('val'), await rows('test')];
    assert.deepEqual(entityOverlap({ train, val, test }), []);
    assert.ok(test.length > 0 && val.length > 0 && train.length > test.length);
    assert.equal((await first.handle.describe()).typedSearchAttributes.get(DATASET_SHA), split.train!.sha256);
    const rendered = await store.readJsonl<{
      prompt: unknown[];
      completion: Array<{ content: string }>;
      tools: unknown[];
    }>(status.stages.find((s) => s.name === 'render')!.outputs.renderedTest!);
    assert.equal(rendered.length, test.length);
    for (const r of rendered) JSON.parse(r.completion[0]!.content);

    const cli = { TEMPORAL_ADDRESS: env.address };
    const preview = await runCli(['dataset', 'preview', status.runId, '--n', '2', '--split', 'test'], cli);
    assert.equal(preview.code, 0, preview.stderr);
    assert.equal(preview.stdout.match(/\[completion — gets loss\]/g)?.length, 2);
    assert.match(preview.stdout, /prompt ≈\d+ tokens/);
    const stats = await runCli(['dataset', 'stats', status.runId], cli);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /^split\s+rows\s+call\s+abstain/m);

    // Another store, so nothing is memoized: the same seed must rebuild byte-identical artifacts, here with the
    // row-parallel stages split into chunks that a second worker shares.
    const intents = status.stages.find((s) => s.name === 'intents')!.outputs.intents!.count;
    // A second worker process polling the same queue, as on another machine.
    const other = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker'], {
      env: { ...process.env, TEMPORAL_ADDRESS: env.address },
      stdio: 'ignore',
      detached: true,
    });
    let second: Awaited<ReturnType<typeof run>>;
    try {
      await until(
        'the second worker polls for activities',
        async () => {
          const q = await env.client.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: 'flywheel' },
            taskQueueType: 2 /* TASK_QUEUE_TYPE_ACTIVITY */,
          });
          return (q.pollers ?? []).some((p) => p.identity?.startsWith(`${other.pid}@`));
        },
        { timeoutMs: 60_000 },
      );
      second = await run(Math.ceil(intents / 8));
    } finally {
      process.kill(-other.pid!, 'SIGTERM');
    }
    const sha = (s: typeof status, stage: string) =>
      Object.fromEntries(
        Object.entries(s.stages.find((x) => x.name === stage)!.outputs).map(([k, v]) => [k, v.sha256]),
      );
    for (const stage of ['generate', 'solve', 'validate', 'split', 'render'])
      assert.deepEqual(sha(second.status, stage), sha(status, stage), `${stage}'s outputs, chunked and not`);
    const events = await historyEvents(second.handle.workflowId, second.status.runId);
    const chunksOf = events.flatMap((e) => {
      const s = e.activityTaskScheduledEventAttributes;
      return s?.activityType?.name === 'stageChunk'
        ? [(JSON.parse(Buffer.from(s.input!.payloads![0]!.data!).toString('utf8')) as { stage: string }).stage]
        : [];
    });
    assert.deepEqual(
      ['generate', 'solve', 'validate'].map((st) => chunksOf.filter((x) => x === st).length),
      [8, 8, 8],
      'chunks per stage',
    );
    const chunkWorkers = new Set(
      events.flatMap((e, i, all) => {
        const started = e.activityTaskStartedEventAttributes;
        const scheduled =
          started &&
          all.find((x) => Number(x.eventId) === Number(started.scheduledEventId))?.activityTaskScheduledEventAttributes;
        return scheduled?.activityType?.name === 'stageChunk' ? [started!.identity] : [];
      }),
    );
    assert.ok(
      [...chunkWorkers].some((w) => w?.startsWith(`${other.pid}@`)) && chunkWorkers.size === 2,
      `chunks ran on ${[...chunkWorkers].join(', ')}`,
    );
    await recordHistories(env.address, { 'flywheel-run-dataset-chunked': second.handle });
  });

  it('joins trace rows from the config to the generated ones', async () => {
    // Dataset stages only: training has its own test (train-gpu-worker.test.ts) with a GPU worker.
    const example = await datasetOnlyDefault();
    const cfg = parseConfig({
      ...example,
      name: 'with-traces',
      artifacts: { store: `file://${tempDir()}` },
      dataset: { ...example.dataset!, perGoal: 2 },
      traces: [{ path: join(REPO, 'test', 'fixtures', 'traces', 'good.jsonl'), domain: 'salesforce' }],
    });
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    await handle.result();
    const status = await runStatus(handle);
    const traces = status.stages.find((s) => s.name === 'traces')!;
    assert.equal(traces.state, 'completed');
    assert.match(traces.detail, /^4 traces -> 3 rows, 0 rejected/);
    const augmented = await openStore(cfg.artifacts.store).readJsonl<RouterRow>(
      status.stages.find((s) => s.name === 'corrupt')!.outputs.augmented!,
    );
    assert.equal(augmented.filter((r) => r.provenance.source === 'trace').length, 3);
  });

  it('after a config edit, only the stages the table keys by the edited value run again', async () => {
    const example = await datasetOnlyDefault();
    const cfg = parseConfig({
      ...example,
      name: 'memo-edit',
      artifacts: { store: `file://${tempDir()}` },
      dataset: { ...example.dataset!, perGoal: 2 },
    });
    const states = async (c: typeof cfg) => {
      const { handle } = await startRun(env.client, c, { config: c, trigger: 'test' });
      await handle.result();
      return Object.fromEntries((await runStatus(handle)).stages.map((s) => [s.name, s.state]));
    };
    await states(cfg);
    const edited = await states({
      ...cfg,
      dataset: { ...cfg.dataset!, negativeShare: cfg.dataset!.negativeShare / 2 },
    });
    assert.deepEqual(edited, {
      ingest: 'reused',
      intents: 'reused',
      generate: 'reused',
      solve: 'reused',
      validate: 'reused',
      corrupt: 'completed',
      split: 'completed',
      render: 'completed',
    });
  });

  it('a second run of the same config reuses the memoized catalog stage', async () => {
    const cfg = parseConfig(config('ingest-twice'));
    const first = await startRun(env.client, cfg, { config: cfg });
    await first.handle.result();
    const second = await startRun(env.client, cfg, { config: cfg });
    assert.notEqual(second.runId, first.runId);
    assert.equal(second.handle.workflowId, first.handle.workflowId, 'same business key, same workflow id');
    await second.handle.result();
    const s1 = await runStatus(first.handle);
    const s2 = await runStatus(second.handle);
    assert.equal(s2.stages[0]!.state, 'reused');
    assert.deepEqual(s2.stages[0]!.outputs, s1.stages[0]!.outputs);
  });

  it('attaches to a run already in progress instead of starting a duplicate', async () => {
    const cfg = parseConfig(
      config('dup', { servers: [fixtureStdio('slow', ['--tools', '2', '--page-size', '1', '--delay-ms', '1500'])] }),
    );
    const a = await startRun(env.client, cfg, { config: cfg });
    const b = await startRun(env.client, cfg, { config: cfg });
    assert.equal(a.created, true);
    assert.equal(b.created, false);
    assert.equal(b.runId, a.runId);
    await a.handle.result();
  });

  it('answers the progress query while a stage runs', async () => {
    const cfg = parseConfig(
      config('query', { servers: [fixtureStdio('slow', ['--tools', '3', '--page-size', '1', '--delay-ms', '1000'])] }),
    );
    const { handle } = await startRun(env.client, cfg, { config: cfg });
    let seen = '';
    for (let i = 0; i < 40 && seen !== 'running'; i++) {
      seen = (await handle.query<{ stages: Array<{ state: string }> }>('progress')).stages[0]!.state;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(seen, 'running');
    await handle.result();
  });

  it('fails fast on a bad inline config, naming the key path (not retried)', async () => {
    const handle = await env.client.workflow.start('flywheelRun', {
      taskQueue: 'flywheel',
      workflowId: 'bad-config',
      args: [{ config: { version: 1, name: 'x', servers: [{ name: 'a', stdio: { comand: 'node' } }] } }],
    });
    await assert.rejects(handle.result(), (e: Error) =>
      /servers\[0\]\.stdio\.comand: unknown key/.test(String((e.cause as Error)?.message ?? e.message)),
    );
    const started = (await historyEvents('bad-config', (await handle.describe()).runId)).filter(
      (e) => e.activityTaskStartedEventAttributes,
    );
    assert.deepEqual(
      started.map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [1],
    );
  });

  it("fails fast when a server's token variable is unset, naming the server; resume continues after the fix", async () => {
    delete process.env.FLYWHEEL_TEST_ERP_TOKEN;
    const cfg = parseConfig(
      config('resume', {
        servers: [
          fixtureStdio('crm', ['--tools', '2']),
          { name: 'erp', http: { url: http.url, bearerTokenEnv: 'FLYWHEEL_TEST_ERP_TOKEN' }, timeoutMs: 5000 },
        ],
      }),
    );
    const { handle, runId } = await startRun(env.client, cfg, { config: cfg });
    await assert.rejects(handle.result());
    const failed = await runStatus(handle);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.stages[0]!.state, 'failed');
    assert.match(failed.stages[0]!.detail, /MCP server "erp": environment variable FLYWHEEL_TEST_ERP_TOKEN/);
    assert.match(failed.error ?? '', /FLYWHEEL_TEST_ERP_TOKEN/);

    // The operator sets the token on the worker and resumes through the CLI.
    process.env.FLYWHEEL_TEST_ERP_TOKEN = 'any';
    const resumed = await runCli(['run', '--resume', runId, '--wait', '--json'], { TEMPORAL_ADDRESS: env.address });
    assert.equal(resumed.code, 0, resumed.stderr);
    const status = JSON.parse(resumed.stdout);
    assert.equal(status.state, 'completed');
    assert.notEqual(status.runId, runId);
    assert.equal(status.workflowId, handle.workflowId);
    assert.equal(status.stages[0].state, 'completed');
    assert.equal((await runStatus(await findRun(env.client, status.runId))).state, 'completed');
  });

  it('status --json and runs --json follow their contracts', async () => {
    const cfg = parseConfig(config('cli-contract'));
    const { handle, runId } = await startRun(env.client, cfg, { config: cfg });
    await handle.result();
    const envVars = { TEMPORAL_ADDRESS: env.address };
    const st = await runCli(['status', runId, '--json'], envVars);
    assert.equal(st.code, 0, st.stderr);
    const s = JSON.parse(st.stdout);
    assert.deepEqual(
      Object.keys(s)
        .filter((k) => ['runId', 'workflowId', 'state', 'stages'].includes(k))
        .sort(),
      ['runId', 'stages', 'state', 'workflowId'],
    );
    assert.equal(s.runId, runId);
    assert.deepEqual(Object.keys(s.stages[0]).sort(), [
      'detail',
      'finishedAt',
      'name',
      'outputs',
      'startedAt',
      'state',
    ]);
    for (const ref of Object.values(s.stages[0].outputs) as Array<Record<string, unknown>>) {
      assert.deepEqual(Object.keys(ref).sort(), ['bytes', 'count', 'kind', 'sha256', 'uri']);
    }
    const byWorkflowId = await runCli(['status', handle.workflowId, '--json'], envVars);
    assert.equal(JSON.parse(byWorkflowId.stdout).runId, runId);

    // Visibility is eventually consistent: wait until the list shows this run.
    let runs: Array<{ runId: string; startedAt: string }> = [];
    for (let i = 0; i < 50 && !runs.some((r) => r.runId === runId); i++) {
      const ls = await runCli(['runs', '--json'], envVars);
      assert.equal(ls.code, 0, ls.stderr);
      runs = JSON.parse(ls.stdout);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(runs.length >= 2);
    assert.equal(runs[0]!.runId, runId, 'newest first');
    const sorted = [...runs].sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
    assert.deepEqual(runs, sorted);

    const missing = await runCli(['status', '00000000-0000-0000-0000-000000000000'], envVars);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no run with run id/);
  });
});
