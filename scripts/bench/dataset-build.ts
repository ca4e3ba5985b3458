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
import { createActivities } from '../../activities/index.js';
import { SHIPPED_PACKS } from '../../workers/packs.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfigFile } from '../../core/config/load.js';
import { bundleWorkflows, createCpuWorker } from '../../workers/cpu.js';
import { closeAllConnections } from '../../activities/connections.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract/search-attributes.js';
import { appliesTo, stageArgs, STAGES, type StageName } from '../../workflows/contract/table.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { REPO, tempDir, TEMPORAL_BIN } from '../../test/helpers/fixtures.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { buildDataset } from '../lib/build-dataset.js';
import { renderRows } from '../../core/dataset/render.js';
import { runStatus, startRun } from '../lib/runs.js';

const { values } = parseArgs({ options: { 'per-goal': { type: 'string', default: '410' } } });
// The dataset stages only: without its release sections the run ends after render instead of waiting for a
// GPU-queue worker this bench does not start.
const {
  train: _train,
  evaluate: _evaluate,
  gate: _gate,
  deploy: _deploy,
  ...example
} = await loadConfigFile(join(REPO, DEFAULT_CONFIG));
const config = {
  ...example,
  name: 'bench',
  artifacts: { ...example.artifacts, store: `file://${tempDir()}` },
  dataset: { ...example.dataset!, perGoal: Number(values['per-goal']) },
};
const dataset = config.dataset;
const secs = (t0: number) => (performance.now() - t0) / 1000;

// ---- in one process ----
// The dev server and worker exist for all three measurements, so each runs beside the same background load.
Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, searchAttributes: SEARCH_ATTRIBUTES },
});
const worker = await createCpuWorker({
  connection: env.nativeConnection,
  namespace: 'default',
  workflowBundle: await bundleWorkflows(),
});

const tAll = performance.now();
const built = await buildDataset(config);
const inProcess: Record<string, number> = { ...built.seconds };
const t = performance.now();
// The baseline still writes the final rendered files: that is the pipeline's product either way.
const outDir = tempDir();
for (const [name, part] of Object.entries(built.rows)) {
  await writeFile(
    join(outDir, `${name}.jsonl`),
    renderRows(part, built.catalog, dataset.render.format)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
}
inProcess.render = secs(t);
const inProcessTotal = secs(tAll);

// ---- the same activities in one process, no Temporal ----
const mock = new MockActivityEnvironment();
const activities = createActivities({ packs: SHIPPED_PACKS });
/** Run one activity function in an activity context, keeping its types. */
const act = <A, R>(fn: (a: A) => Promise<R>, a: A): Promise<R> => mock.run(fn as never, a as never) as Promise<R>;
const direct: Record<string, number> = {};
const dconfig = { ...config, artifacts: { ...config.artifacts, store: `file://${tempDir()}` } };
const outputs = new Map<StageName, Record<string, ArtifactRef>>();
const tDirect = performance.now();
const snaps: ArtifactRef[] = await Promise.all(
  dconfig.servers.map((server) => act(activities.listServerTools, { store: dconfig.artifacts, server, maxPages: 100 })),
);
outputs.set(
  'ingest',
  (
    await act(activities.ingest, {
      ...stageArgs('ingest', dconfig, 'bench', () => undefined),
      snapshots: snaps,
    } as never)
  ).outputs,
);
direct.ingest = secs(tDirect);
// Every other stage this config lists, called as the workflow calls it: with the arguments its table entry names.
for (const spec of STAGES.filter((st) => st.name !== 'ingest' && st.activity && appliesTo(st.name, dconfig))) {
  const t0 = performance.now();
  const fn = (activities as unknown as Record<string, (a: unknown) => Promise<StageOutcome>>)[spec.name]!;
  outputs.set(
    spec.name,
    (
      await act(
        fn,
        stageArgs(spec.name, dconfig, 'bench', (stage) => outputs.get(stage)),
      )
    ).outputs,
  );
  direct[spec.name] = secs(t0);
}
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

const stageSecs = Object.fromEntries(
  orchestrated.status.stages.map((st) => [st.name, (Date.parse(st.finishedAt!) - Date.parse(st.startedAt!)) / 1000]),
);
const augmentedCount = built.counts.augmented;
console.log(
  `rows: ${built.counts.intents} intents -> ${built.counts.valid} valid -> ${built.counts.augmented} with negatives -> train ${built.rows.train.length} / val ${built.rows.val.length} / test ${built.rows.test.length}`,
);
console.log('stage       in memory s  rows/s   one process s  rows/s   Temporal s  rows/s');
// The table's catalog and dataset stages (traces and watermark do not run here: no traces, no retrain policy).
for (const name of STAGES.filter((st) => st.group === 'catalog' || st.group === 'dataset')
  .map((st) => st.name)
  .filter((n) => n in inProcess)) {
  const n =
    name === 'ingest'
      ? built.catalog.tools.length
      : name === 'corrupt' || name === 'split' || name === 'render'
        ? augmentedCount
        : built.counts.intents;
  const cell = (x: number | undefined) =>
    `${(x ?? 0).toFixed(2).padStart(11)}  ${(n / (x || 1e-9)).toFixed(0).padStart(7)}`;
  console.log(`${name.padEnd(10)}${cell(inProcess[name])}  ${cell(direct[name])}  ${cell(stageSecs[name])}`);
}
console.log(
  `total: in memory ${inProcessTotal.toFixed(1)} s, same activities in one process ${directTotal.toFixed(1)} s, through Temporal ${orchestrated.total.toFixed(1)} s`,
);
console.log(
  `orchestration overhead (Temporal vs one process): ${((orchestrated.total / directTotal - 1) * 100).toFixed(0)}%`,
);
console.log(
  `artifact persistence (one process vs in memory): ${((directTotal / inProcessTotal - 1) * 100).toFixed(0)}%; Temporal vs in memory: ${(orchestrated.total / inProcessTotal).toFixed(2)}x`,
);
