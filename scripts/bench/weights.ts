/**
 * Quality in the weights: the routers a user can get, side by side in one run, scored from their weights and the
 * constraint (serve's retrieval, copy and fill priors off; the offer, scope and grounding checks on), as any
 * engine can reproduce them; beside them each base, and the chosen router with serve's priors on.
 *
 *   node --import tsx scripts/bench/weights.ts [--router NAME:KEY=VALUE,…]… [--priors NAME|none] [--config FILE]…
 *        [--cases NAME=FILE[,FILE…]]… [--testset FILE] [--test N] [--bfcl-dev N] [--bfcl-report N]
 *        [--paired A,B]… [--dataset JSON] [--job JSON] [--no-base] [--prepare] [--out DIR]
 *
 * Routers (--router, repeatable; default below): one training each from the same catalog and seed, differing in
 * `phrasing` (description | natural), `minslice` (the dataset's minSliceSize: rows offer from N to sliceSize
 * tools), `base` (a train job baseModel) and budget (`steps` N, or `epochs` N with no step cap). Every other
 * setting is the first config's train job, with --job merged over it.
 *   recipe-240     240 one-row steps (the CPU recipe before it ran every row)
 *   one-epoch      every training row once (the CPU recipe)
 *   three-epochs   every row three times
 *   natural        one epoch on natural phrasing
 *   gemma          one epoch on Gemma 3 270M
 * The catalog joins the configs' servers (default: the sandboxes and the two public servers) and the functions of
 * every BFCL question scored (their schemas only; no question text reaches the data). Sets:
 *   synthetic      the demo's frozen test set (--testset; default test/fixtures/testsets/salesforce-oracle.jsonl)
 *   hand-written   one set per --cases (default sandboxes= and foreign= git, sqlite)
 *   BFCL dev       --bfcl-dev N of live_multiple and N of the dev half of irrelevance: choices are made on these
 *   BFCL report    --bfcl-report N of live_simple, live_irrelevance and the report half of irrelevance: printed,
 *                  never used to choose
 * The router with the best exact share pooled over the hand-written sets and BFCL's dev split is named, and its
 * figures set against issue targets (floors and stretch). --paired A,B adds router A minus router B on every set,
 * paired per case, with its 95 % bootstrap interval. A second table says which way each model errs on every set:
 * calls answered with no call, and no-call questions answered with a call. --priors none scores no router with serve's
 * priors; --test 0 skips the synthetic set; --no-base scores no base (the routers only, when their base is known
 * from another run on the same sets; the live_simple floor, measured against the base, is then not checked). Trained
 * adapters in --out are reused by a rerun with the same job on the same rows. --prepare builds the data and writes
 * the jobs, then stops, for training on another machine (a GPU) under the same paths. A null in --dataset unsets a
 * config key. The last line is
 *   weights: best=NAME dev=… synthetic=… SET=… bfcl_dev=… live_simple=… base_live_simple=…
 */
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../core/config/load.js';
import { datasetSchema, evaluateSchema, type FlywheelConfig } from '../../core/config/schema.js';
import { renderRows } from '../../core/dataset/render.js';
import { asTaught } from '../../core/dataset/taught.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { estimate } from '../../core/eval/bootstrap.js';
import { abstentionBalance, formatBalance } from '../../core/eval/metrics.js';
import { bfclCases } from '../../core/eval/bfcl/cases.js';
import { loadBfclSet, type BfclCategory } from '../../core/eval/bfcl/data.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { halves, sampleQuestions } from '../../core/eval/bfcl/sample.js';
import { scoreBfcl, type BfclScore } from '../../core/eval/bfcl/score.js';
import { casesFrom, sampleCases } from '../../core/eval/cases.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import type { CaseResult, Estimate, EvalCase } from '../../core/eval/types.js';
import { trainJobFor } from '../../core/train/job.js';
import { startServe } from '../../core/train/serve-process.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { buildDataset, type BuiltDataset } from '../lib/build-dataset.js';
import { handwrittenSet } from '../lib/handwritten.js';
import { mergeJob, prepareAdapter, trainAdapter, type TrainedAdapter } from '../lib/train-adapter.js';

const fixture = (...p: string[]) => join(REPO, 'test', 'fixtures', ...p);
const DEFAULT_ROUTERS = [
  'recipe-240:steps=240',
  'one-epoch:epochs=1',
  'three-epochs:epochs=3',
  'natural:phrasing=natural,epochs=1',
  'gemma:base=gemma3-270m,epochs=1',
];
const { values } = parseArgs({
  options: {
    router: { type: 'string', multiple: true, default: DEFAULT_ROUTERS },
    priors: { type: 'string', default: 'one-epoch' },
    paired: { type: 'string', multiple: true, default: [] },
    config: {
      type: 'string',
      multiple: true,
      default: ['salesforce-oracle.yaml', 'public-servers.yaml'].map((f) => join(REPO, 'examples', f)),
    },
    cases: {
      type: 'string',
      multiple: true,
      default: [
        `sandboxes=${fixture('handwritten', 'sandboxes.jsonl')}`,
        `foreign=${['git', 'sqlite'].map((s) => fixture('handwritten', `${s}.jsonl`)).join(',')}`,
      ],
    },
    testset: { type: 'string', default: fixture('testsets', 'salesforce-oracle.jsonl') },
    test: { type: 'string' },
    'bfcl-dev': { type: 'string', default: '50' },
    'bfcl-report': { type: 'string', default: '50' },
    seed: { type: 'string', default: 'bfcl-bench' },
    dataset: { type: 'string' },
    job: { type: 'string' },
    'no-base': { type: 'boolean', default: false },
    prepare: { type: 'boolean', default: false },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `weights-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
  },
});
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const t0 = performance.now();
const minutes = () => ((performance.now() - t0) / 60_000).toFixed(1);
const say = (line: string) => console.error(`[${minutes()} min] ${line}`);
const whole = (flag: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag}: expected a whole number, got ${String(v)}`);
  return n;
};

// ---- what is compared ----
interface Router {
  name: string;
  phrasing: 'description' | 'natural';
  minSliceSize?: number;
  base?: string;
  optim: Record<string, unknown>;
  budget: string;
}
const routers = values.router.map(parseRouter);
if (new Set(routers.map((r) => r.name)).size !== routers.length) throw new Error('--router: two routers share a name');
const priorsRouter = values.priors === 'none' ? undefined : values.priors;
if (priorsRouter !== undefined && !routers.some((r) => r.name === priorsRouter))
  throw new Error(`--priors ${values.priors}: no --router of that name (or none)`);
const pairs = values.paired.map((spec) => {
  const [a, b, ...rest] = spec.split(',');
  for (const name of [a, b])
    if (rest.length || !routers.some((r) => r.name === name))
      throw new Error(`--paired ${spec}: expected two --router names, A,B (A minus B)`);
  return [a!, b!] as const;
});

const configs = await Promise.all(values.config.map((file) => loadConfigFile(file)));
const first = configs[0]!;
if (!first.dataset || !first.train)
  throw new Error(`${values.config[0]!}: the benchmark needs dataset and train sections`);
const ev = first.evaluate ?? evaluateSchema.parse({});
const format = first.dataset.render.format;
const configuredJob = mergeJob(
  first.train.job as Record<string, unknown>,
  values.job ? (JSON.parse(values.job) as Record<string, unknown>) : {},
);
const defaultBase = String(configuredJob.baseModel);

// ---- BFCL: the dev split chooses, the report split is only printed ----
const bfclDev = whole('bfcl-dev', values['bfcl-dev']);
const bfclReport = whole('bfcl-report', values['bfcl-report']);
const bfcl = { dev: [] as Awaited<ReturnType<typeof bfclSet>>[], report: [] as Awaited<ReturnType<typeof bfclSet>>[] };
if (bfclDev + bfclReport > 0) {
  const { dataDir } = await locateBfcl();
  const irrelevance = halves((await loadBfclSet(dataDir, 'irrelevance')).questions, values.seed);
  if (bfclDev > 0)
    bfcl.dev = [
      await bfclSet(dataDir, 'live_multiple', bfclDev),
      await bfclSet(dataDir, 'irrelevance', bfclDev, irrelevance.dev),
    ];
  if (bfclReport > 0)
    bfcl.report = [
      await bfclSet(dataDir, 'live_simple', bfclReport),
      await bfclSet(dataDir, 'irrelevance', bfclReport, irrelevance.report),
      await bfclSet(dataDir, 'live_irrelevance', bfclReport),
    ];
}
const servers = configs.flatMap((c) => c.servers);
const bfclAll = [...bfcl.dev, ...bfcl.report];
if (bfclAll.length) {
  const file = join(out, 'bfcl-functions.jsonl');
  await writeFile(
    file,
    bfclAll.flatMap((s) => s.questions.flatMap((q) => q.function.map((f) => `${JSON.stringify(f)}\n`))).join(''),
  );
  servers.push({ name: 'bfcl', tools: file, timeoutMs: 30_000 } as (typeof servers)[number]);
}

// ---- data: one dataset per phrasing, from the joined catalog ----
// A null in --dataset unsets the config's key (e.g. {"maxPerTool": null} lifts the demo's cap).
const datasetOverride = values.dataset ? (JSON.parse(values.dataset) as Record<string, unknown>) : {};
const configuredDataset: Record<string, unknown> = { ...first.dataset, ...datasetOverride };
for (const [key, value] of Object.entries(configuredDataset)) if (value === null) delete configuredDataset[key];
// One dataset per phrasing and slice range, named by both (`natural`, `natural-min1`).
const dataKey = (r: Router) => (r.minSliceSize === undefined ? r.phrasing : `${r.phrasing}-min${r.minSliceSize}`);
const built = new Map<string, { data: BuiltDataset; train: string; val: string }>();
for (const key of new Set(routers.map(dataKey))) {
  const { phrasing, minSliceSize } = routers.find((r) => dataKey(r) === key)!;
  // Parsed again so an override is checked as a config's would be (maxPerTool ≥ minPerTool, bounds).
  const dataset = datasetSchema.parse({
    ...configuredDataset,
    phrasing,
    ...(minSliceSize === undefined ? {} : { minSliceSize }),
  });
  const data = await buildDataset({ ...first, servers, dataset } as FlywheelConfig);
  const write = async (split: 'train' | 'val') => {
    const file = join(out, `${key}-${split}.jsonl`);
    const rendered = renderRows(asTaught(data.rows[split], format), data.catalog, format);
    await writeFile(file, rendered.map((r) => `${JSON.stringify(r)}\n`).join(''));
    return file;
  };
  built.set(key, { data, train: await write('train'), val: await write('val') });
  say(`${key}: ${data.catalog.tools.length} tools, train ${data.rows.train.length} rows`);
}
const catalog = [...built.values()][0]!.data.catalog;

// ---- training ----
const adapters = new Map<string, TrainedAdapter>();
for (const r of routers) {
  const b = built.get(dataKey(r))!;
  const job = trainJobFor(
    {
      ...configuredJob,
      ...(r.base ? { baseModel: r.base } : {}),
      optim: { ...(configuredJob.optim as object), ...r.optim },
    },
    { train: b.train, val: b.val, format, outputDir: join(out, r.name) },
  );
  const what = `${r.budget} of ${String(job.baseModel)} on ${b.data.rows.train.length} ${r.phrasing} rows`;
  if (values.prepare) say(`wrote ${await prepareAdapter(r.name, job, out)} (${what})`);
  else {
    say(`training ${r.name} (${what})`);
    adapters.set(r.name, await trainAdapter(r.name, job, { out, say }));
  }
}
if (values.prepare) {
  say(
    `prepared: train each job where you like (python -m flywheel_trainer train --job ${join(out, 'NAME.job.json')}, ` +
      `its paths as here), then rerun without --prepare to score: it reuses every adapter trained from its job`,
  );
  process.exit(0);
}

// ---- the sets ----
const testRows = (await readFile(values.testset, 'utf8'))
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => {
    const { approved: _a, notes: _n, ...row } = JSON.parse(l) as RouterRow & { approved?: unknown; notes?: unknown };
    return row as RouterRow;
  });
const testLimit = values.test === undefined ? undefined : whole('test', values.test);
const synthetic =
  testLimit === 0
    ? []
    : sampleCases(
        casesFrom(renderRows(testRows, catalog, format), testRows, basename(values.testset), catalog),
        testLimit,
        ev.sampleSeed,
      );
const handSets: Array<{ name: string; cases: EvalCase[] }> = [];
for (const spec of values.cases) handSets.push(await handwrittenSet(spec, catalog, first.dataset, format));
const bfclGroups = (sets: typeof bfcl.dev) =>
  sets.map((s) => ({ category: s.category, cases: bfclCases(s, { catalog }) }));

// ---- scoring: one serve per base (in parallel, the cores shared), its labels one after another ----
interface Label {
  name: string;
  base: string;
  model: string;
  priors: boolean;
}
const bases = [...new Set(routers.map((r) => r.base ?? defaultBase))];
const labels: Label[] = [
  ...(values['no-base'] ? [] : bases.map((b) => ({ name: `base ${b}`, base: b, model: 'base', priors: false }))),
  ...routers.map((r) => ({ name: r.name, base: r.base ?? defaultBase, model: r.name, priors: false })),
  ...(priorsRouter === undefined
    ? []
    : [
        {
          name: `${priorsRouter} + priors`,
          base: routers.find((r) => r.name === priorsRouter)!.base ?? defaultBase,
          model: priorsRouter,
          priors: true,
        },
      ]),
];
interface Scored {
  synthetic: CaseResult[];
  hand: CaseResult[][];
  dev: BfclScore;
  report: BfclScore;
}
const scored = new Map<string, Scored>();
const firstBase = labels.find((l) => l.model === 'base')?.name;
const threads = String(Math.max(1, Math.floor(availableParallelism() / bases.length)));
const opts = { concurrency: 1, timeoutMs: 300_000, maxRetries: 1, maxTokens: ev.maxTokens, bootstrap: ev.bootstrap };
await Promise.all(
  bases.map(async (base, i) => {
    const mine = routers.filter((r) => (r.base ?? defaultBase) === base);
    const served = await startServe(
      // No --base: the first adapter's base is served as "base" (a tiny test base is built per run, not named).
      mine.flatMap((r) => ['--adapter', `${r.name}=${adapters.get(r.name)!.dir}`]),
      join(out, `serve-${i}.log`),
      { ...process.env, OMP_NUM_THREADS: threads },
    );
    try {
      for (const label of labels.filter((l) => l.base === base)) {
        const spec: EndpointSpec = {
          label: label.name,
          baseUrl: served.url,
          model: label.model,
          cost: { kind: 'none' },
          extraBody: label.priors ? {} : { retrieval: false, copy: false, fill: false },
        };
        say(`scoring ${label.name}`);
        const bfclOpts = {
          ...opts,
          onProgress: (category: string, done: number, total: number) => {
            if (done % 25 === 0 || done === total) say(`  ${label.name} BFCL ${category} ${done}/${total}`);
          },
        };
        scored.set(label.name, {
          synthetic: (await evaluateEndpoint(synthetic, spec, opts)).cases,
          hand: await Promise.all(handSets.map(async (s) => (await evaluateEndpoint(s.cases, spec, opts)).cases)),
          dev: bfcl.dev.length ? await scoreBfcl(bfclGroups(bfcl.dev), spec, bfclOpts) : unscored(spec),
          report: bfcl.report.length ? await scoreBfcl(bfclGroups(bfcl.report), spec, bfclOpts) : unscored(spec),
        });
      }
    } finally {
      served.run.kill();
    }
  }),
);

// ---- the table ----
const share = (xs: number[]) =>
  estimate(xs.length, (idx) => (idx.length ? idx.reduce((s, i) => s + xs[i]!, 0) / idx.length : null), ev.bootstrap);
const exact = (cs: CaseResult[]) => cs.map((c) => (c.exact ? 1 : 0));
const valid = (s: BfclScore, category?: BfclCategory) =>
  s.categories
    .filter((c) => !category || c.category === category)
    .flatMap((c) => c.cases.map((x) => (x.bfcl.valid ? 1 : 0)));
const noCall = (s: BfclScore, category: BfclCategory) =>
  s.categories.filter((c) => c.category === category).flatMap((c) => c.cases.map((x) => (x.predictedAbstains ? 1 : 0)));
/** What choices are made on: every hand-written case and BFCL's dev split, pooled. */
const devCases = (s: Scored) => [...s.hand.flatMap(exact), ...valid(s.dev)];
const columns: Array<{ head: string; of: (s: Scored) => number[]; n: number }> = [
  { head: 'dev (pooled)', of: devCases, n: 0 },
  { head: 'synthetic test', of: (s) => exact(s.synthetic), n: synthetic.length },
  ...handSets.map((h, i) => ({
    head: `hand-written ${h.name}`,
    of: (s: Scored) => exact(s.hand[i]!),
    n: h.cases.length,
  })),
  ...(bfcl.dev.length
    ? [{ head: 'BFCL dev', of: (s: Scored) => valid(s.dev), n: bfcl.dev.reduce((n, x) => n + x.questions.length, 0) }]
    : []),
  ...bfcl.report.map((set, i) => ({
    head: `${set.category}${set.category === 'irrelevance' ? ' (report half)' : ''}`,
    of: (s: Scored) => valid(s.report, bfcl.report[i]!.category),
    n: set.questions.length,
  })),
  ...bfcl.report
    .filter((set) => set.category === 'live_simple')
    .map((set) => ({
      head: 'live_simple answered with no call',
      of: (s: Scored) => noCall(s.report, 'live_simple'),
      n: set.questions.length,
    })),
];
columns[0]!.n = handSets.reduce((n, h) => n + h.cases.length, 0) + bfcl.dev.reduce((n, x) => n + x.questions.length, 0);
const col = (head: string) => columns.find((c) => c.head === head);
/** The sets whose abstention balance is printed: every scored set, BFCL's splits whole. */
const balanceSets: Array<{ head: string; of: (s: Scored) => CaseResult[] }> = [
  ...(synthetic.length ? [{ head: 'synthetic test', of: (s: Scored) => s.synthetic }] : []),
  ...handSets.map((h, i) => ({ head: `hand-written ${h.name}`, of: (s: Scored) => s.hand[i]! })),
  ...(bfcl.dev.length ? [{ head: 'BFCL dev', of: (s: Scored) => s.dev.categories.flatMap((c) => c.cases) }] : []),
  ...(bfcl.report.length
    ? [{ head: 'BFCL report', of: (s: Scored) => s.report.categories.flatMap((c) => c.cases) }]
    : []),
];
/** A minus B case by case: both scored the same cases in the same order. */
const pairedDifference = (a: number[], b: number[]) => share(a.map((x, i) => x - b[i]!));
const figure = (label: string, col: (typeof columns)[number]) => share(col.of(scored.get(label)!));
const best = routers
  .map((r) => ({ name: r.name, dev: figure(r.name, columns[0]!).value ?? -1 }))
  .sort((a, b) => b.dev - a.dev)[0]!.name;
const lines = [
  '# Quality in the weights',
  '',
  `Catalog: ${catalog.tools.length} tools (${catalog.servers.map((s) => `${s.name} ${s.tools}`).join(', ')}); ${[...built].map(([p, b]) => `${p} train ${b.data.rows.train.length} rows`).join(', ')}${values.dataset ? ` (dataset ${values.dataset})` : ''}. Routers from their weights and the constraint (serve's priors off; offer, scope and grounding checks on), exact match (BFCL: its checker's accuracy) with 95 % bootstrap intervals; BFCL's report split is printed, never used to choose.`,
  '',
  `| model | ${columns.map((c) => `${c.head} (n ${c.n})`).join(' | ')} |`,
  `|---|${columns.map(() => '---').join('|')}|`,
  ...labels.map(
    (l) =>
      `| ${l.name === best ? `**${l.name}**` : l.name}${describeLabel(l)} | ${columns.map((c) => ci(figure(l.name, c))).join(' | ')} |`,
  ),
  '',
  ...pairs.flatMap(([a, b]) => [
    `${a} − ${b}, paired per case (95 % bootstrap interval):`,
    '',
    `| ${columns.map((c) => `${c.head} (n ${c.n})`).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    `| ${columns.map((c) => ci(pairedDifference(c.of(scored.get(a)!), c.of(scored.get(b)!)))).join(' | ')} |`,
    '',
  ]),
  'Which way each errs, calls answered with no call · no-call questions answered with a call:',
  '',
  `| model | ${balanceSets.map((b) => b.head).join(' | ')} |`,
  `|---|${balanceSets.map(() => '---').join('|')}|`,
  ...labels.map(
    (l) =>
      `| ${l.name} | ${balanceSets.map((b) => formatBalance(abstentionBalance(b.of(scored.get(l.name)!)))).join(' | ')} |`,
  ),
  '',
  `Best on the dev cases: **${best}**.`,
  '',
  ...targets(best),
  '',
  `Whole run ${minutes()} min.`,
];
await writeFile(join(out, 'weights.md'), `${lines.join('\n')}\n`);
await writeFile(join(out, 'weights.json'), `${JSON.stringify(Object.fromEntries(scored), null, 2)}\n`);
console.log(lines.join('\n'));
say(`report ${join(out, 'weights.md')}`);
const f = (e: Estimate) => (typeof e.value === 'number' ? e.value.toFixed(3) : '-');
console.log(
  `weights: best=${best} ${[
    ['dev', columns[0]!],
    ['synthetic', columns[1]!],
    ...handSets.map((h) => [h.name, col(`hand-written ${h.name}`)!] as const),
    ['bfcl_dev', col('BFCL dev')],
    ['live_simple', col('live_simple')],
  ]
    .map(([k, c]) => `${String(k)}=${c && typeof c !== 'string' ? f(figure(best, c)) : '-'}`)
    .join(' ')} base_live_simple=${firstBase && col('live_simple') ? f(figure(firstBase, col('live_simple')!)) : '-'}`,
);

// ---- helpers ----
function unscored(spec: EndpointSpec): BfclScore {
  return { label: spec.label, endpoint: spec.baseUrl, model: spec.model, categories: [] };
}

function parseRouter(spec: string): Router {
  const colon = spec.indexOf(':');
  const name = colon > 0 ? spec.slice(0, colon) : spec;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new Error(`--router ${spec}: a name of lower-case letters, digits and dashes comes first`);
  const r: Router = { name, phrasing: 'description', optim: {}, budget: '' };
  for (const pair of colon > 0 ? spec.slice(colon + 1).split(',') : []) {
    const [key, value = ''] = pair.split('=');
    if (key === 'phrasing' && (value === 'description' || value === 'natural')) r.phrasing = value;
    else if (key === 'minslice' && /^[1-9]\d*$/.test(value)) r.minSliceSize = Number(value);
    else if (key === 'base' && value) r.base = value;
    else if ((key === 'steps' || key === 'epochs') && /^[1-9]\d*$/.test(value)) {
      r.optim = key === 'steps' ? { maxSteps: Number(value) } : { maxSteps: null, epochs: Number(value) };
      r.budget = `${value} ${key.slice(0, -1)}${value === '1' ? '' : 's'}`;
    } else
      throw new Error(
        `--router ${spec}: ${pair} is not one of phrasing=description|natural, minslice=N, base=MODEL, steps=N, epochs=N`,
      );
  }
  if (!r.budget) throw new Error(`--router ${spec}: give a budget, steps=N or epochs=N`);
  return r;
}

function describeLabel(l: Label): string {
  const r = routers.find((x) => x.name === l.model);
  if (!r) return '';
  const early = adapters.get(r.name)?.stoppedEarly;
  const slices =
    r.minSliceSize === undefined ? '' : `, ${r.minSliceSize}–${String(configuredDataset.sliceSize)} tools a row`;
  return ` (${r.budget}, ${r.phrasing}${slices}, ${r.base ?? defaultBase}${l.priors ? ', serve priors on' : ''}${early ? `, stopped early at step ${early.step} of ${early.total}` : ''})`;
}

function ci(e: Estimate): string {
  if (typeof e.value !== 'number') return '—';
  return `${e.value.toFixed(3)} [${e.low?.toFixed(3) ?? '—'}, ${e.high?.toFixed(3) ?? '—'}]`;
}

/** The chosen router against the targets of "quality that lives in the weights" (docs/benchmarks.md). */
function targets(router: string): string[] {
  const value = (label: string, head: string) => {
    const c = col(head);
    return c ? figure(label, c).value : null;
  };
  const baseLiveSimple = firstBase ? value(firstBase, 'live_simple') : null;
  const checks: Array<[string, string, number | null, number | null]> = [
    [
      'floor',
      'BFCL live_simple ≥ base + 0.20',
      value(router, 'live_simple'),
      baseLiveSimple === null ? null : baseLiveSimple + 0.2,
    ],
    ['floor', "sandboxes' hand-written ≥ 0.45", value(router, 'hand-written sandboxes'), 0.45],
    ['floor', 'foreign hand-written ≥ 0.35', value(router, 'hand-written foreign'), 0.35],
    ['stretch', 'BFCL live_simple ≥ 0.60', value(router, 'live_simple'), 0.6],
    ['stretch', 'irrelevance (report half) ≥ 0.85', value(router, 'irrelevance (report half)'), 0.85],
    ['stretch', 'live_irrelevance ≥ 0.85', value(router, 'live_irrelevance'), 0.85],
    ['stretch', "sandboxes' hand-written ≥ 0.50", value(router, 'hand-written sandboxes'), 0.5],
    ['stretch', 'foreign hand-written ≥ 0.50', value(router, 'hand-written foreign'), 0.5],
    ['stretch', 'synthetic test ≥ 0.60', value(router, 'synthetic test'), 0.6],
  ];
  const abstained = value(router, 'live_simple answered with no call');
  return [
    `Targets for ${router}:`,
    '',
    '| target | kind | figure | met |',
    '|---|---|---|---|',
    ...checks.map(
      ([kind, what, v, bar]) =>
        `| ${what} | ${kind} | ${v === null ? 'not scored' : v.toFixed(3)} | ${v === null || bar === null ? '—' : v >= bar - 1e-9 ? 'yes' : 'no'} |`,
    ),
    `| live_simple answered with no call ≤ 0.10 | floor | ${abstained === null ? 'not scored' : abstained.toFixed(3)} | ${abstained === null ? '—' : abstained <= 0.1 + 1e-9 ? 'yes' : 'no'} |`,
  ];
}

async function bfclSet(
  dataDir: string,
  category: BfclCategory,
  n: number,
  from?: Awaited<ReturnType<typeof loadBfclSet>>['questions'],
) {
  const set = await loadBfclSet(dataDir, category);
  return { ...set, questions: sampleQuestions(from ?? set.questions, n, `${values.seed}:${category}`) };
}
