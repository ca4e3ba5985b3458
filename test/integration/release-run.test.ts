/**
 * The whole release path in flywheelRun on a real dev server: train → evaluate → gate (waiting for approval)
 * → approve by Update → deploy to the real local serving backend → requests through the router gateway,
 * escalated to a frontier stand-in → the next run ingests those gateway traces, and a reject signal (the
 * Temporal UI's path) holds its candidate. The frontier stand-in replaces an API model (e.g. OpenAI), which
 * cannot be reached from here; everything else is real.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { openStore } from '../../core/artifacts/index.js';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { openRegistry } from '../../core/deploy/registry.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { casesFrom } from '../../core/eval/cases.js';
import type { EvalReport } from '../../core/eval/types.js';
import type { RunProgress } from '../../core/pipeline/types.js';
import { startServe, type ServeProcess } from '../../core/train/serve-process.js';
import { startGateway } from '../../gateway/server.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { DEPLOYED_VERSION, DOMAIN, TRIGGER } from '../../workflows/contract/search-attributes.js';
import { REPO, TINY_OPTIM, tempDir } from '../helpers/fixtures.js';
import { startFrontierStandIn, type FrontierStandIn } from '../helpers/backend-stand-in.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';
import { recordHistories } from '../helpers/record-histories.js';
import { until } from '../helpers/until.js';

describe('flywheelRun release stages: evaluate, gate, approval, deploy, gateway, trace loop', () => {
  let env: TestWorkflowEnvironment;
  let flywheel: Flywheel;
  let serve: ServeProcess;
  let dir: string;

  before(async () => {
    dir = tempDir('flywheel-release-');
    flywheel = await startFlywheel();
    env = flywheel.env;
    serve = await startServe([], join(dir, 'serve.log'));
  });
  after(async () => {
    serve?.run.kill(1000);
    await serve?.run.done.catch(() => undefined);
    await flywheel?.stop();
  });

  async function config(extra: Record<string, unknown> = {}): Promise<FlywheelConfig> {
    const { gateway: _g, ...example } = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    return parseConfig({
      ...example,
      name: 'release',
      servers: [example.servers[0]!],
      artifacts: { store: `file://${join(dir, 'artifacts')}` },
      dataset: { ...example.dataset!, perGoal: 8, split: { train: 0.7, val: 0.1, test: 0.2 } },
      // A tiny model, trained enough to answer in parseable router JSON (the smoke test checks); the demo's
      // pretrained base would take minutes here.
      train: {
        ...example.train!,
        job: { baseModel: 'tiny:nano', optim: TINY_OPTIM, checkpointEvery: 15, logEvery: 5 },
      },
      evaluate: { limit: 6, concurrency: 2, bootstrap: { resamples: 200, seed: 7 } },
      // Before the first deploy the base model is scored as production; a tiny base and a 30-step candidate
      // both score noise, so the margins let the candidate through to the approval step this test is about.
      gate: { requireApproval: true, approvalTimeoutMinutes: 10, margin: 1, abstentionF1Tolerance: 1 },
      deploy: {
        alias: 'router',
        endpoint: serve.url,
        registry: join(dir, 'registry.sqlite'),
        adapterDir: join(dir, 'served'),
      },
      ...extra,
    });
  }

  async function awaitApproval(handle: WorkflowHandle): Promise<RunProgress> {
    let progress: RunProgress | undefined;
    await until(
      'the gate to wait for approval',
      async () => {
        const d = await handle.describe();
        if (d.status.name !== 'RUNNING')
          throw new Error(`run ended before the gate: ${JSON.stringify(await runStatus(handle))}`);
        progress = await handle.query<RunProgress>('progress');
        return progress.stages.find((s) => s.name === 'gate')?.detail.startsWith('waiting for approval') ?? false;
      },
      { timeoutMs: 600_000, intervalMs: 500 },
    );
    return progress!;
  }

  /** Workflow ids a visibility query (a saved view) lists. */
  async function listed(query: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const w of env.client.workflow.list({ query })) ids.push(w.workflowId);
    return ids;
  }

  /** The validator's message of a refused Update. */
  async function refusal(update: Promise<unknown>): Promise<string> {
    try {
      await update;
    } catch (err) {
      assert.ok(err instanceof WorkflowUpdateFailedError, String(err));
      return (err.cause as Error).message;
    }
    throw new Error('the update was accepted');
  }

  it('approve by Update deploys; gateway traces feed the next run; reject by signal holds it', async () => {
    const cfg = await config();
    const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'test' });
    await awaitApproval(handle);
    assert.match(
      await refusal(handle.executeUpdate('approve', { args: [{ by: ' ', reason: '' }] })),
      /give who decides/,
    );
    assert.equal(
      await handle.executeUpdate('approve', { args: [{ by: 'alice', reason: 'numbers look fine' }] }),
      'approved by alice',
    );
    assert.match(
      await refusal(handle.executeUpdate('reject', { args: [{ by: 'bob', reason: 'too late' }] })),
      /already approved by alice/,
    );
    await runResult(handle);

    const status = await runStatus(handle);
    const stage = (n: string) => status.stages.find((s) => s.name === n)!;
    assert.deepEqual(
      ['evaluate', 'gate', 'deploy'].map((n) => stage(n).state),
      ['completed', 'completed', 'completed'],
      JSON.stringify(status.stages.slice(-4)),
    );
    assert.match(stage('gate').detail, /^promote: approved by alice: numbers look fine/);
    const store = openStore(cfg.artifacts.store);
    const report = await store.readTree(stage('gate').outputs.evalReport!);
    assert.deepEqual(report.map((f) => f.path).sort(), ['report.html', 'report.json', 'report.md']);
    const first = JSON.parse(
      (await store.readTreeFile(report.find((f) => f.path === 'report.json')!)).toString('utf8'),
    ) as EvalReport;
    assert.deepEqual(
      first.results.map((r) => [r.label, r.model]),
      [
        ['candidate', first.results[0]!.model],
        ['production', 'base ../base'],
      ],
      'no deploy yet: the base stands in for production',
    );
    assert.match(first.testSet.source, /^a stratified sample \(seed 7\) of 6 of the frozen test set's \d+ cases$/);
    // The gateway retriever's recall on the whole test set's calls, every catalog tool offered at once.
    const catalogTools = (await store.readJson<{ tools: unknown[] }>(stage('ingest').outputs.catalog!)).tools.length;
    const testCalls = (await store.readJsonl<RouterRow>(stage('split').outputs.test!)).filter(
      (r) => r.target.tool !== null,
    ).length;
    assert.equal(first.retriever?.toolsOffered, catalogTools);
    assert.equal(first.retriever?.calls, testCalls);
    assert.deepEqual(Object.keys(first.retriever!.recallAt), ['1', '6', '8']);
    for (const v of Object.values(first.retriever!.recallAt)) assert.ok(v !== null && v >= 0 && v <= 1);
    assert.ok(first.retriever!.recallAt['8']! >= first.retriever!.recallAt['1']!, 'recall grows with k');
    // The candidate's confidence, read from its own serve's logprobs as the gateway reads it, against its exact match.
    const calibration = first.calibration!;
    assert.equal(calibration.cases + calibration.withoutConfidence, 6);
    assert.ok(calibration.cases > 0, 'serve returned logprobs for the candidate');
    assert.equal(
      calibration.bins.reduce((n, b) => n + b.count, 0),
      calibration.cases,
    );
    const candidateCases = first.results[0]!.cases;
    assert.ok(candidateCases.every((c) => c.confidence === null || (c.confidence! > 0 && c.confidence! <= 1)));
    // The base in production's place is asked for logprobs too, so latency and cost compare alike.
    assert.ok(first.results[1]!.cases.every((c) => c.confidence !== undefined));
    assert.match(
      (await store.readTreeFile(report.find((f) => f.path === 'report.md')!)).toString('utf8'),
      /Tool retriever \(BM25.*on the test set's \d+ calls: recall @1 [\d.]+, @6 [\d.]+, @8 [\d.]+/,
    );
    await recordHistories(env.address, { 'flywheel-run-release-stage-named': handle });
    const registry = await openRegistry(cfg.deploy!.registry);
    const deployed = (await registry.current('router'))!;
    const [event] = await registry.history('router');
    await registry.close();
    assert.match(deployed.name, /^router@[0-9a-f]{8}-[0-9a-f]{8}$/);
    assert.equal(event!.actor, 'alice');
    // What operators filter on in the UI (README "Temporal UI as console").
    const attrs = (await handle.describe()).typedSearchAttributes;
    assert.deepEqual(
      [attrs.get(DOMAIN), attrs.get(TRIGGER), attrs.get(DEPLOYED_VERSION)],
      [cfg.servers.map((s) => s.name), 'test', deployed.name],
    );
    await until('the deployed-alias view to list the run', async () =>
      (await listed(`DeployedVersion STARTS_WITH 'router@'`)).includes(handle.workflowId),
    );

    // Requests through the gateway: the tiny model is unsure of everything, so the frontier answers and
    // its (correct) decisions are what the trace log keeps.
    const testRows = await store.readJsonl<RouterRow>(stage('split').outputs.test!);
    const all = casesFrom(await store.readJsonl<RenderedRow>(stage('render').outputs.renderedTest!), testRows);
    const cases = all.filter((c) => c.target.tool !== null).slice(0, 6);
    // The same request recurs with another persona or tool slice (near-miss negatives): key by the whole prompt.
    const key = (messages: unknown, tools: Array<{ function: { name: string } }>) =>
      `${JSON.stringify(messages)}\n${tools.map((t) => t.function.name).join(',')}`;
    const byPrompt = new Map(all.map((c) => [key(c.messages, c.tools), c.target]));
    const frontier: FrontierStandIn = await startFrontierStandIn('frontier-key', (body) => {
      const target = byPrompt.get(key(body.messages, body.tools ?? []))!;
      return target.tool === null
        ? { role: 'assistant', content: JSON.stringify(target) }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: target.tool, arguments: JSON.stringify(target.arguments) },
              },
            ],
          };
    });
    const tracesDir = join(dir, 'traces');
    const gateway = await startGateway(
      {
        host: '127.0.0.1',
        port: 0,
        registry: cfg.deploy!.registry,
        tracesDir,
        timeoutMs: 60_000,
        allowAnonymous: false,
        confidence: 'tool',
        escalation: {
          baseUrl: frontier.url,
          model: 'frontier-x',
          apiKeyEnv: 'FRONTIER_KEY',
          minConfidence: 1,
          on: ['invalid', 'abstain'],
        },
      },
      { env: { FRONTIER_KEY: 'frontier-key' } },
    );
    try {
      const client = new OpenAI({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
      for (const c of cases) {
        const { data, response } = await client.chat.completions
          .create({
            model: 'router',
            messages: c.messages as OpenAI.ChatCompletionMessageParam[],
            tools: c.tools,
            metadata: { domain: c.domain! },
          })
          .withResponse();
        assert.equal(response.headers.get('x-flywheel-version'), deployed.name);
        assert.equal(response.headers.get('x-flywheel-escalated'), 'true');
        const call = data.choices[0]!.message.tool_calls?.[0];
        assert.equal(
          call?.type === 'function' ? call.function.name : null,
          c.target.tool,
          JSON.stringify({
            answer: data.choices[0]!.message,
            user: c.messages.at(-1),
            frontierSaw: frontier.requests.length,
          }),
        );
      }
    } finally {
      await gateway.close();
      await frontier.close();
    }
    const logged = readdirSync(tracesDir).flatMap((f) => readFileSync(join(tracesDir, f), 'utf8').trim().split('\n'));
    assert.equal(logged.length, cases.length);

    // The next run reads the gateway's trace directory; a reject signal (as sent from the Temporal UI) holds it.
    // (A short training: this candidate is only evaluated and held, never smoke-tested.)
    // Its 6 cases are scored in two chunks (evaluate.chunkSize 4), each on the GPU queue with its own serve.
    const next = await config({
      traces: [tracesDir],
      gate: { requireApproval: true, margin: 1, abstentionF1Tolerance: 1 },
      train: {
        job: {
          ...cfg.train!.job,
          optim: { epochs: 1, maxSteps: 6, effectiveBatchSize: 4, microBatchSize: 4, learningRate: 0.005 },
        },
      },
      evaluate: { ...cfg.evaluate!, chunkSize: 4 },
    });
    const second = (await startRun(env.client, next, { config: next, trigger: 'test' })).handle;
    await awaitApproval(second);
    await until('the waiting-for-approval view to list the run', async () =>
      (await listed(`WorkflowType = 'flywheelRun' AND FlywheelStage = 'awaiting-approval'`)).includes(
        second.workflowId,
      ),
    );
    await second.signal('reject', { by: 'carol', reason: 'wait for the audited test set' });
    await runResult(second);
    const after2 = await runStatus(second);
    const s2 = (n: string) => after2.stages.find((s) => s.name === n)!;
    const traceRows = s2('traces').outputs.traceRows!;
    assert.equal(traceRows.count, cases.length, `every gateway trace became a row: ${s2('traces').detail}`);
    assert.ok(s2('evaluate').detail.includes('production'), s2('evaluate').detail);
    assert.match(s2('gate').detail, /^hold: rejected by carol: wait for the audited test set/);
    assert.equal(s2('deploy').state, 'skipped');
    // The stored report carries the final decision, the operator's answer included.
    await store.materializeDir(s2('gate').outputs.evalReport!, join(dir, 'report-2'));
    const stored = JSON.parse(readFileSync(join(dir, 'report-2', 'report.json'), 'utf8')) as EvalReport;
    assert.equal(stored.gate?.promote, false);
    assert.equal(stored.gate?.reasons.at(-1), 'rejected by carol: wait for the audited test set');
    assert.deepEqual(
      stored.results.map((r) => r.label),
      ['candidate', 'production'],
    );
    assert.deepEqual(
      stored.results.map((r) => r.cases.length),
      [6, 6],
      'both chunks merged',
    );
    const events = (await second.fetchHistory()).events ?? [];
    const chunkRuns = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'evaluateChunk',
    );
    assert.equal(chunkRuns.length, 2, 'the 6 cases ran as two chunks');
    await recordHistories(env.address, { 'flywheel-run-release-chunked-evaluate': second });
    const registry2 = await openRegistry(cfg.deploy!.registry);
    assert.equal(
      (await registry2.current('router'))?.name,
      deployed.name,
      'a rejected candidate leaves the alias where it was',
    );
    await registry2.close();
  });
});
