/**
 * The retrain policy and script-started runs on a real dev server with real CPU and GPU workers (tiny model):
 * the first run trains and sets the trace watermark; a run with too few new trace rows stops before training
 * and says why; `flywheel run --traces s3://… --reason … --idempotency-key …` reads traces from a real
 * S3-compatible server (moto, standing in for AWS S3), trains on the new rows, and the same key again returns
 * the same run, while the key with a different request is refused.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { openStore } from '../../core/artifacts/index.js';
import { parseConfig } from '../../core/config/load.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import type { RunProgress } from '../../core/pipeline/types.js';
import { readWatermark } from '../../core/traces/watermark.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { FLYWHEEL_STAGE } from '../../workflows/contract/search-attributes.js';
import { datasetOnlyDefault, runCli, tempDir } from '../helpers/fixtures.js';
import { recordHistories } from '../helpers/record-histories.js';
import { startMoto, type Moto } from '../helpers/moto.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';

/** One-call traces (get_record on a distinct account each), so every trace is one new row. */
function traces(from: number, n: number): string {
  return (
    Array.from({ length: n }, (_, k) => {
      const id = `0018d${String(from + k).padStart(10, '0')}QAA`;
      return JSON.stringify({
        metadata: { domain: 'salesforce', persona: 'sales-rep', scopes: ['sf.read'] },
        messages: [
          { role: 'user', content: `Open the account record ${id}, please.` },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c1',
                type: 'function',
                function: { name: 'get_record', arguments: JSON.stringify({ objectName: 'Account', recordId: id }) },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ result: { Id: id } }) },
        ],
      });
    }).join('\n') + '\n'
  );
}

describe('retrain policy: trace watermark, skip with a reason, script-started runs from S3', () => {
  let env: TestWorkflowEnvironment;
  let flywheel: Flywheel;
  let moto: Moto;
  let dir: string;

  before(async () => {
    dir = tempDir('flywheel-retrain-');
    moto = await startMoto(['traces']);
    // The in-process workers read s3:// trace sources through the same settings a deployed worker would.
    process.env.FLYWHEEL_S3_ENDPOINT = moto.endpoint;
    flywheel = await startFlywheel();
    env = flywheel.env;
  });
  after(async () => {
    await flywheel?.stop();
    moto?.stop();
  });

  async function config(tracesDir: string): Promise<FlywheelConfig> {
    const example = await datasetOnlyDefault();
    return parseConfig({
      ...example,
      name: 'retrain',
      servers: [example.servers[0]!],
      artifacts: { store: `file://${join(dir, 'artifacts')}` },
      dataset: { ...example.dataset!, perGoal: 3 },
      traces: [tracesDir],
      retrain: { minNewTraceRows: 3 },
      train: {
        job: {
          baseModel: 'tiny:nano',
          optim: {
            epochs: 1,
            maxSteps: 2,
            effectiveBatchSize: 4,
            microBatchSize: 4,
            learningRate: 0.005,
            maxLength: 16384,
          },
          checkpointEvery: 2,
          logEvery: 1,
        },
        heartbeatTimeoutSeconds: 60,
        maxAttempts: 2,
      },
    });
  }

  const stage = (p: RunProgress, name: string) => p.stages.find((s) => s.name === name)!;

  it('trains first, skips with the reason when too little is new, trains again on new S3 traces; keys are idempotent', async () => {
    const local = join(dir, 'gateway-traces');
    mkdirSync(local);
    writeFileSync(join(local, '2026-11-28.jsonl'), traces(0, 5));
    const cfg = await config(local);
    const store = openStore(cfg.artifacts.store);

    // 1. No watermark yet: the first run trains and sets it.
    const first = await startRun(env.client, cfg, { config: cfg, trigger: 'schedule:nightly' });
    const a = await runResult(first.handle);
    assert.match(stage(a, 'watermark').detail, /^5 new trace rows of 5; no watermark yet/);
    assert.equal(stage(a, 'train').state, 'completed');
    assert.equal(a.skipReason, null);
    const mark = await readWatermark(store, 'retrain');
    assert.equal(mark?.runId, first.runId);
    assert.equal(mark?.rows, 5);

    // 2. Two new rows, three needed: the run stops after the watermark, completed, and says why.
    writeFileSync(join(local, '2026-11-29.jsonl'), traces(5, 2));
    const second = await startRun(env.client, cfg, { config: cfg, trigger: 'schedule:nightly' });
    const b = await runResult(second.handle);
    assert.equal(b.state, 'completed');
    assert.match(
      b.skipReason ?? '',
      new RegExp(`^not enough new data: 2 new trace rows of 7 since run ${first.runId} \\(.+\\), need 3$`),
    );
    assert.equal(stage(b, 'traces').state, 'completed');
    for (const name of ['corrupt', 'split', 'render', 'train']) assert.equal(stage(b, name).state, 'skipped', name);
    assert.equal(
      (await second.handle.describe()).typedSearchAttributes.get(FLYWHEEL_STAGE),
      'skipped',
      'operators can list skipped runs',
    );
    assert.equal((await runStatus(second.handle)).skipReason, b.skipReason, 'flywheel status shows the reason');
    assert.equal(
      (await readWatermark(store, 'retrain'))?.runId,
      first.runId,
      'a skipped run leaves the watermark alone',
    );

    // 3. Two more rows land in S3; a script starts a run on them: four new rows since the watermark, it trains.
    await moto.client.send(
      new PutObjectCommand({ Bucket: 'traces', Key: 'incoming/batch-1.jsonl', Body: traces(7, 2) }),
    );
    await moto.client.send(
      new PutObjectCommand({ Bucket: 'traces', Key: 'incoming/nested/ignored.jsonl', Body: traces(100, 9) }),
    );
    const file = join(dir, 'retrain.json');
    writeFileSync(file, JSON.stringify(cfg));
    const cli = (args: string[]) => runCli(['run', '--config', file, ...args], { TEMPORAL_ADDRESS: env.address });
    const args = [
      '--traces',
      's3://traces/incoming/',
      '--reason',
      'batch-1 of support traces landed',
      '--idempotency-key',
      'support-batch-1',
      '--trigger',
      'script:etl',
      '--json',
    ];
    const started = await cli(args);
    assert.equal(started.code, 0, started.stderr);
    const out = JSON.parse(started.stdout) as { runId: string; workflowId: string; created: boolean };
    assert.equal(out.workflowId, 'flywheel-retrain:support-batch-1');
    assert.equal(out.created, true);
    const third = env.client.workflow.getHandle(out.workflowId, out.runId);
    const c = await runResult(third);
    assert.match(stage(c, 'traces').detail, /^9 traces -> 9 rows/, "the prefix's direct objects, not its subfolder");
    assert.match(stage(c, 'watermark').detail, new RegExp(`^4 new trace rows of 9 since run ${first.runId}`));
    assert.equal(stage(c, 'train').state, 'completed');
    assert.equal(c.reason, 'batch-1 of support traces landed');
    assert.equal(c.trigger, 'script:etl');
    const desc = await third.describe();
    assert.match((await desc.staticSummary()) ?? '', /batch-1 of support traces landed/);
    assert.equal((await readWatermark(store, 'retrain'))?.runId, out.runId);

    // 4. The same key again: the same (finished) run, nothing new started.
    const again = await cli(args);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { ...out, created: false });
    let executions = 0;
    for await (const _ of env.client.workflow.list({ query: `WorkflowId = '${out.workflowId}'` })) executions++;
    assert.equal(executions, 1);

    // 5. The key with a different request is refused, naming the run it belongs to.
    const other = await cli(['--traces', 's3://traces/other/', '--idempotency-key', 'support-batch-1']);
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      new RegExp(
        `idempotency key "support-batch-1" already started run ${out.runId} \\(completed\\) with a different request`,
      ),
    );

    // 6. force trains with nothing new (the adapter comes from the stage memo), and says it was forced.
    const forced = await startRun(env.client, cfg, { config: cfg, trigger: 'cli', force: true });
    const d = await runResult(forced.handle);
    assert.match(stage(d, 'watermark').detail, /training forced by the run's input$/);
    assert.notEqual(stage(d, 'train').state, 'skipped');
    const after = await readWatermark(store, 'retrain');
    assert.equal(after?.runId, forced.runId);
    assert.equal(after?.rows, 9, 'a run with fewer sources (no S3 prefix) does not shrink the watermark');
    assert.deepEqual((await store.readJsonl<string>(after!.seen)).length, 9);

    await recordHistories(env.address, {
      'flywheel-run-retrain-skipped-stage-named': second.handle,
      'flywheel-run-retrain-trained-stage-named': third,
    });

    // 7. gc with Temporal: the newest run's every output (from its history), the watermark and every run's
    // config survive --keep-last 1 --min-age 0; older runs' unshared outputs go.
    const swept = await runCli(
      ['gc', '--store', cfg.artifacts.store, '--no-registry', '--keep-last', '1', '--min-age', '0', '--json'],
      { TEMPORAL_ADDRESS: env.address },
    );
    assert.equal(swept.code, 0, swept.stderr);
    const plan = JSON.parse(swept.stdout) as { roots: Record<string, number>; delete: { manifests: string[] } };
    assert.ok(plan.roots['recent-run']! > 0 && plan.roots.config === 2, JSON.stringify(plan.roots)); // the bare config and the one with the S3 prefix
    assert.ok(plan.delete.manifests.length > 0, 'older runs left something to collect');
    const newest = await runStatus(forced.handle);
    for (const s of newest.stages) for (const ref of Object.values(s.outputs)) await store.read(ref);
    await store.read(after!.seen);
    await store.read(a.configRef!);
  });

  it('a missing S3 prefix fails the run at once, naming it; the key of a failed run may start again', async () => {
    const cfg = await config(join(dir, 'gateway-traces'));
    const input = { config: cfg, traces: ['s3://traces/nothing-here/'], trigger: 'test', idempotencyKey: 'empty-1' };
    const run = await startRun(env.client, cfg, input);
    await assert.rejects(run.handle.result());
    const status = await runStatus(run.handle);
    assert.match(status.error ?? '', /s3:\/\/traces\/nothing-here\/: no \*\.jsonl or \*\.json trace objects/);
    const retried = await startRun(env.client, cfg, input);
    assert.equal(retried.created, true, 'a failed run does not hold its key');
    assert.notEqual(retried.runId, run.runId);
    await assert.rejects(retried.handle.result());
  });
});
