/**
 * Router quality, measured: the base model against the fine-tuned router on the frozen synthetic test set and on
 * the hand-written cases, plus the study's two ablations at small scale in the same run, and constrained
 * decoding against free decoding:
 *
 *   main          the config's training (completion-only loss, with near-miss negatives)
 *   whole-seq     loss on the whole sequence, prompt included (the study's first ablation)
 *   no-negatives  trained without the near-miss negatives (the second: what they buy in abstention F1)
 *   main (free)   the main adapter decoded without the schema constraint (schema-valid rate, exact match)
 *   main (weights alone)  the main adapter without `flywheel serve`'s priors (docs/training-and-serving.md): the
 *                 retrieval prior (its training requests' votes on the decision), the copy and fill priors
 *                 (values), and without the grounding and schema checks after the router
 *   main + DPO    main's adapter tuned further with DPO on the train split's near-miss pairs (the `preference`
 *                 stage's job from config.preference, else its defaults, but at learning rate 0.0005 unless
 *                 preference.job sets one; with a step cap, only the pairs it reaches), with
 *                 over-calling (calls where the target abstains) and scores per corrupt-stage operator
 *
 * and the hand-written cases two ways for main: pre-rendered (training's slice and caller), and sent raw as a live
 * agent would (conversation only, every tool of the catalog) through a gateway with `gateway.render`, with the
 * retriever's recall at the slice size. The gap between the two is what serving parity costs.
 *
 *   node --import tsx scripts/bench/quality.ts [--quick] [--config FILE] [--steps N] [--test N] [--handwritten N] [--out DIR]
 *                                              [--ablations whole-seq,no-negatives|none] [--job JSON]
 *                                              [--preference on|off] [--dpo-steps N]
 *
 * --quick (the default; for a CPU: ~45 minutes on a 2-core machine with the demo's config): the config's training steps, a stratified sample of --test
 * cases (default 30) and --handwritten cases (default 24), ablations scored on the test sample only, no DPO unless
 * --preference on or --dpo-steps asks for it. --full: every test and hand-written case, the config's epochs without
 * a step cap, and DPO, for a GPU. Same seeds, same rows, so
 * runs compare. The last line is
 *   quality: exact=<x> tool=<x> abstainF1=<x> handwritten_exact=<x> base_exact=<x>
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../core/config/load.js';
import { evaluateSchema, preferenceSchema } from '../../core/config/schema.js';
import { type RenderedRow, renderRows } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { casesFrom, sampleCases } from '../../core/eval/cases.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import { handwrittenCases } from '../../core/eval/handwritten.js';
import { asTaught } from '../../core/dataset/taught.js';
import type { EndpointResult, EvalCase } from '../../core/eval/types.js';
import { preferenceJobConfig, trainJobFor } from '../../core/train/job.js';
import { preferencePairs } from '../../core/dataset/pairs.js';
import { overCallingRate, scoresByOperator } from '../../core/eval/by-operator.js';
import { sha256Hex } from '../../core/hash.js';
import { Rng } from '../../core/rng.js';
import { startServe } from '../../core/train/serve-process.js';
import { mergeJob, trainAdapter } from '../lib/train-adapter.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { buildDataset } from '../lib/build-dataset.js';
import { handwrittenRowsOf } from '../lib/handwritten.js';
import { scoreThroughGateway, type ThroughGateway } from '../lib/through-gateway.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    full: { type: 'boolean', default: false },
    config: { type: 'string', default: join(REPO, DEFAULT_CONFIG) },
    steps: { type: 'string' },
    /** Variants to train besides main (comma list of whole-seq, no-negatives; "none" for main alone). */
    ablations: { type: 'string', default: 'whole-seq,no-negatives' },
    /** JSON merged into the config's train.job (its optim and lora merged key by key), for every variant. */
    job: { type: 'string' },
    /** DPO from main's adapter on the near-miss pairs (config.preference, else its defaults): on | off.
     *  Default: on with --full, off with --quick (DPO costs ~5.5 minutes a step of 4 pairs on a 2-core CPU). */
    preference: { type: 'string' },
    /** DPO's step cap (default: the config's preference.job, else main's). */
    'dpo-steps': { type: 'string' },
    test: { type: 'string', default: '30' },
    handwritten: { type: 'string', default: '24' },
    cases: { type: 'string', default: join(REPO, 'test', 'fixtures', 'handwritten', 'sandboxes.jsonl') },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `quality-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
  },
});
const full = values.full;
if (values.preference !== undefined && !['on', 'off'].includes(values.preference))
  throw new Error(`--preference: expected on or off, got ${values.preference}`);
const preference = (values.preference ?? (full || values['dpo-steps'] ? 'on' : 'off')) === 'on';
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const config = await loadConfigFile(values.config);
// The evaluate stage's settings (its defaults without the section): same answer budget, bootstrap and sample seed.
const ev = config.evaluate ?? evaluateSchema.parse({});
if (!config.train || !config.dataset)
  throw new Error(`${values.config}: the quality benchmark needs dataset and train sections`);
const t0 = performance.now();
const minutes = () => ((performance.now() - t0) / 60_000).toFixed(1);
const say = (line: string) => console.error(`[${minutes()} min] ${line}`);

// ---- data: the pipeline's rows, in memory ----
const built = await buildDataset(config);
const format = config.dataset.render.format;
const write = async (name: string, rows: RenderedRow[]) => {
  const file = join(out, `${name}.jsonl`);
  await writeFile(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return file;
};
// Taught as the render stage teaches them: a missing scope or an absent tool is a check's to answer (core/dataset/taught.ts).
const trainRows = asTaught(built.rows.train, format);
const files = {
  train: await write('train', renderRows(trainRows, built.catalog, format)),
  trainNoNegatives: await write(
    'train-no-negatives',
    renderRows(
      trainRows.filter((r) => !r.provenance.operator),
      built.catalog,
      format,
    ),
  ),
  val: await write('val', renderRows(asTaught(built.rows.val, format), built.catalog, format)),
};
const testRendered = renderRows(built.rows.test, built.catalog, format);
const testCases = sampleCases(
  casesFrom(testRendered, built.rows.test, 'test set', built.catalog),
  full ? undefined : Number(values.test),
  ev.sampleSeed,
);
const handText = await readFile(values.cases, 'utf8');
const handRows: RouterRow[] = handwrittenRowsOf(handText, values.cases, built.catalog, config.dataset);
const handAll = handwrittenCases(handRows, built.catalog, format, values.cases);
const handCases = full ? handAll : sampleCases(handAll, Number(values.handwritten), ev.sampleSeed);
say(
  `dataset: train ${trainRows.length} rows (${trainRows.filter((r) => r.provenance.operator).length} near-miss negatives), test ${testCases.length} of ${testRendered.length}, hand-written ${handCases.length} of ${handAll.length}`,
);

// ---- training: three adapters from the same rows and seeds ----
const { optim: merged, ...baseJob } = mergeJob(
  config.train.job as Record<string, unknown>,
  values.job ? (JSON.parse(values.job) as Record<string, unknown>) : {},
);
const optim = merged as Record<string, unknown>;
if (values.steps) optim.maxSteps = Number(values.steps);
if (full) delete optim.maxSteps;
const variants: Array<{ name: string; train: string; optim: Record<string, unknown> }> = [
  { name: 'main', train: files.train, optim },
  { name: 'whole-seq', train: files.train, optim: { ...optim, completionOnlyLoss: false } },
  { name: 'no-negatives', train: files.trainNoNegatives, optim },
].filter((v) => v.name === 'main' || values.ablations.split(',').includes(v.name));
const adapters: Record<string, string> = {};
const tokensPerSecond: Record<string, number | undefined> = {};
/** Train one variant with the real trainer (or reuse it, scripts/lib/train-adapter.ts); its adapter goes into `adapters`. */
async function trainVariant(name: string, job: Record<string, unknown>): Promise<void> {
  say(`training ${name}`);
  const trained = await trainAdapter(name, job, { out, say });
  adapters[name] = trained.dir;
  tokensPerSecond[name] = trained.tokensPerSecond;
}
for (const v of variants)
  await trainVariant(
    v.name,
    trainJobFor(
      { ...baseJob, optim: v.optim },
      { train: v.train, val: files.val, format, outputDir: join(out, v.name) },
    ),
  );

// ---- preference tuning: DPO from main's adapter on the train split's near-miss pairs (the pipeline's `preference`) ----
let dpoPairs: { train: number; val: number; valFromTrain: boolean; byOperator: Record<string, number> } | undefined;
if (preference) {
  const pref = config.preference ?? preferenceSchema.parse({});
  // Every pair names the SFT dataset it belongs with, as the render stage writes them; the trainer checks it.
  const dataset = sha256Hex(await readFile(files.train));
  const pairsOf = (rows: RouterRow[]) => preferencePairs(rows, built.catalog, format);
  const train = pairsOf(trainRows);
  const prefJob = pref.job as { optim?: Record<string, unknown> };
  // DPO wants a lower learning rate than SFT, and its eval (policy and reference over chosen and rejected) is
  // dear on a CPU: 4 pairs. The config's preference.job and --dpo-steps win.
  const dpoOptim = {
    ...optim,
    learningRate: 0.0005,
    maxEvalRows: 4,
    ...prefJob.optim,
    ...(values['dpo-steps'] ? { maxSteps: Number(values['dpo-steps']) } : {}),
  };
  if (full) delete dpoOptim.maxSteps;
  // With a step cap, the pairs it can reach, drawn with a fixed seed: TRL tokenizes every pair before step 1.
  const reach =
    typeof dpoOptim.maxSteps === 'number'
      ? dpoOptim.maxSteps * Number((dpoOptim as Record<string, unknown>).effectiveBatchSize ?? 16)
      : undefined;
  const trainPairs =
    reach !== undefined && reach < train.pairs.length
      ? new Rng('quality:dpo-pairs').shuffle([...train.pairs]).slice(0, reach)
      : train.pairs;
  let val = pairsOf(built.rows.val).pairs;
  // A small val split may hold no negatives to pair: DPO's eval loss then reads a few train pairs.
  const valFromTrain = val.length === 0;
  if (valFromTrain) val = trainPairs.slice(0, 8);
  const pairFile = async (name: string, pairs: unknown[]) => {
    const file = join(out, `${name}.jsonl`);
    await writeFile(file, pairs.map((p) => `${JSON.stringify({ ...(p as object), dataset })}\n`).join(''));
    return file;
  };
  dpoPairs = { train: trainPairs.length, val: val.length, valFromTrain, byOperator: train.counts };
  say(
    `preference pairs: train ${train.pairs.length} (${Object.entries(train.counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(
        ', ',
      )}), ${trainPairs.length} of them within reach of ${dpoOptim.maxSteps ?? 'all'} steps; val ${val.length}${valFromTrain ? ' (from train: the val split has none)' : ''}`,
  );
  const job = preferenceJobConfig(
    { ...baseJob, optim },
    { ...pref, job: { ...prefJob, optim: dpoOptim } },
    adapters.main!,
  );
  await trainVariant(
    'dpo',
    trainJobFor(job, {
      train: await pairFile('pairs-train', trainPairs),
      val: await pairFile('pairs-val', val),
      format,
      outputDir: join(out, 'dpo'),
    }),
  );
}

// ---- scoring: one server holds the base and every adapter ----
const served = await startServe(
  Object.entries(adapters).flatMap(([name, dir]) => ['--adapter', `${name}=${dir}`]),
  join(out, 'serve.log'),
);
const opts = { concurrency: 1, timeoutMs: 300_000, maxRetries: 1, maxTokens: ev.maxTokens, bootstrap: ev.bootstrap };
const score = async (
  label: string,
  model: string,
  cases: EvalCase[],
  extraBody?: Record<string, unknown>,
  argumentChecks = true,
): Promise<EndpointResult> => {
  say(`scoring ${label} on ${cases.length} cases`);
  const spec: EndpointSpec = {
    label,
    baseUrl: served.url,
    model,
    cost: { kind: 'none' },
    ...(extraBody ? { extraBody } : {}),
  };
  return evaluateEndpoint(cases, spec, { ...opts, argumentChecks });
};
const rows: Array<{ name: string; test: EndpointResult; hand?: EndpointResult }> = [];
let raw: ThroughGateway | undefined;
try {
  rows.push({
    name: 'base',
    test: await score('base', 'base', testCases),
    hand: await score('base', 'base', handCases),
  });
  rows.push({
    name: 'main',
    test: await score('main', 'main', testCases),
    hand: await score('main', 'main', handCases),
  });
  if (adapters.dpo)
    rows.push({
      name: 'main + DPO',
      test: await score('dpo', 'dpo', testCases),
      hand: await score('dpo', 'dpo', handCases),
    });
  // The same hand-written cases sent raw, as a live agent would, through a gateway that renders them.
  const ids = new Set(handCases.map((c) => c.id));
  const rawRows = handwrittenRowsOf(handText, values.cases, built.catalog, {
    ...config.dataset,
    slicing: 'neighbours',
  }).filter((r) => ids.has(r.id));
  say(
    `scoring main on ${rawRows.length} hand-written cases sent raw through the gateway (${built.catalog.tools.length} tools offered)`,
  );
  raw = await scoreThroughGateway(
    rawRows,
    built.catalog,
    { url: served.url, model: 'main' },
    config.dataset.sliceSize,
    out,
    opts,
  );
  rows.push({
    name: 'main (free decoding)',
    test: await score('main-free', 'main', testCases, { constrained: false }),
  });
  // The adapter's weights alone: serve's priors (retrieval on the decision, copy and fill on values) off, and the
  // grounding and schema checks after the router (core/router/checks.ts) off.
  const alone = { retrieval: false, copy: false, fill: false };
  rows.push({
    name: 'main (weights alone)',
    test: await score('main-alone', 'main', testCases, alone, false),
    hand: await score('main-alone', 'main', handCases, alone, false),
  });
  for (const v of variants.filter((x) => x.name !== 'main'))
    rows.push({ name: v.name, test: await score(v.name, v.name, testCases) });
} finally {
  served.run.kill(2000);
  await served.run.done.catch(() => undefined);
}

// ---- report ----
const f = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));
const table = [
  `| model | exact | tool acc | abstain F1 | over-calling | schema-valid | hand-written exact | hand-written over-calling | p50 s/decision |`,
  `|---|---|---|---|---|---|---|---|---|`,
  ...rows.map(({ name, test, hand }) => {
    const m = test.metrics;
    return `| ${name} | ${f(m.exactMatch.value)} | ${f(m.toolAccuracy.value)} | ${f(m.abstention.f1.value)} | ${f(overCallingRate(test.cases))} | ${f(m.schemaValidRate.value)} | ${f(hand?.metrics.exactMatch.value)} | ${f(hand ? overCallingRate(hand.cases) : null)} | ${m.latencyMs.p50 === null ? '—' : (m.latencyMs.p50 / 1000).toFixed(2)} |`;
  }),
];
// SFT against SFT + DPO on the test sample, per corrupt-stage operator (positive: rows no operator touched).
const operatorOf = new Map(built.rows.test.map((r) => [r.id, r.provenance.operator]));
const dpoRow = rows.find((r) => r.name === 'main + DPO');
const byOp = (name: string) =>
  scoresByOperator(rows.find((r) => r.name === name)!.test.cases, (id) => operatorOf.get(id));
const operatorTable = dpoRow
  ? (() => {
      const [sft, dpo] = [byOp('main'), byOp('main + DPO')];
      return [
        `| operator | cases | main exact | main + DPO exact | target abstains | main over-calls | main + DPO over-calls |`,
        `|---|---|---|---|---|---|---|`,
        ...Object.keys(sft).map(
          (op) =>
            `| ${op} | ${sft[op]!.cases} | ${sft[op]!.exact} | ${dpo[op]!.exact} | ${sft[op]!.abstainTargets} | ${sft[op]!.overCalls} | ${dpo[op]!.overCalls} |`,
        ),
      ];
    })()
  : [];
const mainHand = rows.find((r) => r.name === 'main')!.hand!.metrics;
const rawTable = [
  `| hand-written cases (main) | exact | tool acc | abstain F1 | p50 s/decision |`,
  `|---|---|---|---|---|`,
  `| pre-rendered (training's slice and caller) | ${f(mainHand.exactMatch.value)} | ${f(mainHand.toolAccuracy.value)} | ${f(mainHand.abstention.f1.value)} | ${mainHand.latencyMs.p50 === null ? '—' : (mainHand.latencyMs.p50 / 1000).toFixed(2)} |`,
  `| raw through the gateway (${built.catalog.tools.length} tools, retriever recall@${config.dataset.sliceSize} ${f(raw!.recall.recallAt[String(config.dataset.sliceSize)] ?? null)}, @8 ${f(raw!.recall.recallAt['8'] ?? null)}) | ${f(raw!.result.metrics.exactMatch.value)} | ${f(raw!.result.metrics.toolAccuracy.value)} | ${f(raw!.result.metrics.abstention.f1.value)} | ${raw!.result.metrics.latencyMs.p50 === null ? '—' : (raw!.result.metrics.latencyMs.p50 / 1000).toFixed(2)} |`,
];
const summary = {
  mode: full ? 'full' : 'quick',
  minutes: Number(minutes()),
  trainRows: trainRows.length,
  testCases: testCases.length,
  handwrittenCases: handCases.length,
  tokensPerSecond,
  preferencePairs: dpoPairs ?? null,
  results: rows.map(({ name, test, hand }) => ({
    name,
    test: test.metrics,
    overCalling: overCallingRate(test.cases),
    byOperator: scoresByOperator(test.cases, (id) => operatorOf.get(id)),
    handwritten: hand?.metrics ?? null,
    handwrittenOverCalling: hand ? overCallingRate(hand.cases) : null,
  })),
  handwrittenRawThroughGateway: {
    metrics: raw!.result.metrics,
    retriever: raw!.recall,
    sliceSize: config.dataset.sliceSize,
    toolsOffered: built.catalog.tools.length,
  },
};
await writeFile(join(out, 'quality.json'), JSON.stringify(summary, null, 2));
await writeFile(
  join(out, 'quality.md'),
  `${table.join('\n')}\n\n${operatorTable.length ? `${operatorTable.join('\n')}\n\n` : ''}${rawTable.join('\n')}\n`,
);
const main = rows.find((r) => r.name === 'main')!;
const base = rows.find((r) => r.name === 'base')!;
console.log(
  `${full ? 'full' : 'quick'} mode, ${minutes()} min; train ${trainRows.length} rows, test ${testCases.length} cases, hand-written ${handCases.length}; training tokens/s ${Object.entries(
    tokensPerSecond,
  )
    .map(([k, v]) => `${k} ${v ?? '—'}`)
    .join(', ')}`,
);
console.log(table.join('\n'));
if (operatorTable.length) console.log(operatorTable.join('\n'));
console.log(rawTable.join('\n'));
console.log(`results: ${out}`);
console.log(
  `quality: exact=${f(main.test.metrics.exactMatch.value)} tool=${f(main.test.metrics.toolAccuracy.value)} abstainF1=${f(main.test.metrics.abstention.f1.value)} handwritten_exact=${f(main.hand!.metrics.exactMatch.value)} base_exact=${f(base.test.metrics.exactMatch.value)}`,
);
