/**
 * The flywheel judged by BFCL: a router built for the union of the scored questions' functions from the function
 * schemas alone (no question text reaches the data), then the base and the router scored in one run on BFCL's
 * questions by BFCL's own checker (docs/bfcl.md). Both are scored from their weights: serve's retrieval, copy and
 * fill priors and the grounding and schema checks are off. Base and router are scored at once, each on its own server.
 *
 *   node --import tsx scripts/bench/bfcl.ts [--config FILE] [--live-simple N] [--live-multiple N] [--irrelevance N]
 *                                           [--live-irrelevance N] [--dev] [--steps N] [--job JSON] [--out DIR]
 *
 * Splits: `live_multiple` and a seeded half of `irrelevance` are the dev split, which choices (base, recipe,
 * generator mix, thresholds) may look at; `live_simple`, `live_irrelevance` and the other half of `irrelevance`
 * are report-only. By default all four are scored: every live_simple question (258), a seeded 200 of live_multiple,
 * 100 of the report half of irrelevance and 100 of live_irrelevance. --dev scores the dev split alone (live_multiple
 * and 100 of the dev half of irrelevance), for choosing. The config (default: the demo's) gives the dataset and
 * train sections; its servers are replaced by the functions file. The last line is
 *   bfcl: live_simple=… live_multiple=… irrelevance=… live_irrelevance=… base_live_simple=… …
 * (BFCL's accuracy; a category not scored prints "-").
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../core/config/load.js';
import { evaluateSchema } from '../../core/config/schema.js';
import { renderRows } from '../../core/dataset/render.js';
import { asTaught } from '../../core/dataset/taught.js';
import { bfclCases } from '../../core/eval/bfcl/cases.js';
import { loadBfclSet, type BfclCategory, type BfclQuestion } from '../../core/eval/bfcl/data.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { bfclMarkdown, bfclTable, type BfclReport } from '../../core/eval/bfcl/report.js';
import { halves, sampleQuestions } from '../../core/eval/bfcl/sample.js';
import { scoreBfcl, type BfclScore } from '../../core/eval/bfcl/score.js';
import { trainJobFor } from '../../core/train/job.js';
import { startServe } from '../../core/train/serve-process.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { buildDataset } from '../lib/build-dataset.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { mergeJob, trainAdapter } from '../lib/train-adapter.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: join(REPO, DEFAULT_CONFIG) },
    'live-simple': { type: 'string', default: '258' },
    'live-multiple': { type: 'string', default: '200' },
    irrelevance: { type: 'string', default: '100' },
    'live-irrelevance': { type: 'string', default: '100' },
    dev: { type: 'boolean', default: false },
    seed: { type: 'string', default: 'bfcl-bench' },
    steps: { type: 'string' },
    /** JSON merged into the config's train.job (its optim and lora merged key by key). */
    job: { type: 'string' },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `bfcl-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
  },
});
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const t0 = performance.now();
const minutes = () => ((performance.now() - t0) / 60_000).toFixed(1);
const say = (line: string) => console.error(`[${minutes()} min] ${line}`);
const count = (flag: string) => {
  const n = Number(values[flag as keyof typeof values]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag}: expected a whole number, got ${String(n)}`);
  return n;
};

// ---- the questions: the split decides which categories and which half of irrelevance ----
const { dataDir, python } = await locateBfcl();
const load = async (category: BfclCategory) => loadBfclSet(dataDir, category);
const irrelevance = await load('irrelevance');
const irrelevanceHalves = halves(irrelevance.questions, values.seed);
const plan: Array<{ category: BfclCategory; from: BfclQuestion[]; n: number }> = values.dev
  ? [
      { category: 'live_multiple', from: (await load('live_multiple')).questions, n: count('live-multiple') },
      { category: 'irrelevance', from: irrelevanceHalves.dev, n: count('irrelevance') },
    ]
  : [
      { category: 'live_simple', from: (await load('live_simple')).questions, n: count('live-simple') },
      { category: 'live_multiple', from: (await load('live_multiple')).questions, n: count('live-multiple') },
      { category: 'irrelevance', from: irrelevanceHalves.report, n: count('irrelevance') },
      { category: 'live_irrelevance', from: (await load('live_irrelevance')).questions, n: count('live-irrelevance') },
    ];
const sets = await Promise.all(
  plan
    .filter((p) => p.n > 0)
    .map(async (p) => ({
      ...(await load(p.category)),
      questions: sampleQuestions(p.from, p.n, `${values.seed}:${p.category}`),
    })),
);
say(
  `questions: ${sets.map((s) => `${s.category} ${s.questions.length}`).join(', ')} (${values.dev ? 'dev' : 'report'} split)`,
);

// ---- the router's catalog: every function a scored question offers, as BFCL documents it, and nothing else ----
const functionsFile = join(out, 'functions.jsonl');
await writeFile(
  functionsFile,
  sets.flatMap((s) => s.questions.flatMap((q) => q.function.map((f) => `${JSON.stringify(f)}\n`))).join(''),
);
const loaded = await loadConfigFile(values.config);
if (!loaded.dataset || !loaded.train)
  throw new Error(`${values.config}: the BFCL benchmark needs dataset and train sections`);
const config = {
  ...loaded,
  name: 'bfcl',
  servers: [{ name: 'bfcl', tools: functionsFile, timeoutMs: 30_000 }],
} as typeof loaded;
const ev = loaded.evaluate ?? evaluateSchema.parse({});

const built = await buildDataset(config);
const format = loaded.dataset.render.format;
say(
  `dataset from ${built.catalog.tools.length} functions' schemas: train ${built.rows.train.length} rows, val ${built.rows.val.length} (${Object.entries(
    built.seconds,
  )
    .map(([k, s]) => `${k} ${s.toFixed(0)} s`)
    .join(', ')})`,
);
const write = async (name: string, rows: ReturnType<typeof renderRows>) => {
  const file = join(out, `${name}.jsonl`);
  await writeFile(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return file;
};
const trainFile = await write('train', renderRows(asTaught(built.rows.train, format), built.catalog, format));
const valFile = await write('val', renderRows(asTaught(built.rows.val, format), built.catalog, format));

// ---- training: the config's job (with --job and --steps over it) ----
const job = mergeJob(
  loaded.train.job as Record<string, unknown>,
  values.job ? (JSON.parse(values.job) as Record<string, unknown>) : {},
);
const optim = job.optim as Record<string, unknown>;
if (values.steps) optim.maxSteps = Number(values.steps);
say(`training the router (${String(optim.maxSteps ?? 'all')} steps)`);
const trained = await trainAdapter(
  'router',
  trainJobFor(job, { train: trainFile, val: valFile, format, outputDir: join(out, 'router') }),
  { out, say },
);

// ---- scoring: base and router side by side, each on its own server, from their weights alone ----
// Two servers at half the cores each: a small model's decode does not use more threads well (on 2 cores, one
// thread answered BFCL questions faster than two), so the pair finishes in about the time of one. Latency is
// measured with the other server busy.
const threads = String(Math.max(1, Math.floor(availableParallelism() / 2)));
const adapter = `router=${trained.dir}`;
const servers = await Promise.all(
  ['base', 'router'].map((label) =>
    startServe(['--adapter', adapter], join(out, `serve-${label}.log`), {
      ...process.env,
      OMP_NUM_THREADS: threads,
    }),
  ),
);
const groups = sets.map((s) => ({ category: s.category, cases: bfclCases(s, { catalog: built.catalog }) }));
say(
  `scoring base and router on ${groups.reduce((n, g) => n + g.cases.length, 0)} questions each (${threads} thread(s) a server)`,
);
let scores: BfclScore[];
try {
  scores = await Promise.all(
    (['base', 'router'] as const).map((label, i) =>
      scoreBfcl(
        groups,
        {
          label,
          baseUrl: servers[i]!.url,
          model: label,
          cost: { kind: 'none' },
          extraBody: { retrieval: false, copy: false, fill: false },
        },
        {
          argumentChecks: false,
          concurrency: 1,
          timeoutMs: 300_000,
          maxRetries: 1,
          maxTokens: ev.maxTokens,
          bootstrap: ev.bootstrap,
          onProgress: (category, done, total) => {
            if (done % 25 === 0 || done === total) say(`  ${label} ${category} ${done}/${total}`);
          },
        },
      ),
    ),
  );
} finally {
  for (const s of servers) s.run.kill();
}

const report: BfclReport = {
  createdAt: new Date().toISOString(),
  judge: { python, data: dataDir },
  sampleSeed: values.seed,
  endpoints: scores,
};
await writeFile(join(out, 'bfcl.json'), `${JSON.stringify(report, null, 2)}\n`);
await writeFile(
  join(out, 'bfcl.md'),
  `${bfclMarkdown(report)}\nRouter: ${built.catalog.tools.length} functions, ${built.rows.train.length} train rows, ${String(optim.maxSteps ?? 'all')} steps of ${String(job.baseModel)}; whole run ${minutes()} min.\n`,
);
console.log(bfclTable(scores));
say(`whole run: ${minutes()} min; report ${join(out, 'bfcl.md')}`);
const accuracy = (label: string, category: BfclCategory) => {
  const v = scores.find((s) => s.label === label)?.categories.find((c) => c.category === category)?.accuracy.value;
  return typeof v === 'number' ? v.toFixed(3) : '-';
};
const CATEGORIES: BfclCategory[] = ['live_simple', 'live_multiple', 'irrelevance', 'live_irrelevance'];
console.log(
  `bfcl: ${[
    ...CATEGORIES.map((c) => `${c}=${accuracy('router', c)}`),
    ...CATEGORIES.map((c) => `base_${c}=${accuracy('base', c)}`),
  ].join(' ')}`,
);
