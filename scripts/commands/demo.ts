import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { openStore } from '../../core/artifacts/index.js';
import type { CatalogDiff } from '../../core/catalog/types.js';
import { loadConfigFile } from '../../core/config/load.js';
import { connectClient } from '../../workers/connection.js';
import { addMissingSearchAttributes } from '../../workers/preflight.js';
import { parse, type Command } from '../lib/args.js';
import { REF_HEADERS, refRow, table } from '../lib/output.js';
import { DEFAULT_CONFIG, REPO_ROOT, temporalCli } from '../lib/paths.js';
import { spawnLogged, stopProcess, waitFor } from '../lib/processes.js';
import { connect, rootMessage, runStatus, startRun } from '../lib/runs.js';
import { watchRun } from '../lib/watch.js';
import { datasetReport } from '../lib/dataset-report.js';
import { trainReport } from '../lib/train-report.js';
import { evalReport, gatewayTour } from '../lib/release-report.js';
import { devServerArgs, devServerSettings } from './dev-server.js';
import { DEFAULT_GPU_WORKDIR } from '../../core/defaults.js';
import { CPU_TASK_QUEUE, GPU_TASK_QUEUE } from '../../workflows/contract/queues.js';
import { DEFAULT_TEMPORAL_ADDRESS } from '../../core/temporal-env.js';

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** A history file from an older flywheel lacks newer search attributes: add them (our dev server only). */
async function upgradeDevServer(): Promise<void> {
  const { connection, namespace } = await connectClient(5000);
  try {
    const added = await addMissingSearchAttributes(connection, namespace);
    if (added.length) console.error(`added search attributes ${added.join(', ')} to the dev server's history file`);
  } finally {
    await connection.close();
  }
}

async function temporalAnswers(timeoutMs: number): Promise<boolean> {
  try {
    const { connection } = await connectClient(timeoutMs);
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the whole flywheel on the embedded default and print where to look',
  usage: `flywheel demo [--config FILE] [--keep-server]

1. starts the Temporal dev server unless one answers at TEMPORAL_ADDRESS (default ${DEFAULT_TEMPORAL_ADDRESS})
2. starts a worker for the "${CPU_TASK_QUEUE}" queue (log: .flywheel/logs/worker.log), and one for "${GPU_TASK_QUEUE}" when the
   config has a train section (log: .flywheel/logs/gpu-worker.log; on a machine without a GPU it trains on CPU)
3. runs flywheelRun on ${DEFAULT_CONFIG} with live stage progress
   and, when the config deploys to the local target, the local serving backend (log: .flywheel/logs/serve.log)
4. prints the run id, the Temporal UI link, a summary of the artifacts and dataset, the adapter's loss curve,
   the eval table with the gate's decision and the HTML report's path, and sends a few test prompts through
   the router gateway (decisions logged as traces under gateway.tracesDir)
It stops only what it started. --keep-server leaves a dev server it started running so the UI link works;
otherwise "make dev-server" brings the UI back later with the same history (${devServerSettings().dbFilename}).`,
  async run(argv) {
    const { values } = parse(argv, {
      config: { type: 'string', default: DEFAULT_CONFIG },
      'keep-server': { type: 'boolean', default: false },
    });
    const config = await loadConfigFile(values.config);
    const logs = join(REPO_ROOT, '.flywheel', 'logs');
    let server: ChildProcess | undefined;
    let worker: ChildProcess | undefined;
    let gpuWorker: ChildProcess | undefined;
    let backend: ChildProcess | undefined;
    try {
      if (await temporalAnswers(2000)) {
        console.error(`using the Temporal server at ${process.env.TEMPORAL_ADDRESS || DEFAULT_TEMPORAL_ADDRESS}`);
      } else {
        console.error('starting the Temporal dev server (log: .flywheel/logs/dev-server.log)');
        server = spawnLogged(temporalCli(), devServerArgs(devServerSettings()), join(logs, 'dev-server.log'));
        await waitFor(
          'Temporal dev server',
          async () => ((await temporalAnswers(1000)) ? true : undefined),
          60_000,
          server,
        );
        await upgradeDevServer();
      }
      console.error('starting a worker (log: .flywheel/logs/worker.log)');
      worker = spawnLogged(
        process.execPath,
        [join(REPO_ROOT, 'bin', 'flywheel.js'), 'worker'],
        join(logs, 'worker.log'),
      );
      if (config.train) {
        console.error(
          `starting a GPU-queue worker (log: .flywheel/logs/gpu-worker.log; trainer stderr under ${DEFAULT_GPU_WORKDIR} while it runs)`,
        );
        gpuWorker = spawnLogged(
          process.execPath,
          [join(REPO_ROOT, 'bin', 'flywheel.js'), 'worker', '--queue', GPU_TASK_QUEUE],
          join(logs, 'gpu-worker.log'),
        );
      }

      if (config.deploy?.target === 'local' && !(await answers(`${config.deploy.endpoint}/models`))) {
        const port = new URL(config.deploy.endpoint).port || '80';
        console.error(`starting the local serving backend on port ${port} (log: .flywheel/logs/serve.log)`);
        backend = spawnLogged(
          process.execPath,
          [join(REPO_ROOT, 'bin', 'flywheel.js'), 'serve', '--port', port],
          join(logs, 'serve.log'),
        );
        await waitFor(
          'local serving backend',
          async () => ((await answers(`${config.deploy!.endpoint}/models`)) ? true : undefined),
          120_000,
          backend,
        );
      }

      const client = await connect();
      try {
        const started = await startRun(client, config, { config, trigger: 'demo' });
        console.error(`run ${started.runId} ${started.created ? 'started' : '(already in progress)'}`);
        let failed: string | undefined;
        await watchRun(started.handle).catch((err) => {
          failed = rootMessage(err);
        });
        const status = await runStatus(started.handle);
        const store = openStore(config.artifacts.store, config.artifacts.s3);
        console.log(`\nrun id:      ${status.runId}`);
        console.log(`workflow id: ${status.workflowId}`);
        console.log(`state:       ${status.state}${failed ? ` — ${failed}` : ''}`);
        console.log(`Temporal UI: ${status.uiLink}`);
        const rows = status.stages.flatMap((s) =>
          Object.entries(s.outputs).map(([n, r]) => refRow(`${s.name}.${n}`, r)),
        );
        if (rows.length) console.log(`\nartifacts (${config.artifacts.store}):\n${table(REF_HEADERS, rows)}`);
        const ingest = status.stages.find((s) => s.name === 'ingest');
        if (ingest?.outputs.catalog && ingest.outputs.catalogDiff) {
          const stats = (await store.manifest(ingest.outputs.catalog.sha256)).stats as {
            toolsByServer: Record<string, number>;
            quarantined: number;
          };
          const diff = await store.readJson<CatalogDiff>(ingest.outputs.catalogDiff);
          console.log(
            `\ncatalog ${diff.to}: ${Object.entries(stats.toolsByServer)
              .map(([s, n]) => `${s} ${n} tools`)
              .join(', ')}; ${stats.quarantined} quarantined`,
          );
          console.log(
            `changes since ${diff.from ?? '(first version)'}: +${diff.added.length} -${diff.removed.length} ~${diff.changed.length}`,
          );
        }
        const report = await datasetReport(store, status, { coverage: 'gaps' });
        if (report) console.log(`\ndataset:\n${report}`);
        const trained = await trainReport(store, status);
        if (trained) console.log(`\nadapter:\n${trained}`);
        const evaluated = await evalReport(store, status);
        if (evaluated)
          console.log(
            `\nevaluation (${config.evaluate?.limit ? `a stratified sample of ${config.evaluate.limit} test cases` : 'frozen test set'}; before the first deploy, production is the base model):\n${evaluated}`,
          );
        const deployed = status.stages.find((s) => s.name === 'deploy');
        if (deployed?.detail) console.log(`\ndeploy: ${deployed.state} — ${deployed.detail}`);
        const tour = await gatewayTour(store, status, config);
        if (tour) console.log(`\nthrough the router gateway:\n${tour}`);
        if (config.deploy)
          console.log(
            `versions: flywheel versions --alias ${config.deploy.alias}   |   rollback: flywheel rollback --alias ${config.deploy.alias} --reason "…"`,
          );
        const adapter = status.stages.find((st) => st.name === 'train')?.outputs.adapter;
        if (adapter) {
          const version =
            ((await store.manifest(adapter.sha256)).stats as { adapterVersion?: string }).adapterVersion ??
            adapter.sha256.slice(0, 12);
          console.log(
            `lineage: flywheel lineage ${version}   |   publish: flywheel publish adapter ${version} --dry-run --out /tmp/${version}-card   |   retention: flywheel gc --config ${values.config} --keep-last 3 --dry-run (with "make dev-server" up)`,
          );
        }
        console.log(
          `\nmore: flywheel status ${status.runId}   |   flywheel artifacts ls   |   flywheel artifacts cat <sha>`,
        );
        if (server && !values['keep-server'])
          console.log(
            'the dev server this demo started is stopped now; "make dev-server" brings the UI back with this history',
          );
        return failed ? 1 : 0;
      } finally {
        await client.connection.close();
      }
    } finally {
      if (backend) await stopProcess(backend);
      if (worker) await stopProcess(worker);
      if (gpuWorker) await stopProcess(gpuWorker);
      if (server && !values['keep-server']) await stopProcess(server);
      else if (server) console.error(`dev server left running (pid ${server.pid}); stop it with: kill ${server.pid}`);
    }
  },
};
