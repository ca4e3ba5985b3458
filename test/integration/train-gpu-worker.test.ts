/**
 * The train stage on a real GPU worker process (on CPU here, tiny model): kill the worker mid-training, start
 * another, and the run finishes from the last uploaded checkpoint rather than step 0. Also: bad jobs fail
 * at once and are not retried.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { TrainHeartbeat } from '../../activities/trainer.js';
import { openStore } from '../../core/artifacts/index.js';
import { parseConfig } from '../../core/config/load.js';
import type { TrainerEvent } from '../../core/train/trainer-process.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { ADAPTER_VERSION } from '../../workflows/contract/search-attributes.js';
import { REPO, datasetOnlyDefault, tempDir } from '../helpers/fixtures.js';
import { startTemporal, startWorker } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';
import { recordHistories } from '../helpers/record-histories.js';

let env: TestWorkflowEnvironment;
let cpu: { worker: Worker; running: Promise<void> };
const gpuWorkers: ChildProcess[] = [];

/** The GPU workers' output, for the failure message when a wait times out. */
const workerLogs: string[] = [];

function spawnGpuWorker(workdir: string): ChildProcess {
  const log = join(tempDir('flywheel-gpu-log-'), 'worker.log');
  workerLogs.push(log);
  const fd = openSync(log, 'a');
  const p = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker', '--queue', 'flywheel-gpu'], {
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, FLYWHEEL_GPU_WORKDIR: workdir },
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  gpuWorkers.push(p);
  return p;
}

/**
 * Wait for the run under test; on timeout the GPU workers' logs go into the failure. The bound catches a hang: with
 * another suite on the CPU (`make test` runs two files at a time) a run reaches DPO's first checkpoint in minutes.
 */
function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 600_000): Promise<void> {
  return until(what, cond, {
    timeoutMs,
    intervalMs: 250,
    diagnose: () => workerLogs.map((f) => `--- ${f}\n${readFileSync(f, 'utf8').slice(-3000)}`).join('\n'),
  });
}

/** The details of the train activity's last heartbeat the server holds, if any. */
async function lastHeartbeat(handle: WorkflowHandle): Promise<TrainHeartbeat | undefined> {
  const payload = ((await handle.describe()).raw.pendingActivities ?? [])[0]?.heartbeatDetails?.payloads?.[0];
  return payload === undefined
    ? undefined
    : (defaultPayloadConverter.fromPayload(payload) as TrainHeartbeat | undefined);
}

function trainersRunning(workdir: string): number {
  try {
    return execFileSync('pgrep', ['-f', `${workdir}.*job.json`])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

/**
 * Once `activity` has heartbeaten an uploaded checkpoint, kill the GPU worker running it (and so its trainer),
 * start another, and wait for the run to finish.
 */
async function crashAfterCheckpoint(
  handle: WorkflowHandle,
  activity: string,
  worker: ChildProcess,
  workdir: string,
): Promise<void> {
  await waitFor(`a ${activity} heartbeat naming an uploaded checkpoint`, async () => {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING')
      throw new Error(`the run ended before a checkpoint: ${JSON.stringify(await runStatus(handle))}`);
    return (
      d.raw.pendingActivities?.[0]?.activityType?.name === activity &&
      (await lastHeartbeat(handle))?.checkpoint !== undefined
    );
  });
  process.kill(-worker.pid!, 'SIGKILL');
  await new Promise((r) => worker.once('exit', r));
  await waitFor('the orphaned trainer to stop', () => trainersRunning(workdir) === 0, 10_000);
  spawnGpuWorker(workdir);
  await handle.result();
}

async function smallConfig(name: string, job: Record<string, unknown>) {
  const example = await datasetOnlyDefault();
  return parseConfig({
    ...example,
    name,
    servers: [example.servers[0]!],
    artifacts: { store: `file://${tempDir()}` },
    dataset: { ...example.dataset!, perGoal: 3 },
    train: {
      job: { baseModel: 'tiny:nano', checkpointEvery: 4, logEvery: 1, ...job },
      heartbeatTimeoutSeconds: 10,
      maxAttempts: 3,
    },
  });
}

describe('train stage on the GPU queue', () => {
  before(async () => {
    env = await startTemporal();
    cpu = await startWorker(env);
  });
  after(async () => {
    for (const w of gpuWorkers) if (w.exitCode === null && w.signalCode === null) process.kill(-w.pid!, 'SIGTERM');
    cpu?.worker.shutdown();
    await cpu?.running;
    await env?.teardown();
  });

  it('a killed GPU worker: the retry on a new worker resumes from the last checkpoint, not step 0', async () => {
    const workdir = tempDir('flywheel-gpu-');
    // Long enough that the kill lands mid-training even though the SDK sends heartbeats every 8 s at most (80 % of
    // heartbeatTimeoutSeconds): with one micro-batch a step, 24 and then 48 steps of the tiny model have ended
    // (48 in 17 s, run start to end) before a heartbeat named the first checkpoint. Four micro-batches a step make
    // each step ~4x longer without more steps, checkpoints or events.
    const maxSteps = 48;
    const cfg = await smallConfig('train-crash', {
      optim: {
        epochs: 1,
        maxSteps,
        effectiveBatchSize: 8,
        microBatchSize: 2,
        learningRate: 0.005,
        earlyStoppingPatience: 0,
      },
    });
    const store = openStore(cfg.artifacts.store);
    const first = spawnGpuWorker(workdir);
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });

    // The first checkpoint (step 4) is uploaded and the server has a heartbeat naming it; then the worker dies.
    await crashAfterCheckpoint(handle, 'train', first, workdir);

    const status = await runStatus(handle);
    const train = status.stages.find((s) => s.name === 'train')!;
    assert.equal(train.state, 'completed');
    const adapter = await store.manifest(train.outputs.adapter!.sha256);
    const stats = adapter.stats as { adapterVersion: string; steps: number; resumedFromStep: number | null };
    // The curve holds both attempts: step 0 .. checkpoint, then a start at the checkpoint's step.
    const events = (await store.read(train.outputs.metrics!))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TrainerEvent);
    const attemptsSeen = ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    const why = JSON.stringify({ attempts: attemptsSeen, events: events.filter((e) => e.event !== 'step') });
    assert.equal(stats.steps, maxSteps, why);
    assert.ok(
      stats.resumedFromStep !== null && stats.resumedFromStep >= 4,
      `resumed from step ${stats.resumedFromStep}`,
    );
    assert.match(
      train.detail,
      new RegExp(
        `^${stats.adapterVersion}: ${maxSteps} steps, eval loss [0-9.]+→[0-9.]+, resumed at ${stats.resumedFromStep}$`,
      ),
    );
    const starts = events.filter((e) => e.event === 'start').map((e) => e.step);
    assert.deepEqual(starts, [0, stats.resumedFromStep], why);
    const steps = events.filter((e) => e.event === 'step').map((e) => e.step!);
    assert.deepEqual(
      steps,
      Array.from({ length: maxSteps }, (_, i) => i + 1),
      'every step once: none redone, none skipped',
    );

    const files = (await store.readTree(train.outputs.adapter!)).map((f) => f.path);
    for (const f of [
      'adapter/adapter_config.json',
      'adapter/adapter_model.safetensors',
      'adapter/tokenizer.json',
      'adapter/chat_template.jinja',
      'base/model.safetensors',
      'metrics.jsonl',
    ])
      assert.ok(files.includes(f), f);
    const attempts = ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.ok(attempts.includes(2), `the train activity was retried (attempts ${attempts})`);
    assert.equal((await handle.describe()).typedSearchAttributes.get(ADAPTER_VERSION), stats.adapterVersion);
    assert.match(stats.adapterVersion, /^adp-[0-9a-f]{12}$/);
  });

  it('SFT then DPO: a GPU worker killed mid-DPO, the retry resumes from the DPO checkpoint, and the DPO adapter is the candidate', async () => {
    for (const w of gpuWorkers.filter((w) => w.exitCode === null && w.signalCode === null)) {
      process.kill(-w.pid!, 'SIGTERM');
      await new Promise((r) => w.once('exit', r));
    }
    const workdir = tempDir('flywheel-gpu-');
    const maxSteps = 24;
    const base = await smallConfig('preference-crash', {
      optim: { epochs: 1, maxSteps: 8, effectiveBatchSize: 4, microBatchSize: 4, learningRate: 0.005 },
    });
    const cfg = parseConfig({
      ...base,
      // Enough rows that the val split holds negatives that make pairs (absent tools and missing scopes make none).
      dataset: { ...base.dataset!, perGoal: 8 },
      preference: {
        beta: 0.1,
        job: {
          optim: { maxSteps, effectiveBatchSize: 8, microBatchSize: 2, learningRate: 0.002, earlyStoppingPatience: 0 },
        },
      },
      evaluate: { limit: 4, concurrency: 2 },
    });
    const store = openStore(cfg.artifacts.store);
    const first = spawnGpuWorker(workdir);
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });

    // DPO's first checkpoint is uploaded and named in a heartbeat of the preference activity; then the worker dies.
    await crashAfterCheckpoint(handle, 'preference', first, workdir);

    const status = await runStatus(handle);
    const stage = (n: string) => status.stages.find((s) => s.name === n)!;
    assert.deepEqual(
      ['train', 'preference', 'evaluate'].map((n) => stage(n).state),
      ['completed', 'completed', 'completed'],
    );
    const sft = stage('train').outputs.adapter!;
    const dpo = stage('preference').outputs.adapter!;
    const stats = (await store.manifest(dpo.sha256)).stats as {
      adapterVersion: string;
      method: string;
      steps: number;
      resumedFromStep: number | null;
    };
    const events = (await store.read(stage('preference').outputs.metrics!))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TrainerEvent);
    const why = JSON.stringify(events.filter((e) => e.event !== 'step'));
    assert.equal(stats.method, 'dpo');
    assert.equal(stats.steps, maxSteps, why);
    assert.ok(
      stats.resumedFromStep !== null && stats.resumedFromStep >= 4,
      `resumed from step ${stats.resumedFromStep}`,
    );
    assert.deepEqual(
      events.filter((e) => e.event === 'start').map((e) => e.step),
      [0, stats.resumedFromStep],
      why,
    );
    assert.deepEqual(
      events.filter((e) => e.event === 'step').map((e) => e.step!),
      Array.from({ length: maxSteps }, (_, i) => i + 1),
      'every DPO step once',
    );
    const attempts = ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.ok(attempts.includes(2), `the preference activity was retried (attempts ${attempts})`);

    // One LoRA on the base, continuing the SFT adapter; the pairs named that adapter's dataset.
    const tree = await store.readTree(dpo);
    const meta = JSON.parse(
      (await store.readTreeFile(tree.find((f) => f.path === 'adapter/flywheel.json')!)).toString(),
    ) as { method: string; trainSha256: string };
    assert.equal(meta.method, 'dpo');
    assert.equal(
      meta.trainSha256,
      stage('render').outputs.renderedTrain!.sha256,
      'the SFT dataset, as the pairs name it',
    );
    for (const f of ['adapter/adapter_model.safetensors', 'base/model.safetensors'])
      assert.ok(
        tree.some((t) => t.path === f),
        f,
      );
    const pairs = await store.readJsonl<{ dataset: string; chosen: unknown; rejected: unknown }>(
      stage('render').outputs.pairsTrain!,
    );
    assert.ok(pairs.length > 0 && pairs.every((p) => p.dataset === meta.trainSha256));

    // The candidate evaluate scored, and the run's adapter version, are DPO's.
    assert.notEqual(dpo.sha256, sft.sha256);
    assert.equal((await handle.describe()).typedSearchAttributes.get(ADAPTER_VERSION), stats.adapterVersion);
    const scheduled = ((await handle.fetchHistory()).events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'evaluate');
    const evalArgs = defaultPayloadConverter.fromPayload(scheduled[0]!.input!.payloads![0]!) as {
      adapter: { sha256: string };
      adapterVersion: string;
    };
    assert.deepEqual([evalArgs.adapter.sha256, evalArgs.adapterVersion], [dpo.sha256, stats.adapterVersion]);

    // The deploy tag is named where the candidate is trained: DPO's on the same SFT dataset as train's, its own adapter.
    const history = (await handle.fetchHistory()).events ?? [];
    const resultOf = (type: string) => {
      const id = history.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)!.eventId;
      const done = history.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(id));
      return defaultPayloadConverter.fromPayload(done!.activityTaskCompletedEventAttributes!.result!.payloads![0]!) as {
        adapterTag: string;
      };
    };
    const [sftTag, dpoTag] = [resultOf('train').adapterTag, resultOf('preference').adapterTag];
    assert.match(dpoTag, /^[0-9a-f]{8}-[0-9a-f]{8}$/);
    assert.equal(dpoTag.split('-')[0], sftTag.split('-')[0], 'named on the SFT dataset');
    assert.notEqual(dpoTag, sftTag);
    await recordHistories(env.address, { 'flywheel-run-preference-stage-named': handle });
  });

  it('cancelling the run stops the trainer and the run ends Cancelled', async () => {
    for (const w of gpuWorkers.filter((w) => w.exitCode === null && w.signalCode === null)) {
      process.kill(-w.pid!, 'SIGTERM');
      await new Promise((r) => w.once('exit', r));
    }
    const workdir = tempDir('flywheel-gpu-');
    spawnGpuWorker(workdir);
    // No early stopping: with the default patience the run could stop itself before the cancel lands.
    const cfg = await smallConfig('train-cancel', {
      optim: {
        epochs: 1,
        maxSteps: 500,
        effectiveBatchSize: 2,
        microBatchSize: 2,
        learningRate: 0.005,
        earlyStoppingPatience: 0,
      },
    });
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    await waitFor('a heartbeat reporting a training step', async () => ((await lastHeartbeat(handle))?.step ?? 0) >= 1);
    assert.equal(trainersRunning(workdir), 1);
    await handle.cancel();
    await assert.rejects(handle.result());
    await waitFor('the trainer to be gone', () => trainersRunning(workdir) === 0, 30_000);
    const status = await runStatus(handle);
    assert.equal(status.state, 'cancelled');
    const train = status.stages.find((s) => s.name === 'train')!;
    assert.deepEqual([train.state, train.detail], ['failed', 'cancelled']);
  });

  it('a bad job fails the run at once, naming the problem, without retries', async () => {
    const workdir = tempDir('flywheel-gpu-');
    if (!gpuWorkers.some((w) => w.exitCode === null && w.signalCode === null)) spawnGpuWorker(workdir);
    for (const [job, expected] of [
      [{ baseModel: 'tiny:huge' }, /unknown tiny preset 'huge'/],
      [{ optim: { maxLength: 64 } }, /longer than optim\.maxLength=64/],
    ] as const) {
      const cfg = await smallConfig(`train-bad-${String(expected).length}`, job);
      const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
      await assert.rejects(handle.result());
      const status = await runStatus(handle);
      const train = status.stages.find((s) => s.name === 'train')!;
      assert.equal(train.state, 'failed');
      assert.match(status.error ?? '', expected);
      assert.match(train.detail, /^bad train job: /);
      const attempts = ((await handle.fetchHistory()).events ?? []).filter(
        (e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
      );
      assert.equal(attempts.length, 0, 'not retried');
    }
  });
});
