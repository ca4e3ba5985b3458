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
import { runStatus, startRun } from '../../scripts/lib/runs.js';
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

  it('ingests each format, dedupes the conversation they share, and trains on the rows', async () => {
    const {
      gateway: _g,
      evaluate: _e,
      gate: _ga,
      deploy: _d,
      ...example
    } = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    const cfg = parseConfig({
      ...example,
      name: 'trace-formats',
      servers: [{ name: 'travel', tools: join(REPO, 'test', 'fixtures', 'tools', 'travel-agent.openai.json') }],
      artifacts: { store: `file://${tempDir('trace-formats-')}` },
      dataset: { ...example.dataset!, perGoal: 2 },
      traces: [
        join(FORMATS, 'openai-chat.jsonl'),
        { path: join(FORMATS, 'openai-responses.jsonl'), format: 'openai-responses' },
        { path: join(FORMATS, 'anthropic.jsonl'), domain: 'travel' },
      ],
      train: { ...example.train!, job: { baseModel: 'tiny:nano', optim: TINY_OPTIM, logEvery: 5 } },
    });
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
});
