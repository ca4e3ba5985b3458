/**
 * `flywheel publish`: datasets and adapters, with their cards, to S3 and to the Hugging Face Hub.
 *
 * The artifact store is a real file store built here with the kinds, parents and stats the pipeline writes
 * (catalog → train/val/test → rendered-* → adapter → eval-results → eval-report, plus the run config).
 * S3 is moto's server (pip moto[server] in .venv), standing in for AWS S3 with the production
 * @aws-sdk/client-s3 code path. The Hub is helpers/hub-stand-in.ts, standing in for huggingface.co; the upload
 * code is the real @huggingface/hub library code.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { parse as parseYaml } from 'yaml';
import { stageVersion } from '../../workflows/contract/table.js';
import { openStore, type ArtifactRef, type ArtifactStore } from '../../core/artifacts/index.js';
import { withRegistry } from '../../core/deploy/registry.js';
import { putReport } from '../../core/eval/report-store.js';
import { canonicalJson, sha256Hex } from '../../core/hash.js';
import { collectAdapter, collectDataset } from '../../core/publish/collect.js';
import { publishToS3 } from '../../core/publish/s3.js';
import { PublishInputError, type Publication } from '../../core/publish/types.js';
import { adapterVersion } from '../../core/train/adapter-version.js';
import { jobIdentity } from '../../core/train/job.js';
import { publishCommand } from '../../scripts/commands/publish.js';
import { UsageError } from '../../scripts/lib/args.js';
import { tempDir } from '../helpers/fixtures.js';
import { sampleReport } from '../helpers/eval-report-fixture.js';
import { startMoto, type Moto } from '../helpers/moto.js';
import { startHubStandIn, type HubStandIn } from '../helpers/hub-stand-in.js';

const BASE = 'Qwen/Qwen3-0.6B';
const JOB = {
  baseModel: BASE,
  optim: { learningRate: 0.0003, epochs: 2, effectiveBatchSize: 16, microBatchSize: 4, maxSteps: 40 },
  lora: { rank: 8, alpha: 16, dropout: 0.1, targetModules: ['q_proj', 'v_proj'] },
};
const opts = { trainStageVersion: stageVersion('train') };

interface Fixture {
  store: ArtifactStore;
  uri: string;
  catalog: ArtifactRef;
  augmented: ArtifactRef;
  version: string;
  unevaluated: string;
  rendered: Record<'train' | 'val' | 'test', ArtifactRef>;
  splits: Record<'train' | 'val' | 'test', ArtifactRef>;
  adapter: ArtifactRef;
  evalResults: ArtifactRef;
  evalReport: ArtifactRef;
  config: ArtifactRef;
  weights: Buffer;
}

function routerRow(id: string, verdict: string, domain: string) {
  const target =
    verdict === 'call'
      ? { tool: 'get_customer', arguments: { id: `C-${id}` } }
      : { tool: null, verdict, code: 'no_tool', reason: 'nothing fits: "quotes" | pipes' };
  return {
    id,
    domain,
    entities: [`C-${id}`],
    request: `look up customer ${id}`,
    tools: ['get_customer'],
    target,
    provenance: { operator: verdict === 'call' ? null : 'tool_absent' },
  };
}

function renderedRow(id: string) {
  return {
    id,
    prompt: [
      { role: 'system', content: 'route' },
      { role: 'user', content: `look up customer ${id}` },
    ],
    completion: [{ role: 'assistant', content: '{"arguments":{},"tool":"get_customer"}' }],
    tools: [],
  };
}

function rowStats(rows: ReturnType<typeof routerRow>[]) {
  const count = (k: (r: ReturnType<typeof routerRow>) => string) =>
    rows.reduce<Record<string, number>>((o, r) => ({ ...o, [k(r)]: (o[k(r)] ?? 0) + 1 }), {});
  return {
    rows: rows.length,
    byDomain: count((r) => r.domain),
    byVerdict: count((r) => (r.target.tool === null ? (r.target as { verdict: string }).verdict : 'call')),
  };
}

/** A store shaped like a finished run's: the kinds, parents, stats and memo entries the stages write. */
async function buildStore(): Promise<Fixture> {
  const dir = tempDir('flywheel-publish-');
  const uri = `file:${join(dir, 'store')}`;
  const store = openStore(uri);
  const catalog = await store.putJson(
    'catalog',
    { tools: [{ id: 'crm/get_customer', name: 'get_customer' }] },
    { stats: { tools: 1, toolsByServer: { crm: 1 } } },
  );
  const augmented = await store.putJsonl('augmented', [routerRow('0', 'call', 'crm')], { parents: [catalog] });
  const rows = {
    train: ['1', '2', '3', '4'].map((i, n) => routerRow(i, n % 2 ? 'abstain' : 'call', n < 2 ? 'crm' : 'erp')),
    val: [routerRow('5', 'call', 'crm'), routerRow('6', 'escalate', 'erp')],
    test: [routerRow('7', 'call', 'crm'), routerRow('8', 'violation', 'crm')],
  };
  const splits = {} as Fixture['splits'];
  const rendered = {} as Fixture['rendered'];
  for (const name of ['train', 'val', 'test'] as const)
    splits[name] = await store.putJsonl(name, rows[name], { parents: [augmented], stats: rowStats(rows[name]) });
  for (const name of ['train', 'val', 'test'] as const)
    rendered[name] = await store.putJsonl(
      `rendered-${name}`,
      rows[name].map((r) => renderedRow(r.id)),
      { parents: [splits[name], catalog], stats: { rows: rows[name].length, format: 'router-json' } },
    );
  // The stages' memo entries: they name a render's and a split's three outputs together.
  await store.putMemo({
    key: 'a'.repeat(64),
    stage: 'render',
    outputs: { renderedTrain: rendered.train, renderedVal: rendered.val, renderedTest: rendered.test },
    createdAt: new Date().toISOString(),
  });
  await store.putMemo({ key: 'b'.repeat(64), stage: 'split', outputs: splits, createdAt: new Date().toISOString() });
  const config = await store.putJson('config', {
    name: 'acme',
    dataset: { render: { format: 'router-json' } },
    train: { job: JOB },
  });
  const version = adapterVersion(rendered.train.sha256, rendered.val.sha256, {
    ...jobIdentity(JOB, 'router-json'),
    stageVersion: stageVersion('train'),
  });

  // The adapter directory as the train activity stores it: adapter/ (PEFT files + flywheel.json), metrics.jsonl.
  const weights = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
  const adir = join(dir, 'adapter-dir');
  mkdirSync(join(adir, 'adapter'), { recursive: true });
  writeFileSync(
    join(adir, 'adapter', 'adapter_config.json'),
    JSON.stringify({
      peft_type: 'LORA',
      r: 8,
      lora_alpha: 16,
      lora_dropout: 0.1,
      target_modules: ['v_proj', 'q_proj'],
      base_model_name_or_path: BASE,
      task_type: 'CAUSAL_LM',
    }),
  );
  writeFileSync(join(adir, 'adapter', 'adapter_model.safetensors'), weights);
  writeFileSync(
    join(adir, 'adapter', 'flywheel.json'),
    JSON.stringify({
      baseModel: BASE,
      base: BASE,
      method: 'lora',
      format: 'router-json',
      steps: 40,
      bestEvalLoss: 0.81,
    }),
  );
  // The retrieval prior's neighbours: training requests, which a publication leaves out unless asked.
  writeFileSync(
    join(adir, 'adapter', 'examples.jsonl'),
    `${JSON.stringify({ text: 'show invoice 42 for ACME-PRIVATE', decision: '{"tool":"get_invoice"' })}\n`,
  );
  writeFileSync(
    join(adir, 'metrics.jsonl'),
    [
      '{"event":"start","step":0,"total":40,"epoch":0}',
      '{"event":"step","step":20,"total":40,"epoch":1.0,"loss":1.2,"lr":0.0003,"tokens_per_s":900}',
      '{"event":"done","step":40,"total":40,"loss":0.9,"eval_loss":0.81}',
    ].join('\n'),
  );
  const stats = {
    adapterVersion: version,
    baseModel: BASE,
    method: 'lora',
    steps: 40,
    trainLoss: 0.9,
    evalLoss: 0.81,
    firstEvalLoss: 1.7,
    resumedFromStep: null,
  };
  const adapter = await store.putDir('adapter', adir, { parents: [rendered.train, rendered.val], stats });
  const report = sampleReport();
  report.testSet = { ...report.testSet, sha256: rendered.test.sha256 };
  const { gate: _gate, ...results } = report;
  const evalResults = await store.putJson('eval-results', results, {
    parents: [rendered.test, adapter],
    stats: { cases: 6, endpoints: ['candidate', 'production'] },
  });
  const evalReport = await putReport(store, report, [evalResults], {
    promote: true,
    candidate: 'candidate',
    production: 'production',
  });

  // A second adapter of the same data, trained by hand (no run config) and never evaluated.
  writeFileSync(join(adir, 'adapter', 'adapter_model.safetensors'), Buffer.from('other weights'));
  const unevaluated = 'adp-0123456789ab';
  await store.putDir('adapter', adir, {
    parents: [rendered.train, rendered.val],
    stats: { ...stats, adapterVersion: unevaluated },
  });
  return {
    store,
    uri,
    catalog,
    augmented,
    version,
    unevaluated,
    rendered,
    splits,
    adapter,
    evalResults,
    evalReport,
    config,
    weights,
  };
}

/** A second run on other train/val rows that reuses the first run's frozen test set (and so its rendering). */
async function addRunSharingTestSet(f: Fixture) {
  const rows = { train: ['11', '12'].map((i) => routerRow(i, 'call', 'crm')), val: [routerRow('15', 'call', 'erp')] };
  const train = await f.store.putJsonl('train', rows.train, { parents: [f.augmented], stats: rowStats(rows.train) });
  const val = await f.store.putJsonl('val', rows.val, { parents: [f.augmented], stats: rowStats(rows.val) });
  const render = (kind: string, split: ArtifactRef, r: ReturnType<typeof routerRow>[]) =>
    f.store.putJsonl(
      kind,
      r.map((x) => renderedRow(x.id)),
      { parents: [split, f.catalog], stats: { rows: r.length, format: 'router-json' } },
    );
  const renderedTrain = await render('rendered-train', train, rows.train);
  const renderedVal = await render('rendered-val', val, rows.val);
  const later = new Date(Date.now() + 60_000).toISOString();
  await f.store.putMemo({
    key: 'c'.repeat(64),
    stage: 'render',
    outputs: { renderedTrain, renderedVal, renderedTest: f.rendered.test },
    createdAt: later,
    runId: 'run-2',
  });
  await f.store.putMemo({
    key: 'd'.repeat(64),
    stage: 'split',
    outputs: { train, val, test: f.splits.test },
    createdAt: later,
    runId: 'run-2',
  });
  return { train, val, renderedTrain, renderedVal };
}

function frontMatterOf(card: string): Record<string, any> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(card);
  assert.ok(m, 'card starts with YAML front matter');
  return parseYaml(m[1]!) as Record<string, any>;
}

function fileOf(pub: Publication, path: string): Buffer {
  const f = pub.files.find((x) => x.path === path);
  assert.ok(f, `publication has ${path}`);
  return f.bytes;
}

/** Run the command with its stdout captured (a dry run prints the whole card). Returns the exit code and the output. */
async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const log = console.log;
  const write = process.stdout.write;
  console.log = (...a: unknown[]) => void out.push(`${a.join(' ')}\n`);
  // Only strings (printJson): the test runner reports through stdout too, in binary frames that must pass.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    typeof chunk === 'string'
      ? out.push(chunk) > 0
      : write.call(process.stdout, chunk, ...rest)) as typeof process.stdout.write;
  try {
    return { code: await publishCommand.run(argv), out: out.join('') };
  } finally {
    console.log = log;
    process.stdout.write = write;
  }
}

let fx: Fixture;
before(async () => {
  fx = await buildStore();
});

describe('publish: what gets published and the cards', () => {
  it('a dataset by adapter version: JSONL files byte-identical to the artifacts, a recomputable hash, a card whose YAML parses', async () => {
    const pub = await collectDataset(fx.store, fx.version, opts);
    assert.deepEqual(
      pub.files.map((f) => f.path),
      [
        'README.md',
        'data/train.jsonl',
        'rows/train.jsonl',
        'data/validation.jsonl',
        'rows/validation.jsonl',
        'data/test.jsonl',
        'rows/test.jsonl',
        'manifest.json',
      ],
    );
    assert.deepEqual(fileOf(pub, 'data/validation.jsonl'), await fx.store.read(fx.rendered.val));
    assert.deepEqual(fileOf(pub, 'rows/test.jsonl'), await fx.store.read(fx.splits.test));
    // The documented definition, recomputed from the published files alone.
    const sha = (p: string) => sha256Hex(fileOf(pub, p));
    const recomputed = sha256Hex(
      canonicalJson({
        rendered: {
          train: sha('data/train.jsonl'),
          validation: sha('data/validation.jsonl'),
          test: sha('data/test.jsonl'),
        },
        rows: {
          train: sha('rows/train.jsonl'),
          validation: sha('rows/validation.jsonl'),
          test: sha('rows/test.jsonl'),
        },
      }),
    );
    assert.equal(pub.datasetHash, recomputed);
    assert.equal(pub.name, `ds-${recomputed.slice(0, 12)}`);

    const meta = frontMatterOf(pub.card);
    assert.equal(meta.license, 'other');
    assert.ok(meta.tags.includes('mcp-flywheel'));
    assert.deepEqual(meta.size_categories, ['n<1K']);
    assert.deepEqual(meta.configs[0], {
      config_name: 'default',
      data_files: [
        { split: 'train', path: 'data/train.jsonl' },
        { split: 'validation', path: 'data/validation.jsonl' },
        { split: 'test', path: 'data/test.jsonl' },
      ],
    });
    assert.equal(meta.configs[1].config_name, 'router_rows');
    assert.ok(pub.card.includes(pub.datasetHash));
    assert.ok(pub.card.includes(`cat-`));
    assert.match(pub.card, /\| train \| 4 \| 2 \| 2 \| 0 \| 0 \|/);
    assert.ok(pub.card.includes(fx.rendered.train.sha256) && pub.card.includes(fx.splits.test.sha256));

    const manifest = JSON.parse(fileOf(pub, 'manifest.json').toString());
    assert.equal(manifest.datasetHash, pub.datasetHash);
    assert.deepEqual(
      manifest.files.map((f: { path: string }) => f.path),
      pub.files.slice(0, -1).map((f) => f.path),
    );
    for (const f of manifest.files) assert.equal(f.sha256, sha(f.path));
  });

  it('names the same dataset from any of its split artifacts (render memo, split memo) and refuses other kinds', async () => {
    const byAdapter = await collectDataset(fx.store, fx.adapter.sha256.slice(0, 12), opts);
    for (const id of [fx.rendered.train.sha256, fx.rendered.test.sha256.slice(0, 10), fx.splits.val.sha256]) {
      assert.equal((await collectDataset(fx.store, id, opts)).datasetHash, byAdapter.datasetHash, id);
    }
    await assert.rejects(collectDataset(fx.store, fx.config.sha256, opts), /is a config: publish dataset takes/);
    await assert.rejects(
      collectDataset(fx.store, 'adp-ffffffffffff', opts),
      /no adapter artifact with version adp-ffffffffffff/,
    );
  });

  it('a test set two runs share: its sha is refused, naming both train/val; a train sha or the adapter says which', async () => {
    const f = await buildStore();
    const other = await addRunSharingTestSet(f);
    const short = (r: ArtifactRef) => r.sha256.slice(0, 12);
    const refused = (train: ArtifactRef[], val: ArtifactRef[]) => (err: unknown) => {
      assert.ok(err instanceof PublishInputError, String(err));
      assert.match(err.message, /belongs to 2 datasets/);
      assert.match(err.message, /give one of their train or val shas, or the adapter version/);
      for (const r of [...train, ...val]) assert.ok(err.message.includes(short(r)), `${short(r)} in: ${err.message}`);
      assert.match(err.message, /run run-2/);
      return true;
    };
    await assert.rejects(
      collectDataset(f.store, f.rendered.test.sha256, opts),
      refused([f.rendered.train, other.renderedTrain], [f.rendered.val, other.renderedVal]),
    );
    await assert.rejects(
      collectDataset(f.store, f.splits.test.sha256, opts),
      refused([f.splits.train, other.train], [f.splits.val, other.val]),
    );
    await assert.rejects(
      publishCommand.run(['dataset', f.rendered.test.sha256, '--dry-run', '--store', f.uri]),
      (err: unknown) => err instanceof UsageError && /belongs to 2 datasets/.test(err.message),
    );
    // Each run's own split names its dataset, with the shared test set in it.
    const first = await collectDataset(f.store, f.rendered.train.sha256, opts);
    const second = await collectDataset(f.store, other.val.sha256, opts);
    assert.notEqual(first.datasetHash, second.datasetHash);
    assert.equal((await collectDataset(f.store, f.version, opts)).datasetHash, first.datasetHash);
    assert.deepEqual(fileOf(second, 'data/train.jsonl'), await f.store.read(other.renderedTrain));
    assert.deepEqual(fileOf(second, 'data/test.jsonl'), await f.store.read(f.rendered.test));
  });

  it('a model card with the dataset hash, the base model, the hyperparameters of the run config and the eval metrics', async () => {
    const pub = await collectAdapter(fx.store, fx.version, { ...opts, datasetRepo: 'acme/router-data' });
    const dataset = await collectDataset(fx.store, fx.version, opts);
    assert.equal(pub.name, fx.version);
    assert.deepEqual(fileOf(pub, 'adapter/adapter_model.safetensors'), fx.weights);
    for (const p of [
      'adapter/adapter_config.json',
      'adapter/flywheel.json',
      'metrics.jsonl',
      'eval/report.json',
      'eval/report.md',
      'eval/report.html',
    ])
      fileOf(pub, p);
    const card = pub.card;
    assert.ok(!pub.files.some((f) => f.path === 'adapter/examples.jsonl'), 'training requests stay home by default');
    assert.ok(
      !card.includes('| adapter/examples.jsonl |') && card.includes('is not published here'),
      'the card says so',
    );
    const withExamples = await collectAdapter(fx.store, fx.version, { ...opts, withExamples: true });
    assert.match(fileOf(withExamples, 'adapter/examples.jsonl').toString(), /ACME-PRIVATE/);
    assert.ok(
      withExamples.card.includes('| adapter/examples.jsonl |') &&
        withExamples.card.includes('published here on purpose'),
    );
    const meta = frontMatterOf(card);
    assert.equal(meta.base_model, BASE);
    assert.equal(meta.library_name, 'peft');
    assert.deepEqual(meta.datasets, ['acme/router-data']);
    const report = sampleReport();
    const candidate = report.results[0]!.metrics;
    const metrics = meta['model-index'][0].results[0].metrics as Array<{ type: string; value: number }>;
    assert.equal(meta['model-index'][0].name, fx.version);
    assert.equal(metrics.find((m) => m.type === 'exact_match')?.value, candidate.exactMatch.value);
    assert.equal(metrics.find((m) => m.type === 'abstention_f1')?.value, candidate.abstention.f1.value);
    assert.equal(metrics.find((m) => m.type === 'latency_p50_ms')?.value, candidate.latencyMs.p50);
    // Body: provenance, hyperparameters (LoRA from adapter_config.json, optimiser from the matching run config), metrics with CIs.
    assert.ok(card.includes(dataset.datasetHash), 'dataset hash');
    assert.ok(card.includes(fx.adapter.sha256));
    assert.ok(card.includes(fx.config.sha256), 'the run config that reproduces the adapter version');
    assert.match(card, /\| LoRA r \| 8 \| adapter\/adapter_config\.json \|/);
    assert.match(card, /\| LoRA alpha \| 16 \|/);
    assert.match(card, /\| LoRA dropout \| 0\.1 \|/);
    assert.match(card, /\| LoRA target modules \| q_proj, v_proj \|/);
    assert.match(card, /\| learning rate \| 0\.0003 \| train job/);
    assert.match(card, /\| effective batch size \| 16 \|/);
    assert.match(card, /\| micro batch size \| 4 \|/);
    assert.match(card, /\| epochs \| 2 \|/);
    assert.match(card, /\| max steps \| 40 \|/);
    const ci = (e: { value: number | null; low: number | null; high: number | null }) =>
      `${e.value!.toFixed(3)} | ${e.low!.toFixed(3)}–${e.high!.toFixed(3)}`;
    assert.ok(card.includes(`| Exact match (tool + arguments) | ${ci(candidate.exactMatch)} |`));
    assert.ok(card.includes(`| Tool accuracy | ${ci(candidate.toolAccuracy)} |`));
    assert.ok(card.includes(`| Abstention precision | ${ci(candidate.abstention.precision)} |`));
    assert.ok(card.includes(`| Abstention recall | ${ci(candidate.abstention.recall)} |`));
    assert.ok(card.includes(`| Schema-valid rate | ${ci(candidate.schemaValidRate)} |`));
    assert.ok(card.includes('Gate: **PROMOTE**'));
    assert.ok(card.includes('cat-'));
    assert.deepEqual(JSON.parse(fileOf(pub, 'manifest.json').toString()).artifacts.adapter, fx.adapter.sha256);
  });

  it('an adapter nobody evaluated: published anyway, the card says "not evaluated" and has no model-index', async () => {
    const pub = await collectAdapter(fx.store, fx.unevaluated, opts);
    assert.match(pub.card, /\*\*Not evaluated\.\*\*/);
    assert.equal(frontMatterOf(pub.card)['model-index'], undefined);
    assert.ok(pub.notes.some((n) => /no evaluation/.test(n)));
    assert.ok(
      pub.notes.some((n) => /no stored run config/.test(n)),
      'hyperparameters from the adapter files only',
    );
    assert.match(pub.card, /\| learning rate \(peak logged\) \| 0\.0003 \| metrics\.jsonl \|/);
    assert.ok(!pub.files.some((f) => f.path.startsWith('eval/')));
  });

  it("a DPO adapter (the preference stage's): its card names the dataset of the SFT adapter it continues", async () => {
    const pairs = await fx.store.putJsonl('pairs-train', [{ id: 'pair-1' }], {
      parents: [fx.splits.train, fx.catalog],
    });
    const pairsVal = await fx.store.putJsonl('pairs-val', [{ id: 'pair-2' }], { parents: [fx.splits.val, fx.catalog] });
    const dir = tempDir('flywheel-dpo-adapter-');
    mkdirSync(join(dir, 'adapter'), { recursive: true });
    writeFileSync(join(dir, 'adapter', 'adapter_model.safetensors'), Buffer.from('dpo weights'));
    writeFileSync(
      join(dir, 'adapter', 'flywheel.json'),
      JSON.stringify({ baseModel: BASE, base: BASE, method: 'dpo', format: 'router-json', steps: 10 }),
    );
    await fx.store.putDir('adapter', dir, {
      parents: [pairs, pairsVal, fx.adapter],
      stats: { adapterVersion: 'adp-dd0000000000', baseModel: BASE, method: 'dpo', steps: 10 },
    });
    const dpo = await collectAdapter(fx.store, 'adp-dd0000000000', opts);
    // (Its dataset hash differs from the SFT adapter's: nothing evaluated it, so its card has no test split.)
    for (const split of [fx.rendered.train, fx.rendered.val])
      assert.ok(dpo.card.includes(split.sha256), `the card names the SFT dataset's ${split.kind} ${split.sha256}`);
    assert.ok(
      dpo.notes.includes(
        `tuned with DPO on preference pairs ${pairs.sha256.slice(0, 12)} of this dataset, from SFT adapter ${fx.version}`,
      ),
      JSON.stringify(dpo.notes),
    );
  });

  it('with a deploy registry: the eval report a deployed version was gated on, though a newer evaluation exists', async () => {
    const f = await buildStore();
    await new Promise((r) => setTimeout(r, 5)); // newer createdAt: store.list() orders by it
    const newer = sampleReport();
    newer.testSet = { ...newer.testSet, sha256: f.rendered.test.sha256 };
    newer.results[0]!.metrics.exactMatch = { value: 0.123, low: 0.05, high: 0.2 };
    const { gate, ...newerResults } = newer;
    const results2 = await f.store.putJson('eval-results', newerResults, {
      parents: [f.rendered.test, f.adapter],
      stats: { cases: 6 },
    });
    const report2 = await putReport(f.store, { ...newer, gate: { ...gate!, promote: false } }, [results2], {
      promote: false,
    });
    const artifacts = (pub: Publication) =>
      JSON.parse(fileOf(pub, 'manifest.json').toString()).artifacts as Record<string, string>;
    assert.equal(
      artifacts(await collectAdapter(f.store, f.version, opts))['eval-report'],
      report2.sha256,
      'no registry: the newest evaluation',
    );

    const dir = tempDir('flywheel-publish-registry-');
    const registry = join(dir, '.flywheel', 'registry.sqlite');
    await withRegistry(registry, async (r) => {
      await r.registerVersion({
        name: 'router@v1',
        alias: 'router',
        adapterVersion: f.version,
        adapter: f.adapter,
        target: 'local',
        endpoint: 'http://127.0.0.1:1/v1',
        servedModel: 'router@v1',
        adapterId: null,
        baseModel: BASE,
        runId: null,
        evalReport: f.evalReport,
        probes: null,
      });
      await r.repoint('router', 'router@v1', {
        action: 'deploy',
        actor: 'test',
        reason: 'gate promoted',
        requestId: 'deploy-1',
      });
    });
    const pub = await collectAdapter(f.store, f.version, { ...opts, registry });
    assert.equal(artifacts(pub)['eval-report'], f.evalReport.sha256);
    assert.equal(artifacts(pub)['eval-results'], f.evalResults.sha256);
    assert.equal(JSON.parse(fileOf(pub, 'eval/report.json').toString()).gate.promote, true);
    assert.match(pub.card, /Gated as deployed version `router@v1` \(alias `router`\)/);
    assert.ok(pub.card.includes('Gate: **PROMOTE**') && !pub.card.includes('0.123'));
    assert.ok(
      pub.notes.some((n) => n.includes('router@v1') && n.includes(results2.sha256.slice(0, 12))),
      'says a newer evaluation exists',
    );
    assert.ok(
      (await collectDataset(f.store, f.version, { ...opts, registry })).notes.some((n) => n.includes('router@v1')),
      'the dataset of the adapter: the same test split',
    );

    // The CLI: --registry PATH, or .flywheel/registry.sqlite in the working directory; a missing --registry is refused.
    const card = async (argv: string[]) =>
      JSON.parse((await cli(['adapter', f.version, '--dry-run', '--json', '--store', f.uri, ...argv])).out)
        .card as string;
    assert.match(await card(['--registry', registry]), /Gated as deployed version `router@v1`/);
    const inDir = async (where: string) => {
      const cwd = process.cwd();
      process.chdir(where);
      try {
        return await card([]);
      } finally {
        process.chdir(cwd);
      }
    };
    assert.match(await inDir(dir), /Gated as deployed version `router@v1`/);
    assert.doesNotMatch(await inDir(tempDir('flywheel-publish-no-registry-')), /Gated as deployed version/);
    await assert.rejects(
      publishCommand.run(['adapter', f.version, '--dry-run', '--store', f.uri, '--registry', join(dir, 'nope.sqlite')]),
      (err: unknown) => err instanceof UsageError && /--registry .*nope\.sqlite: no such file/.test(err.message),
    );
  });

  it('cards are the same bytes every time (publishing twice is a no-op)', async () => {
    const a = await collectAdapter(fx.store, fx.version, opts);
    const b = await collectAdapter(fx.store, fx.version, opts);
    assert.deepEqual(
      a.files.map((f) => f.sha256),
      b.files.map((f) => f.sha256),
    );
  });
});

describe('publish to S3 (moto server)', () => {
  let moto: Moto;
  let endpoint = '';
  let s3: S3Client;
  before(async () => {
    moto = await startMoto(['models']);
    endpoint = moto.endpoint;
    s3 = moto.client;
  });
  after(() => moto?.stop());

  const get = async (Key: string) =>
    Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: 'models', Key }))).Body!.transformToByteArray());

  it('uploads every file under prefix/<name>/ with manifest.json last; again is a no-op; a lost file is repaired', async () => {
    const first = await cli([
      'adapter',
      fx.version,
      '--to',
      's3://models/team/routers',
      '--store',
      fx.uri,
      '--s3-endpoint',
      endpoint,
    ]);
    assert.equal(first.code, 0);
    assert.match(
      first.out,
      new RegExp(
        `published adapter ${fx.version} to s3://models/team/routers/${fx.version}/: 8 uploaded, 0 unchanged, manifest.json written`,
      ),
    );
    const pub = await collectAdapter(fx.store, fx.version, opts);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'models', Prefix: `team/routers/${fx.version}/` }));
    assert.deepEqual(
      (listed.Contents ?? []).map((o) => o.Key).sort(),
      pub.files.map((f) => `team/routers/${fx.version}/${f.path}`).sort(),
    );
    for (const f of pub.files) assert.deepEqual(await get(`team/routers/${fx.version}/${f.path}`), f.bytes, f.path);
    const manifest = JSON.parse((await get(`team/routers/${fx.version}/manifest.json`)).toString());
    assert.equal(manifest.kind, 'adapter');
    for (const f of manifest.files)
      assert.equal(
        createHash('sha256')
          .update(await get(`team/routers/${fx.version}/${f.path}`))
          .digest('hex'),
        f.sha256,
      );

    const cliAgain = await cli([
      'adapter',
      fx.version,
      '--to',
      's3://models/team/routers',
      '--store',
      fx.uri,
      '--s3-endpoint',
      endpoint,
    ]);
    assert.match(cliAgain.out, /0 uploaded, 8 unchanged \(already published: nothing to do\)/);
    const again = await publishToS3(pub, { bucket: 'models', prefix: 'team/routers' }, { endpoint });
    assert.deepEqual(again.uploaded, []);
    assert.equal(again.manifestWritten, false);
    assert.equal(again.unchanged.length, pub.files.length - 1);

    await s3.send(
      new DeleteObjectCommand({ Bucket: 'models', Key: `team/routers/${fx.version}/adapter/flywheel.json` }),
    );
    const repaired = await publishToS3(pub, { bucket: 'models', prefix: 'team/routers' }, { endpoint });
    assert.deepEqual(repaired.uploaded, ['adapter/flywheel.json']);
    assert.equal(repaired.manifestWritten, true);
    assert.deepEqual(
      await get(`team/routers/${fx.version}/adapter/flywheel.json`),
      fileOf(pub, 'adapter/flywheel.json'),
    );
  });

  it('a dataset goes to s3://bucket/<ds-…>/ with its card', async () => {
    const pub = await collectDataset(fx.store, fx.rendered.train.sha256, opts);
    const result = await publishToS3(pub, { bucket: 'models', prefix: '' }, { endpoint });
    assert.equal(result.uri, `s3://models/${pub.name}/`);
    assert.equal((await get(`${pub.name}/README.md`)).toString(), pub.card);
    assert.deepEqual(await get(`${pub.name}/data/train.jsonl`), await fx.store.read(fx.rendered.train));
  });
});

describe('publish to the Hugging Face Hub (local stand-in for huggingface.co)', () => {
  const token = 'hf_test_0123456789';
  let hub: HubStandIn;
  const saved = process.env.HF_TOKEN;
  before(async () => {
    hub = await startHubStandIn(token);
    process.env.HF_TOKEN = token;
  });
  after(async () => {
    if (saved === undefined) delete process.env.HF_TOKEN;
    else process.env.HF_TOKEN = saved;
    await hub?.close();
  });

  it('an adapter: creates a private model repo, then one commit carrying every file and the model card', async () => {
    const { code, out } = await cli([
      'adapter',
      fx.version,
      '--to',
      'hf://acme/router',
      '--hub-url',
      hub.url,
      '--store',
      fx.uri,
    ]);
    assert.equal(code, 0);
    assert.match(
      out,
      new RegExp(
        `published adapter ${fx.version} to ${hub.url}/acme/router \\(created, private\\): 9 files in one commit`,
      ),
    );
    assert.deepEqual(hub.repos.get('models/acme/router'), { type: 'model', visibility: 'private' });
    assert.equal(hub.commits.length, 1);
    const pub = await collectAdapter(fx.store, fx.version, opts);
    const commit = hub.commits[0]!;
    assert.equal(commit.repo, 'models/acme/router');
    assert.match(String(commit.header.summary), new RegExp(`adapter ${fx.version}`));
    assert.ok(String(commit.header.description).includes(pub.datasetHash));
    assert.deepEqual([...commit.files.keys()].sort(), pub.files.map((f) => f.path).sort());
    for (const f of pub.files) assert.deepEqual(commit.files.get(f.path), f.bytes, f.path);
    assert.equal(commit.files.get('README.md')!.toString(), pub.card);
    assert.ok(hub.lfs.has(sha256Hex(fx.weights)), 'the weights went through the LFS batch + PUT path');
    // Every Hub API call carried the token; the LFS PUT goes to the storage href, which gets none.
    const api = hub.requests.filter((r) => !r.path.startsWith('/lfs-upload/'));
    assert.ok(api.length >= 5);
    for (const r of api) assert.equal(r.auth, `Bearer ${token}`, `${r.method} ${r.path}`);
    assert.deepEqual(
      api.map((r) => `${r.method} ${r.path.replace(/\/acme\/router/, '/ID')}`),
      [
        'GET /api/models/ID',
        'POST /api/repos/create',
        'POST /api/models/ID/preupload/main',
        'POST /ID.git/info/lfs/objects/batch',
        'POST /api/models/ID/commit/main',
      ],
    );
  });

  it('publishing again into the existing repo: no create, one more commit with the same files', async () => {
    const before = hub.requests.length;
    const { code, out } = await cli([
      'adapter',
      fx.version,
      '--to',
      'hf://acme/router',
      '--hub-url',
      hub.url,
      '--store',
      fx.uri,
      '--json',
    ]);
    assert.equal(code, 0);
    assert.equal(JSON.parse(out).created, false);
    assert.ok(!hub.requests.slice(before).some((r) => r.path === '/api/repos/create'));
    assert.equal(hub.commits.length, 2);
    assert.deepEqual([...hub.commits[1]!.files.keys()].sort(), [...hub.commits[0]!.files.keys()].sort());
    assert.deepEqual(hub.commits[1]!.deleted, [], 'the same publication: nothing stale');
  });

  it("another adapter into the same repo: the earlier one's files are deleted in the same commit, .gitattributes stays", async () => {
    const before = hub.requests.length;
    const { code, out } = await cli([
      'adapter',
      fx.unevaluated,
      '--to',
      'hf://acme/router',
      '--hub-url',
      hub.url,
      '--store',
      fx.uri,
      '--json',
    ]);
    assert.equal(code, 0);
    const stale = ['eval/report.html', 'eval/report.json', 'eval/report.md'];
    assert.deepEqual(JSON.parse(out).deleted, stale);
    const mine = hub.requests.slice(before);
    assert.equal(mine.filter((r) => r.path.endsWith('/commit/main')).length, 1, 'one commit');
    assert.deepEqual(hub.commits.at(-1)!.deleted, stale);
    // The listing is recursive and every page of it was read (the eval/ files are past the first page).
    const listed = mine.filter((r) => r.path === '/api/models/acme/router/tree/main');
    assert.ok(listed.length > 1, `${listed.length} tree pages read`);
    for (const r of listed) assert.match(r.query, /recursive=true/);
    const pub = await collectAdapter(fx.store, fx.unevaluated, opts);
    assert.match(pub.card, /\*\*Not evaluated\.\*\*/);
    const tree = hub.trees.get('models/acme/router')!;
    assert.deepEqual([...tree.keys()].sort(), ['.gitattributes', ...pub.files.map((f) => f.path)].sort());
    for (const f of pub.files) assert.deepEqual(tree.get(f.path), f.bytes, f.path);
  });

  it('a dataset: a public dataset repo with --public, data/*.jsonl and the dataset card in one commit', async () => {
    assert.equal(
      (
        await cli([
          'dataset',
          fx.rendered.val.sha256.slice(0, 12),
          '--to',
          'hf://datasets/acme/router-data',
          '--public',
          '--hub-url',
          hub.url,
          '--store',
          fx.uri,
        ])
      ).code,
      0,
    );
    assert.deepEqual(hub.repos.get('datasets/acme/router-data'), { type: 'dataset', visibility: 'public' });
    const commit = hub.commits.at(-1)!;
    assert.equal(commit.repo, 'datasets/acme/router-data');
    const pub = await collectDataset(fx.store, fx.version, opts);
    for (const f of pub.files) assert.deepEqual(commit.files.get(f.path), f.bytes, f.path);
    assert.ok(commit.files.get('README.md')!.toString().includes(pub.datasetHash));
  });

  it("a token the Hub refuses: the Hub's error naming the variable (never its value), exit 2, not a success", async () => {
    process.env.WRONG_TOKEN = 'hf_wrong';
    await assert.rejects(
      publishCommand.run([
        'adapter',
        fx.version,
        '--to',
        'hf://acme/other',
        '--hub-url',
        hub.url,
        '--store',
        fx.uri,
        '--token-env',
        'WRONG_TOKEN',
      ]),
      (err: Error) => {
        assert.ok(err instanceof UsageError, String(err));
        assert.match(err.message, /^the Hub refused the token in WRONG_TOKEN \(401\): .*Invalid credentials/);
        assert.ok(!err.message.includes('hf_wrong'), err.message);
        return true;
      },
    );
    delete process.env.WRONG_TOKEN;
  });
});

describe('flywheel publish: errors and dry run', () => {
  /** The CLI maps UsageError to exit code 2 (scripts/cli.ts); these check the error and its message. */
  const usage = (re: RegExp) => (err: unknown) => err instanceof UsageError && re.test(err.message);

  it('no token: exit 2 naming the variable, before any work', async () => {
    const saved = process.env.HF_TOKEN;
    delete process.env.HF_TOKEN;
    try {
      await assert.rejects(
        publishCommand.run(['adapter', fx.version, '--to', 'hf://acme/router', '--store', fx.uri]),
        usage(/HF_TOKEN is not set/),
      );
      await assert.rejects(
        publishCommand.run([
          'adapter',
          fx.version,
          '--to',
          'hf://acme/router',
          '--store',
          fx.uri,
          '--token-env',
          'ACME_HF_TOKEN',
        ]),
        usage(/ACME_HF_TOKEN is not set/),
      );
      await assert.rejects(
        publishCommand.run(['adapter', fx.version, '--to', 'hf://acme/router', '--token-env', 'hf_abc-def']),
        usage(/takes the NAME/),
      );
    } finally {
      if (saved !== undefined) process.env.HF_TOKEN = saved;
    }
  });

  it('unknown version, wrong artifact kind, wrong repo type, bad --to: clear usage errors', async () => {
    await assert.rejects(
      publishCommand.run(['adapter', 'adp-000000000000', '--to', 's3://models/x', '--store', fx.uri]),
      usage(/no adapter artifact with version adp-000000000000/),
    );
    await assert.rejects(
      publishCommand.run(['adapter', fx.splits.train.sha256.slice(0, 12), '--dry-run', '--store', fx.uri]),
      usage(/is a train, not an adapter/),
    );
    await assert.rejects(
      publishCommand.run(['adapter', 'deadbeefdeadbeef', '--dry-run', '--store', fx.uri]),
      usage(/no artifact matches deadbeefdeadbeef/),
    );
    await assert.rejects(
      publishCommand.run(['dataset', fx.version, '--to', 'hf://acme/router', '--store', fx.uri]),
      usage(/a dataset goes to a dataset repo/),
    );
    await assert.rejects(
      publishCommand.run(['adapter', fx.version, '--to', 'gs://bucket/x', '--store', fx.uri]),
      usage(/expected s3:\/\/bucket\/prefix/),
    );
    await assert.rejects(publishCommand.run(['adapter', fx.version, '--store', fx.uri]), usage(/--to is required/));
    await assert.rejects(
      publishCommand.run(['model', fx.version, '--to', 's3://models/x']),
      usage(/expected: flywheel publish dataset\|adapter/),
    );
  });

  it('--dry-run --out writes exactly the files it would publish', async () => {
    const out = join(tempDir('flywheel-publish-dry-'), 'out');
    const run = await cli(['adapter', fx.version, '--dry-run', '--out', out, '--store', fx.uri, '--json']);
    assert.equal(run.code, 0);
    const pub = await collectAdapter(fx.store, fx.version, opts);
    assert.equal(JSON.parse(run.out).card, pub.card);
    const text = await cli(['dataset', fx.version, '--dry-run', '--store', fx.uri]);
    assert.match(text.out, /dry run: would publish dataset ds-[0-9a-f]{12} \(8 files, .*\) to nowhere/);
    assert.match(text.out, /--- README.md ---\n---\npretty_name:/);
    for (const f of pub.files) assert.deepEqual(readFileSync(join(out, f.path)), f.bytes, f.path);
    assert.ok(existsSync(join(out, 'manifest.json')));
  });
});
