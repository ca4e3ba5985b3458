/**
 * Does natural phrasing route requests people typed better than described phrasing? Two routers from the same
 * catalog, seed and training job, their datasets phrased each way (dataset.phrasing: description | natural), and the
 * base beside them, scored from their weights and the constraint (serve's retrieval, copy and fill priors off; the
 * offer, scope and grounding checks on) on hand-written cases and, with --bfcl-dev N, on BFCL's dev split (N of
 * live_multiple and N of the dev half of irrelevance, their functions added to the catalog; judged by BFCL's own
 * checker). Natural minus described is a paired difference per case set, with its 95 % bootstrap interval.
 *
 *   node --import tsx scripts/bench/phrasing.ts [--config FILE]… [--cases FILE[,FILE…]]… [--bfcl-dev N] [--steps N]
 *                                               [--dataset JSON] [--job JSON] [--out DIR]
 *
 * Defaults: examples/public-servers.yaml (mcp-server-git and mcp-server-sqlite from their recorded tool lists), the
 * cases written for them (test/fixtures/handwritten/git.jsonl, sqlite.jsonl), --bfcl-dev 50. Several --config join
 * their servers into one catalog (the first's dataset and train sections rule); each --cases is one set with its own
 * rows in the table; --dataset is merged into the dataset section (e.g. {"maxPerTool":6,"minPerTool":6} to fit a
 * CPU). The last line (hand-written: every set pooled) is
 *   phrasing: handwritten description=… natural=… base=… bfcl_dev description=… natural=… base=…
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../core/config/load.js';
import { datasetSchema, evaluateSchema, type FlywheelConfig } from '../../core/config/schema.js';
import { renderRows } from '../../core/dataset/render.js';
import { asTaught } from '../../core/dataset/taught.js';
import { estimate } from '../../core/eval/bootstrap.js';
import { bfclCases } from '../../core/eval/bfcl/cases.js';
import { loadBfclSet } from '../../core/eval/bfcl/data.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { halves, sampleQuestions } from '../../core/eval/bfcl/sample.js';
import { scoreBfcl, type BfclScore } from '../../core/eval/bfcl/score.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import { handwrittenCases } from '../../core/eval/handwritten.js';
import type { EndpointResult, Estimate, EvalCase } from '../../core/eval/types.js';
import { normalizeTrainJob, trainJobFor } from '../../core/train/job.js';
import { startServe } from '../../core/train/serve-process.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { buildDataset, type BuiltDataset } from '../lib/build-dataset.js';
import { handwrittenRowsOf } from '../lib/handwritten.js';
import { mergeJob, trainAdapter } from '../lib/train-adapter.js';

const PHRASINGS = ['description', 'natural'] as const;
/** What the routers were trained with ("240 steps of smollm2-135m-instruct"), from the job the trainer ran. */
let trained = '';
/** Where each router's training ended, when it ended before its last step (early stopping). */
const stoppedEarly: string[] = [];
type Phrasing = (typeof PHRASINGS)[number];

const { values } = parseArgs({
  options: {
    config: { type: 'string', multiple: true, default: [join(REPO, 'examples', 'public-servers.yaml')] },
    cases: {
      type: 'string',
      multiple: true,
      default: [['git', 'sqlite'].map((s) => join(REPO, 'test', 'fixtures', 'handwritten', `${s}.jsonl`)).join(',')],
    },
    'bfcl-dev': { type: 'string', default: '50' },
    seed: { type: 'string', default: 'phrasing-bench' },
    steps: { type: 'string' },
    dataset: { type: 'string' },
    job: { type: 'string' },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `phrasing-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
  },
});
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const t0 = performance.now();
const minutes = () => ((performance.now() - t0) / 60_000).toFixed(1);
const say = (line: string) => console.error(`[${minutes()} min] ${line}`);
const bfclDev = Number(values['bfcl-dev']);
if (!Number.isInteger(bfclDev) || bfclDev < 0) throw new Error(`--bfcl-dev: expected a whole number`);

const configs = await Promise.all(values.config.map((file) => loadConfigFile(file)));
const loaded = configs[0]!;
if (!loaded.dataset || !loaded.train)
  throw new Error(`${values.config[0]!}: the benchmark needs dataset and train sections`);
const datasetOverride = values.dataset ? (JSON.parse(values.dataset) as Record<string, unknown>) : {};
const ev = loaded.evaluate ?? evaluateSchema.parse({});

// ---- BFCL's dev split: its questions' functions join the catalog (no question text reaches the data) ----
const bfcl = bfclDev > 0 ? await bfclDevSets(bfclDev) : [];
const servers = configs.flatMap((c) => c.servers);
if (bfcl.length) {
  const file = join(out, 'bfcl-dev-functions.jsonl');
  await writeFile(
    file,
    bfcl.flatMap((s) => s.questions.flatMap((q) => q.function.map((f) => `${JSON.stringify(f)}\n`))).join(''),
  );
  servers.push({ name: 'bfcl', tools: file, timeoutMs: 30_000 } as (typeof servers)[number]);
}

// ---- two datasets, the same catalog and seed, phrased each way; two routers from the same job ----
const built = {} as Record<Phrasing, BuiltDataset>;
const adapters = {} as Record<Phrasing, string>;
const format = loaded.dataset.render.format;
for (const phrasing of PHRASINGS) {
  // Parsed again so an override is checked as a config's would be (maxPerTool ≥ minPerTool, bounds).
  const dataset = datasetSchema.parse({ ...loaded.dataset, ...datasetOverride, phrasing });
  const config = { ...loaded, servers, dataset } as FlywheelConfig;
  const b = (built[phrasing] = await buildDataset(config));
  const styles = b.rows.train.reduce<Record<string, number>>((m, r) => {
    const s = r.provenance.style ?? 'unstyled';
    m[s] = (m[s] ?? 0) + 1;
    return m;
  }, {});
  say(`${phrasing}: ${b.catalog.tools.length} tools, train ${b.rows.train.length} rows (${fmtCounts(styles)})`);
  const write = async (name: string, rows: typeof b.rows.train) => {
    const file = join(out, `${phrasing}-${name}.jsonl`);
    await writeFile(
      file,
      renderRows(asTaught(rows, format), b.catalog, format)
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
    return file;
  };
  adapters[phrasing] = await train(phrasing, await write('train', b.rows.train), await write('val', b.rows.val));
}

// ---- scoring: one server holds the base and both routers; priors off, checks on ----
const catalog = built.description.catalog;
/** Each --cases is one set, named by its files ("git, sqlite"). */
const caseSets: { name: string; cases: EvalCase[] }[] = [];
for (const set of values.cases) {
  const files = set.split(',').filter(Boolean);
  const cases: EvalCase[] = [];
  for (const file of files) {
    const rows = handwrittenRowsOf(await readFile(file, 'utf8'), file, catalog, loaded.dataset);
    cases.push(...handwrittenCases(rows, catalog, format, file));
  }
  caseSets.push({ name: files.map((f) => basename(f, '.jsonl')).join(', '), cases });
}
const handCases = caseSets.flatMap((s) => s.cases);
const served = await startServe(
  PHRASINGS.flatMap((p) => ['--adapter', `${p}=${adapters[p]}`]),
  join(out, 'serve.log'),
);
const LABELS = ['base', ...PHRASINGS] as const;
const spec = (label: string): EndpointSpec => ({
  label,
  baseUrl: served.url,
  model: label,
  cost: { kind: 'none' },
  extraBody: { retrieval: false, copy: false, fill: false },
});
const opts = { concurrency: 1, timeoutMs: 300_000, maxRetries: 1, maxTokens: ev.maxTokens, bootstrap: ev.bootstrap };
const hand: Record<string, EndpointResult> = {};
const bfclScores: Record<string, BfclScore> = {};
try {
  for (const label of LABELS) {
    say(`scoring ${label} on ${handCases.length} hand-written cases`);
    hand[label] = await evaluateEndpoint(handCases, spec(label), opts);
  }
  if (bfcl.length) {
    const groups = bfcl.map((s) => ({ category: s.category, cases: bfclCases(s, { catalog }) }));
    for (const label of LABELS) {
      say(`scoring ${label} on BFCL's dev split (${groups.map((g) => `${g.category} ${g.cases.length}`).join(', ')})`);
      bfclScores[label] = await scoreBfcl(groups, spec(label), {
        ...opts,
        onProgress: (category, done, total) => {
          if (done % 25 === 0 || done === total) say(`  ${label} ${category} ${done}/${total}`);
        },
      });
    }
  }
} finally {
  served.run.kill();
}

// ---- the table: each figure with its interval, and natural minus described paired per case ----
// Each set's cases are a slice of the pooled run, in order.
const setCases = (label: string, set: number) => {
  const from = caseSets.slice(0, set).reduce((n, s) => n + s.cases.length, 0);
  return hand[label]!.cases.slice(from, from + caseSets[set]!.cases.length);
};
const handShare = (label: string, set: number, key: 'exact' | 'toolMatch') =>
  setCases(label, set).map((c) => (c[key] ? 1 : 0));
const bfclValid = (label: string) =>
  bfclScores[label]?.categories.flatMap((c) => c.cases.map((x) => (x.bfcl.valid ? 1 : 0))) ?? [];
const mean = (xs: number[]) => (idx: number[]) =>
  idx.length ? idx.reduce((s, i) => s + xs[i]!, 0) / idx.length : null;
const share = (xs: number[]) => estimate(xs.length, mean(xs), ev.bootstrap);
const paired = (a: number[], b: number[]) => share(a.map((x, i) => x - b[i]!));
const lines = [
  `# Natural against described phrasing`,
  '',
  `Catalog: ${catalog.tools.length} tools (${catalog.servers.map((s) => s.name).join(', ')}); training rows: ${PHRASINGS.map((p) => `${p} ${built[p].rows.train.length}`).join(', ')}${values.dataset ? ` (dataset ${values.dataset})` : ''}; each router: ${trained}${stoppedEarly.length ? ` (${stoppedEarly.join('; ')})` : ''}; scored from the weights and the constraint (priors off, offer, scope and grounding checks on).`,
  '',
  '| set | n | base | described | natural | natural − described (paired) |',
  '|---|--:|---|---|---|---|',
  ...caseSets.flatMap((set, i) => [
    row(
      `hand-written ${set.name}, exact`,
      set.cases.length,
      (l) => share(handShare(l, i, 'exact')),
      paired(handShare('natural', i, 'exact'), handShare('description', i, 'exact')),
    ),
    row(`hand-written ${set.name}, tool accuracy`, set.cases.length, (l) => share(handShare(l, i, 'toolMatch'))),
  ]),
  ...(bfcl.length
    ? [
        ...bfcl.map((s) =>
          row(
            `BFCL ${s.category}`,
            s.questions.length,
            (l) => bfclScores[l]!.categories.find((c) => c.category === s.category)!.accuracy,
          ),
        ),
        row(
          'BFCL dev split, all',
          bfclValid('base').length,
          (l) => share(bfclValid(l)),
          paired(bfclValid('natural'), bfclValid('description')),
        ),
      ]
    : []),
  '',
  `Whole run ${minutes()} min.`,
];
await writeFile(join(out, 'phrasing.md'), `${lines.join('\n')}\n`);
await writeFile(
  join(out, 'phrasing.json'),
  `${JSON.stringify({ hand, bfcl: bfclScores, cases: values.cases, bfclDev }, null, 2)}\n`,
);
console.log(lines.join('\n'));
say(`report ${join(out, 'phrasing.md')}`);
const f = (e: Estimate | undefined) => (typeof e?.value === 'number' ? e.value.toFixed(3) : '-');
const bfclAll = (l: string) => (bfcl.length ? f(share(bfclValid(l))) : '-');
console.log(
  `phrasing: handwritten ${LABELS.slice(1)
    .map((l) => `${l}=${f(hand[l]!.metrics.exactMatch)}`)
    .join(' ')} base=${f(hand.base!.metrics.exactMatch)} bfcl_dev ${LABELS.slice(1)
    .map((l) => `${l}=${bfclAll(l)}`)
    .join(' ')} base=${bfclAll('base')}`,
);

// ---- helpers ----
function row(set: string, n: number, of: (label: string) => Estimate, diff?: Estimate): string {
  return `| ${set} | ${n} | ${LABELS.map((l) => ci(of(l))).join(' | ')} | ${diff ? ci(diff, true) : ''} |`;
}
function ci(e: Estimate, signed = false): string {
  if (typeof e.value !== 'number') return '—';
  const s = (x: number) => (signed && x > 0 ? '+' : '') + x.toFixed(3);
  return `${s(e.value)} [${e.low === null ? '—' : s(e.low)}, ${e.high === null ? '—' : s(e.high)}]`;
}
function fmtCounts(m: Record<string, number>): string {
  return Object.entries(m)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

async function bfclDevSets(n: number) {
  const { dataDir } = await locateBfcl();
  const multiple = await loadBfclSet(dataDir, 'live_multiple');
  const irrelevance = await loadBfclSet(dataDir, 'irrelevance');
  return [
    { ...multiple, questions: sampleQuestions(multiple.questions, n, `${values.seed}:live_multiple`) },
    {
      ...irrelevance,
      questions: sampleQuestions(halves(irrelevance.questions, 'bfcl-bench').dev, n, `${values.seed}:irrelevance`),
    },
  ];
}

async function train(name: string, trainFile: string, valFile: string): Promise<string> {
  const job = mergeJob(
    loaded.train!.job as Record<string, unknown>,
    values.job ? (JSON.parse(values.job) as Record<string, unknown>) : {},
  );
  const optim = job.optim as Record<string, unknown>;
  if (values.steps) optim.maxSteps = Number(values.steps);
  const full = trainJobFor(job, { train: trainFile, val: valFile, format, outputDir: join(out, name) });
  const epochs = Number((normalizeTrainJob(full).optim as Record<string, unknown>).epochs);
  trained = `${optim.maxSteps ? `${String(optim.maxSteps)} steps` : `${epochs} epoch${epochs === 1 ? '' : 's'}`} of ${String(full.baseModel)}`;
  say(`training the ${name} router (${trained})`);
  const adapter = await trainAdapter(name, full, { out, say });
  // Early stopping ends a run before its last step and keeps its best checkpoint: the report must say so.
  if (adapter.stoppedEarly) {
    const { step, total } = adapter.stoppedEarly;
    stoppedEarly.push(`${name} stopped early at step ${step} of ${total} and kept its best checkpoint`);
    say(`  ${stoppedEarly.at(-1)!}`);
  }
  return adapter.dir;
}
