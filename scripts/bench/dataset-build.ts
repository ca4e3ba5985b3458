/**
 * Build the study's corpus size (~28K rows) with the template teacher, three ways in one run:
 *   - in memory: the core/ dataset functions called directly, rows kept in memory, only the final rendered
 *     train/val/test files written
 *   - in one process: the same stage activities (same core/ code, same artifact reads and writes) called
 *     one after another without Temporal (MockActivityEnvironment gives them an activity context)
 *   - through Temporal: flywheelRun on a real dev server (the project's temporal binary) with a worker
 * and report rows/s per stage and the ratios: Temporal vs in one process is the orchestration overhead;
 * in one process vs in memory is what persisting every stage's artifacts costs.
 *
 *   node --import tsx scripts/bench/dataset-build.ts [--per-goal 410]
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import * as activities from '../../activities/index.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { loadConfigFile } from '../../core/config/load.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { augmentRows, buildIntents, validateCandidates } from '../../core/dataset/pipeline.js';
import { renderRow } from '../../core/dataset/render.js';
import { balanceTrain, splitByEntity } from '../../core/dataset/split.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { connectServer, type McpConnection } from '../../core/mcp/connect.js';
import { discoverPools } from '../../core/probe/discover.js';
import { callModeFor } from '../../core/probe/call-mode.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';
import { bundleWorkflows, createCpuWorker } from '../../workers/cpu.js';
import { closeAllConnections } from '../../activities/connections.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import { REPO, tempDir, TEMPORAL_BIN } from '../../test/helpers/fixtures.js';
import { runStatus, startRun } from '../lib/runs.js';

const { values } = parseArgs({ options: { 'per-goal': { type: 'string', default: '410' } } });
const example = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
const config = { ...example, name: 'bench', artifacts: { ...example.artifacts, store: `file://${tempDir()}` }, dataset: { ...example.dataset!, perGoal: Number(values['per-goal']) } };
const dataset = config.dataset;
const secs = (t0: number) => (performance.now() - t0) / 1000;

// ---- in one process ----
// The dev server and worker exist for all three measurements, so each runs beside the same background load.
Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, searchAttributes: SEARCH_ATTRIBUTES } });
const worker = await createCpuWorker({ connection: env.nativeConnection, namespace: 'default', workflowBundle: await bundleWorkflows() });

const inProcess: Record<string, number> = {};
let t = performance.now();
const tAll = t;
const catalog = buildCatalog(config.name, await Promise.all(config.servers.map((s) => listServerTools(s, { maxPages: 100 }))));
inProcess.ingest = secs(t);
// Connecting to the sandboxes is part of the intents stage in both modes.
t = performance.now();
const conns = new Map<string, McpConnection>();
for (const s of config.servers) conns.set(s.name, await connectServer(s));
const pools = await discoverPools(conns, config.servers, catalog, DOMAIN_PACKS, dataset.seed);
const { intents } = await buildIntents(catalog, dataset, pools, DOMAIN_PACKS);
inProcess.intents = secs(t);
t = performance.now();
const teacher = templateTeacher(dataset.seed);
const drafts = await teacher.generate(intents);
inProcess.generate = secs(t);
t = performance.now();
const candidates = await teacher.solve(intents, drafts);
inProcess.solve = secs(t);
t = performance.now();
const validator = new CallValidator(catalog, mcpDryRunner(conns, config.servers));
const { rows } = await validateCandidates(intents, candidates, catalog, validator, dataset);
inProcess.validate = secs(t);
t = performance.now();
const { rows: augmented } = await augmentRows(rows, catalog, validator, dataset, pools, DOMAIN_PACKS, (tool) => callModeFor(config.servers)(tool).mode !== 'schema');
inProcess.corrupt = secs(t);
t = performance.now();
const s = splitByEntity(augmented, dataset.split, dataset.seed);
const train = balanceTrain(s.train, { minPerTool: dataset.minPerTool, negativeShare: dataset.negativeShare });
inProcess.split = secs(t);
t = performance.now();
// The baseline still writes the final rendered files: that is the pipeline's product either way.
const tools = new Map(catalog.tools.map((x) => [x.id, x]));
const outDir = tempDir();
for (const [name, part] of [['train', train], ['val', s.val], ['test', s.test]] as const) {
  await writeFile(join(outDir, `${name}.jsonl`), part.map((r) => `${JSON.stringify(renderRow(r, tools, dataset.render.format))}\n`).join(''));
}
inProcess.render = secs(t);
const inProcessTotal = secs(tAll);
for (const c of conns.values()) await c.close();

// ---- the same activities in one process, no Temporal ----
const mock = new MockActivityEnvironment();
/** Run one activity function in an activity context, keeping its types. */
const act = <A, R>(fn: (a: A) => Promise<R>, a: A): Promise<R> => mock.run(fn as never, a as never) as Promise<R>;
const direct: Record<string, number> = {};
const dconfig = { ...config, artifacts: { ...config.artifacts, store: `file://${tempDir()}` } };
const dcommon = { store: dconfig.artifacts, runId: 'bench', dataset };
const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await fn();
  direct[name] = secs(t0);
  return r;
};
const tDirect = performance.now();
const snaps: ArtifactRef[] = await Promise.all(dconfig.servers.map((server) => act(activities.listServerTools, { store: dconfig.artifacts, server, maxPages: 100 })));
const cat = (await act(activities.buildCatalog, { store: dconfig.artifacts, project: dconfig.name, catalog: dconfig.catalog, snapshots: snaps, runId: 'bench' })).outputs.catalog;
direct.ingest = secs(tDirect);
const int = await timed('intents', () => act(activities.intentsStage, { ...dcommon, catalog: cat, servers: dconfig.servers }));
const gen = await timed('generate', () => act(activities.generateStage, { ...dcommon, intents: int.outputs.intents! }));
const sol = await timed('solve', () => act(activities.solveStage, { ...dcommon, catalog: cat, intents: int.outputs.intents!, requests: gen.outputs.requests! }));
const val = await timed('validate', () => act(activities.validateStage, { ...dcommon, catalog: cat, intents: int.outputs.intents!, candidates: sol.outputs.candidates!, servers: dconfig.servers }));
const cor = await timed('corrupt', () => act(activities.corruptStage, { ...dcommon, catalog: cat, validated: val.outputs.validated!, pools: int.outputs.pools!, servers: dconfig.servers }));
const spl = await timed('split', () => act(activities.splitStage, { ...dcommon, project: dconfig.name, catalog: cat, augmented: cor.outputs.augmented! }));
await timed('render', () => act(activities.renderStage, { ...dcommon, catalog: cat, train: spl.outputs.train!, val: spl.outputs.val!, test: spl.outputs.test! }));
const directTotal = secs(tDirect);
await closeAllConnections();

// ---- through Temporal ----
const orchestrated = await worker.runUntil(async () => {
  const t0 = performance.now();
  const { handle } = await startRun(env.client, config, { config, trigger: 'bench' });
  await handle.result();
  return { total: secs(t0), status: await runStatus(handle) };
});
await closeAllConnections();
await env.teardown();

const stageSecs = Object.fromEntries(orchestrated.status.stages.map((st) => [st.name, (Date.parse(st.finishedAt!) - Date.parse(st.startedAt!)) / 1000]));
const augmentedCount = augmented.length;
console.log(`rows: ${intents.length} intents -> ${rows.length} valid -> ${augmentedCount} with negatives -> train ${train.length} / val ${s.val.length} / test ${s.test.length}`);
console.log('stage       in memory s  rows/s   one process s  rows/s   Temporal s  rows/s');
for (const name of Object.keys(inProcess)) {
  const n = name === 'ingest' ? catalog.tools.length : name === 'corrupt' || name === 'split' || name === 'render' ? augmentedCount : intents.length;
  const cell = (x: number | undefined) => `${(x ?? 0).toFixed(2).padStart(11)}  ${(n / (x || 1e-9)).toFixed(0).padStart(7)}`;
  console.log(`${name.padEnd(10)}${cell(inProcess[name])}  ${cell(direct[name])}  ${cell(stageSecs[name])}`);
}
console.log(`total: in memory ${inProcessTotal.toFixed(1)} s, same activities in one process ${directTotal.toFixed(1)} s, through Temporal ${orchestrated.total.toFixed(1)} s`);
console.log(`orchestration overhead (Temporal vs one process): ${(((orchestrated.total / directTotal) - 1) * 100).toFixed(0)}%`);
console.log(`artifact persistence (one process vs in memory): ${(((directTotal / inProcessTotal) - 1) * 100).toFixed(0)}%; Temporal vs in memory: ${(orchestrated.total / inProcessTotal).toFixed(2)}x`);
