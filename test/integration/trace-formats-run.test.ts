/**
 * A run fed traces in every format read (docs/traces.md): the gateway's own plain traces' shape is covered by
 * workflow.test.ts; here OpenAI chat completions, OpenAI Responses and Anthropic Messages logs written by the real
 * client libraries (test/fixtures/traces/formats/) on a catalog from a tools file, through Temporal, into the
 * dataset and a (tiny) training run on the GPU queue.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { mkdirSync, readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { gatewaySchema } from '../../core/config/schema.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { startGateway } from '../../gateway/server.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { startBackendStandIn, startFrontierStandIn } from '../helpers/backend-stand-in.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { REPO, TINY_OPTIM, tempDir } from '../helpers/fixtures.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';

const FORMATS = join(REPO, 'test', 'fixtures', 'traces', 'formats');

describe('a run on traces in the OpenAI chat, OpenAI Responses and Anthropic log formats', () => {
  let flywheel: Flywheel;
  before(async () => {
    flywheel = await startFlywheel();
  });
  after(async () => {
    await flywheel?.stop();
  });

  /** The demo's dataset and train sections on the travel tool file, a tiny model, these traces; no release stages. */
  async function travelConfig(name: string, store: string, traces: unknown[]) {
    const {
      gateway: _g,
      evaluate: _e,
      gate: _ga,
      deploy: _d,
      ...example
    } = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    return parseConfig({
      ...example,
      name,
      servers: [{ name: 'travel', tools: join(REPO, 'test', 'fixtures', 'tools', 'travel-agent.openai.json') }],
      artifacts: { store: `file://${store}` },
      dataset: { ...example.dataset!, perGoal: 2 },
      traces,
      train: { ...example.train!, job: { baseModel: 'tiny:nano', optim: TINY_OPTIM, logEvery: 5 } },
    });
  }

  it('ingests each format, dedupes the conversation they share, and trains on the rows', async () => {
    const cfg = await travelConfig('trace-formats', tempDir('trace-formats-'), [
      join(FORMATS, 'openai-chat.jsonl'),
      { path: join(FORMATS, 'openai-responses.jsonl'), format: 'openai-responses' },
      { path: join(FORMATS, 'anthropic.jsonl'), domain: 'travel' },
    ]);
    const { handle } = await startRun(flywheel.env.client, cfg, { config: cfg, trigger: 'test' });
    await runResult(handle);
    const status = await runStatus(handle);
    const stage = (name: string) => status.stages.find((s) => s.name === name)!;
    assert.match(stage('traces').detail, /^6 traces -> 2 rows, 0 rejected/);
    const store = openStore(cfg.artifacts.store);
    const traceRows = stage('traces').outputs.traceRows!;
    assert.deepEqual((await store.manifest(traceRows.sha256)).stats.byFormat, {
      'openai-chat': { traces: 2, rows: 2 },
      'openai-responses': { traces: 2, rows: 0 },
      anthropic: { traces: 2, rows: 0 },
    });
    const augmented = await store.readJsonl<RouterRow>(stage('corrupt').outputs.augmented!);
    const fromTraces = augmented.filter((r) => r.provenance.source === 'trace');
    assert.deepEqual(fromTraces.map((r) => [r.target.tool, r.provenance.format]).sort(), [
      ['book_hotel', 'openai-chat'],
      ['search_flights', 'openai-chat'],
    ]);
    // The trace rows reach the splits (by entity), and the adapter trains on the train split.
    const split = ['train', 'val', 'test'].flatMap((s) => stage('split').outputs[s] ?? []);
    const splitRows = (await Promise.all(split.map((r) => store.readJsonl<RouterRow>(r)))).flat();
    assert.equal(splitRows.filter((r) => r.provenance.source === 'trace').length >= 2, true);
    const trainStats = (await store.manifest(stage('split').outputs.train!.sha256)).stats as {
      bySource?: Record<string, number>;
    };
    assert.ok(trainStats.bySource?.generated, 'generated rows counted by source beside trace rows');
    assert.equal(stage('train').state, 'completed');
    assert.ok(stage('train').outputs.adapter);
  });

  it('the gateway speaks OTel out: its spans, through an OTLP receiver to a file, feed the next run (capture on)', async () => {
    const dir = tempDir('otel-round-trip-');
    const travelTools = JSON.parse(
      readFileSync(join(REPO, 'test', 'fixtures', 'tools', 'travel-agent.openai.json'), 'utf8'),
    ) as Array<{ type: 'function'; function: { name: string } }>;
    const FLIGHT = { origin: 'LIS', destination: 'BER', date: '2026-03-14', passengers: 2 };
    // The served router (stand-in): unsure of the flight search, sure of the hotel booking.
    const backend = await startBackendStandIn((body) =>
      String(body.messages.at(-1)?.content).includes('flight')
        ? {
            call: 'search_flights',
            arguments: { origin: 'LIS', destination: 'BER', date: '2026-03-15' },
            confidence: 0.2,
          }
        : { call: 'book_hotel', arguments: { city: 'Berlin', check_in: '2026-03-14', nights: 3 }, confidence: 0.95 },
    );
    // The frontier model (stand-in: none can be reached here) answers the escalated request.
    const frontier = await startFrontierStandIn('frontier-key', () => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_f', type: 'function', function: { name: 'search_flights', arguments: JSON.stringify(FLIGHT) } },
      ],
    }));
    const spansFile = join(dir, 'collector', 'spans.jsonl');
    mkdirSync(join(dir, 'collector'));
    const receiver = await startOtlpReceiver(spansFile);
    const registry = join(dir, 'registry.sqlite');
    const writer = await openRegistry(registry);
    await writer.registerVersion({
      name: 'router@v1',
      alias: 'router',
      adapterVersion: 'adp-00000001',
      adapter: { uri: 'file:x', sha256: '1'.repeat(64), kind: 'adapter', count: 1, bytes: 1 },
      target: 'local',
      endpoint: backend.url,
      servedModel: 'router@v1',
      adapterId: null,
      baseModel: 'tiny-base',
      runId: null,
      evalReport: null,
      probes: null,
    });
    await writer.repoint('router', 'router@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'r1' });
    await writer.close();
    const gateway = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry,
        tracesDir: join(dir, 'gateway-traces'),
        escalation: {
          baseUrl: frontier.url,
          model: 'frontier-x',
          apiKeyEnv: 'OTEL_TEST_FRONTIER_KEY',
          minConfidence: 0.5,
        },
        otel: { endpoint: receiver.url, captureContent: true, exportIntervalMs: 100 },
      }),
      { env: { OTEL_TEST_FRONTIER_KEY: 'frontier-key' } },
    );
    try {
      const client = new OpenAI({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
      for (const ask of [
        'Find us a flight from Lisbon to Berlin on the 14th, two of us.',
        'Book a hotel in Berlin for 3 nights from the 14th.',
      ])
        await client.chat.completions.create({
          model: 'router',
          messages: [{ role: 'user', content: ask }],
          tools: travelTools as OpenAI.ChatCompletionTool[],
          metadata: { domain: 'travel' },
        });
    } finally {
      await gateway.close(); // flushes the spans
      await receiver.close();
      await backend.close();
      await frontier.close();
    }
    assert.ok(receiver.received >= 1, 'the gateway exported its spans');

    const cfg = await travelConfig('otel-round-trip', join(dir, 'artifacts'), [
      { path: join(dir, 'collector'), format: 'otel-genai' },
    ]);
    const { handle } = await startRun(flywheel.env.client, cfg, { config: cfg, trigger: 'test' });
    await runResult(handle);
    const status = await runStatus(handle);
    const stage = (name: string) => status.stages.find((s) => s.name === name)!;
    // Two decisions: the frontier's answer is a row; the router's own confident one is not a label.
    assert.match(stage('traces').detail, /^2 traces -> 1 rows, 0 rejected/);
    const store = openStore(cfg.artifacts.store);
    const rows = await store.readJsonl<RouterRow>(stage('traces').outputs.traceRows!);
    assert.deepEqual(
      rows.map((r) => [
        r.target.tool,
        r.target.tool === null ? null : r.target.arguments,
        r.provenance.format,
        r.domain,
      ]),
      [['search_flights', FLIGHT, 'otel-genai', 'travel']],
    );
    assert.equal(stage('train').state, 'completed');
  });
});
