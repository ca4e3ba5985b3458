/**
 * What Temporal orchestration costs per stage, measured on a real dev server (the project's own
 * temporal binary) in one run:
 *   - empty stage:   mean added time of one more no-op activity in a workflow
 *   - empty run:     start-to-finish of a workflow with one empty stage (start, schedule, complete)
 *   - ingest stage:  flywheelRun on the fixture MCP server vs calling the same core/ functions in-process
 *
 *   node --import tsx scripts/bench/stage-overhead.ts [--runs N]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { openStore } from '../../core/artifacts/index.js';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { parseConfig } from '../../core/config/load.js';
import { bundleWorkflows, createCpuWorker } from '../../workers/cpu.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract/search-attributes.js';
import { startRun } from '../lib/runs.js';
import { fixtureStdio, tempDir, TEMPORAL_BIN } from '../../test/helpers/fixtures.js';
import * as benchActivities from './bench-activities.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const RUNS = Number(values.runs);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, searchAttributes: SEARCH_ATTRIBUTES },
});
const benchWorker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue: 'bench',
  workflowsPath: fileURLToPath(new URL('./bench-workflows.ts', import.meta.url)),
  activities: benchActivities,
});
const flywheelWorker = await createCpuWorker({
  connection: env.nativeConnection,
  namespace: 'default',
  workflowBundle: await bundleWorkflows(),
});

await benchWorker.runUntil(
  flywheelWorker.runUntil(async () => {
    const timeRun = async (n: number, i: number): Promise<number> => {
      const t0 = process.hrtime.bigint();
      await env.client.workflow.execute('emptyStages', {
        taskQueue: 'bench',
        workflowId: `bench-${n}-${i}-${Date.now()}`,
        args: [n],
      });
      return ms(t0);
    };
    await timeRun(1, -1); // warm-up
    const one: number[] = [];
    const twenty: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      one.push(await timeRun(1, i));
      twenty.push(await timeRun(21, i));
    }
    const perStage = (median(twenty) - median(one)) / 20;

    const direct: number[] = [];
    const orchestrated: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      const cfg = parseConfig({
        version: 1,
        name: `bench-${i}`,
        artifacts: { store: `file://${tempDir()}` },
        servers: [fixtureStdio('crm', ['--tools', '20', '--page-size', '5'])],
      });
      let t0 = process.hrtime.bigint();
      const snap = await listServerTools(cfg.servers[0]!, { maxPages: 100 });
      const store = openStore(cfg.artifacts.store);
      const snapRef = await store.putJson('server-tools', snap);
      await store.putJson('catalog', buildCatalog(cfg.name, [(await store.readJson(snapRef)) as typeof snap]));
      direct.push(ms(t0));
      t0 = process.hrtime.bigint();
      const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'bench' });
      await handle.result();
      orchestrated.push(ms(t0));
    }
    console.log(`runs per measurement: ${RUNS}`);
    console.log(`empty run (1 empty stage), start to finish: median ${median(one).toFixed(1)} ms`);
    console.log(`each additional empty stage:              ${perStage.toFixed(1)} ms`);
    console.log(
      `ingest (1 stdio server, 20 tools, 4 pages): in-process ${median(direct).toFixed(0)} ms, flywheelRun ${median(orchestrated).toFixed(0)} ms, ratio ${(median(orchestrated) / median(direct)).toFixed(2)}x`,
    );
  }),
);
await env.teardown();
