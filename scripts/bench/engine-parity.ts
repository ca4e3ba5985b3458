/**
 * Engine parity: one router adapter through `flywheel serve` (its priors off: the weights and its constraint) and
 * through vLLM (its CPU build, decoding inside the router answer's JSON Schema over the offered tools and the
 * adapter's catalog, as serve's constraint allows), both read and checked by the one
 * router contract (core/router/answer.ts, core/router/checks.ts), on the same cases. What differs is the engines'
 * decoding alone. Per set: exact match on each, the difference (the goal: within 0.03), calls outside their
 * tool's schema on each (the goal: none), and the cases the two decided differently, listed.
 *
 *   node --import tsx scripts/bench/engine-parity.ts --adapter DIR [--config FILE]… [--testset FILE] [--test N]
 *     [--cases NAME=FILE[,FILE…]]… [--bfcl-dev N] [--seed S] [--dtype bfloat16|float32] [--out DIR]
 *
 * `--adapter` is a trained router adapter (the demo's is under .flywheel/served/NAME/adapter). The sets: the
 * frozen synthetic test (`--testset`: router rows as `flywheel testset export` writes them, or rendered rows;
 * sampled to `--test N`), the hand-written cases (`--cases`; the sandboxes' and the public servers'; `none` for
 * none), and BFCL's dev split (`--bfcl-dev N` of live_multiple and of irrelevance's dev half,
 * drawn as scripts/bench/weights.ts draws them). The catalog that resolves them comes from the `--config` files'
 * servers. `--dtype` is the weights' on both engines (serve's --cpu-dtype, vLLM's --dtype; default bfloat16, what
 * both serve on this CPU): float32 on both takes bf16 rounding out of the comparison. Calls off their tool's schema
 * are counted as each engine wrote them; the contract's schema check answers them as missing_argument, and the
 * exact figures are after it. Writes parity.json, differences.jsonl and off-schema.jsonl under `--out`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { loadConfigFile } from '../../core/config/load.js';
import { evaluateSchema, type ServerConfig } from '../../core/config/schema.js';
import { renderRows, type RenderedRow } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { Backend } from '../../core/deploy/backend.js';
import { bfclCases } from '../../core/eval/bfcl/cases.js';
import { loadBfclSet } from '../../core/eval/bfcl/data.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { halves, sampleQuestions } from '../../core/eval/bfcl/sample.js';
import { casesFrom, sampleCases } from '../../core/eval/cases.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import type { CaseResult, EvalCase } from '../../core/eval/types.js';
import { readAdapterTools } from '../../core/train/adapter-tools.js';
import { validatorFor } from '../../core/schema/compile.js';
import { startServe } from '../../core/train/serve-process.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { startVllm } from '../../test/helpers/vllm.js';
import { baseOf } from '../lib/gateway-engines.js';
import { handwrittenSet } from '../lib/handwritten.js';

const fixture = (...p: string[]) => join(REPO, 'test', 'fixtures', ...p);
const { values } = parseArgs({
  options: {
    adapter: { type: 'string' },
    config: {
      type: 'string',
      multiple: true,
      default: ['salesforce-oracle.yaml', 'public-servers.yaml'].map((f) => join(REPO, 'examples', f)),
    },
    testset: { type: 'string', default: fixture('testsets', 'salesforce-oracle.jsonl') },
    test: { type: 'string', default: '40' },
    cases: {
      type: 'string',
      multiple: true,
      default: [
        `sandboxes=${fixture('handwritten', 'sandboxes.jsonl')}`,
        `foreign=${['git', 'sqlite'].map((s) => fixture('handwritten', `${s}.jsonl`)).join(',')}`,
      ],
    },
    'bfcl-dev': { type: 'string', default: '20' },
    seed: { type: 'string', default: 'bfcl-bench' },
    dtype: { type: 'string', default: 'bfloat16' },
    'max-tokens': { type: 'string', default: '256' },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `engine-parity-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
  },
});
if (!values.adapter) {
  console.error(
    'engine-parity: --adapter DIR is required (a trained router adapter, e.g. .flywheel/served/NAME/adapter)',
  );
  process.exit(2);
}
const whole = (flag: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag}: expected a whole number, got ${v}`);
  return n;
};
if (values.dtype !== 'bfloat16' && values.dtype !== 'float32') {
  console.error(`engine-parity: --dtype ${values.dtype}: expected bfloat16 or float32`);
  process.exit(2);
}
const dtype = values.dtype;
const adapter = resolve(values.adapter);
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const t0 = performance.now();
const say = (line: string) => console.error(`[${((performance.now() - t0) / 60_000).toFixed(1)} min] ${line}`);

// ---- the catalog and the sets ----
const configs = await Promise.all(values.config.map((f) => loadConfigFile(f)));
const first = configs[0]!;
if (!first.dataset) throw new Error(`${values.config[0]!}: needs a dataset section (personas, slices)`);
const ev = first.evaluate ?? evaluateSchema.parse({});
const format = first.dataset.render.format;
const bfclDev = whole('bfcl-dev', values['bfcl-dev']);
const servers: ServerConfig[] = configs.flatMap((c) => c.servers);
const bfclSets = [];
if (bfclDev > 0) {
  const { dataDir } = await locateBfcl();
  const irrelevance = await loadBfclSet(dataDir, 'irrelevance');
  const multiple = await loadBfclSet(dataDir, 'live_multiple');
  bfclSets.push(
    { ...multiple, questions: sampleQuestions(multiple.questions, bfclDev, `${values.seed}:live_multiple`) },
    {
      ...irrelevance,
      questions: sampleQuestions(halves(irrelevance.questions, values.seed).dev, bfclDev, `${values.seed}:irrelevance`),
    },
  );
  const file = join(out, 'bfcl-functions.jsonl');
  await writeFile(
    file,
    bfclSets.flatMap((s) => s.questions.flatMap((q) => q.function.map((f) => `${JSON.stringify(f)}\n`))).join(''),
  );
  servers.push({ name: 'bfcl', tools: file, timeoutMs: 30_000 } as ServerConfig);
}
const catalog = buildCatalog('parity', await Promise.all(servers.map((s) => listServerTools(s, { maxPages: 100 }))));
const testLines = (await readFile(values.testset, 'utf8'))
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Record<string, unknown>);
// Rendered rows (a run's rendered-test) are cases as they stand; router rows are rendered over the catalog first.
const testCases = testLines.every((r) => 'completion' in r)
  ? casesFrom(testLines as unknown as RenderedRow[])
  : (() => {
      const rows = testLines.map(({ approved: _a, notes: _n, ...row }) => row as unknown as RouterRow);
      return casesFrom(renderRows(rows, catalog, format), rows, basename(values.testset), catalog);
    })();
const sets: Array<{ name: string; cases: EvalCase[] }> = [
  { name: 'synthetic test', cases: sampleCases(testCases, whole('test', values.test), ev.sampleSeed) },
];
for (const spec of values.cases.filter((c) => c !== 'none')) {
  const set = await handwrittenSet(spec, catalog, first.dataset, format);
  sets.push({ name: `hand-written ${set.name}`, cases: set.cases });
}
if (bfclSets.length)
  sets.push({ name: 'BFCL dev', cases: bfclSets.flatMap((s) => bfclCases(s, { catalog }).map((c) => c.case)) });
say(`${sets.map((s) => `${s.name} ${s.cases.length}`).join(', ')}; adapter ${adapter}`);

// ---- both engines, one after the other, so neither measures the other's load ----
const opts = {
  concurrency: 1,
  timeoutMs: 600_000,
  maxRetries: 1,
  maxTokens: whole('max-tokens', values['max-tokens']),
  bootstrap: ev.bootstrap,
};
type Scores = CaseResult[][];
/** Calls outside their tool's own schema, with the first thing the schema says is wrong. */
const offSchema: Array<{ set: string; engine: string; id: string; tool: string; why: string }> = [];
async function scoreAll(label: string, spec: Omit<EndpointSpec, 'label' | 'cost'>, concurrency: number) {
  const scores: Scores = [];
  for (const s of sets) {
    say(`${label}: ${s.name} (${s.cases.length})`);
    const calls = new Map<string, { tool: string; arguments: unknown }>();
    const r = await evaluateEndpoint(
      s.cases,
      { ...spec, label, cost: { kind: 'none' } },
      { ...opts, concurrency, onPrediction: (c, p) => p.kind === 'call' && calls.set(c.id, p) },
    );
    for (const [i, result] of r.cases.entries()) {
      if (result.schemaValid !== false) continue;
      // The call as the engine wrote it (the schema check has since answered it as missing_argument).
      const call = calls.get(result.id)!;
      const schema = s.cases[i]!.tools.find((t) => t.function.name === call.tool)?.function.parameters;
      const validate = schema === undefined ? null : validatorFor(schema);
      const error = validate && !validate(call.arguments) ? validate.errors?.[0] : undefined;
      const why = error ? `${error.instancePath || '/'} ${error.message ?? ''}` : 'not offered';
      offSchema.push({ set: s.name, engine: label, id: result.id, tool: call.tool, why });
    }
    scores.push(r.cases);
  }
  return scores;
}
const KEY = 'engine-parity-key';
const serve = await startServe(['--cpu-dtype', dtype], join(out, 'serve.log'));
let serveScores: Scores;
try {
  const route = await new Backend('local', serve.url, KEY).load('router', adapter);
  // serve answers one request at a time: more in flight only queue.
  serveScores = await scoreAll(
    'serve',
    { baseUrl: serve.url, model: route.servedModel, extraBody: { retrieval: false, copy: false, fill: false } },
    1,
  );
} finally {
  serve.run.kill();
  await serve.run.done;
}
// The longest context the base takes, up to 8192 (BFCL's function lists run long).
const baseDir = baseOf(adapter);
const { max_position_embeddings: positions } = JSON.parse(await readFile(join(baseDir, 'config.json'), 'utf8')) as {
  max_position_embeddings?: number;
};
const vllm = await startVllm({
  model: baseDir,
  apiKey: KEY,
  log: join(out, 'vllm.log'),
  dtype,
  maxModelLen: Math.min(8192, positions ?? 2048),
});
let vllmScores: Scores;
try {
  const route = await new Backend('vllm', vllm.url, KEY).load('router', adapter);
  vllmScores = await scoreAll(
    'vllm',
    {
      baseUrl: vllm.url,
      model: route.servedModel,
      apiKey: KEY,
      constraint: 'json-schema',
      // What serve's constraint lets the adapter name: the offered tools and its catalog's.
      nameable: readAdapterTools(adapter),
    },
    4,
  );
} finally {
  await vllm.stop();
}

// ---- the table ----
const decided = (r: CaseResult) =>
  `${r.predictedTool}${r.outcome === 'correct' ? '' : ` (${r.outcome}${r.detail ? `: ${r.detail.slice(0, 80)}` : ''})`}`;
const rows = sets.map((s, i) => {
  const a = serveScores[i]!;
  const b = vllmScores[i]!;
  const exact = (rs: CaseResult[]) => rs.filter((r) => r.exact).length / Math.max(1, rs.length);
  const offSchema = (rs: CaseResult[]) => rs.filter((r) => r.schemaValid === false).length;
  const differing = a
    .map((r, j) => ({ id: r.id, serve: r, vllm: b[j]! }))
    .filter((d) => d.serve.predictedTool !== d.vllm.predictedTool || d.serve.exact !== d.vllm.exact);
  return {
    set: s.name,
    n: s.cases.length,
    serveExact: exact(a),
    vllmExact: exact(b),
    difference: exact(b) - exact(a),
    serveOffSchema: offSchema(a),
    vllmOffSchema: offSchema(b),
    failed: a.filter((r) => r.measure.error).length + b.filter((r) => r.measure.error).length,
    differing: differing.map((d) => ({ id: d.id, serve: decided(d.serve), vllm: decided(d.vllm) })),
  };
});
await writeFile(join(out, 'parity.json'), `${JSON.stringify({ adapter, dtype, rows }, null, 2)}\n`);
await writeFile(join(out, 'off-schema.jsonl'), offSchema.map((o) => `${JSON.stringify(o)}\n`).join(''));
await writeFile(
  join(out, 'differences.jsonl'),
  rows.flatMap((r) => r.differing.map((d) => `${JSON.stringify({ set: r.set, ...d })}\n`)).join(''),
);
const pct = (x: number) => x.toFixed(3);
console.log(
  '\n| set | n | serve exact | vLLM exact | vLLM − serve | within 0.03 | calls written off-schema (serve / vLLM) | decided differently |',
);
console.log('|---|--:|--:|--:|--:|---|--:|--:|');
for (const r of rows)
  console.log(
    `| ${r.set} | ${r.n} | ${pct(r.serveExact)} | ${pct(r.vllmExact)} | ${r.difference >= 0 ? '+' : ''}${pct(r.difference)} | ${Math.abs(r.difference) <= 0.03 ? 'yes' : 'no'} | ${r.serveOffSchema} / ${r.vllmOffSchema} | ${r.differing.length} |`,
  );
for (const r of rows)
  for (const d of r.differing.slice(0, 10)) console.log(`  ${r.set} ${d.id}: serve ${d.serve}; vLLM ${d.vllm}`);
for (const o of offSchema) console.log(`  off-schema ${o.engine} ${o.set} ${o.id}: ${o.tool} ${o.why}`);
for (const r of rows)
  console.log(
    `engine-parity: set="${r.set}" n=${r.n} serve_exact=${pct(r.serveExact)} vllm_exact=${pct(r.vllmExact)} off_schema=${r.serveOffSchema}/${r.vllmOffSchema} differing=${r.differing.length} failed=${r.failed}`,
  );
console.log(
  `(parity.json, differences.jsonl and off-schema.jsonl in ${out}; ${((performance.now() - t0) / 60_000).toFixed(1)} min)`,
);
process.exit(rows.some((r) => r.failed > 0) ? 1 : 0);
