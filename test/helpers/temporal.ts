import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, type WorkflowBundleWithSourceMap, type Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';
import { bundleWorkflows, createCpuWorker } from '../../workers/cpu.js';
import { devServerSettings } from '../../scripts/commands/dev-server.js';
import { TEMPORAL_BIN } from './fixtures.js';
import { closeAllConnections } from '../../activities/connections.js';

let runtimeInstalled = false;

/** A real Temporal dev server from the project's own binary (.venv/bin/temporal), with our search attributes. */
export async function startTemporal(): Promise<TestWorkflowEnvironment> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const dyn = devServerSettings().dynamicConfig;
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: TEMPORAL_BIN },
      searchAttributes: SEARCH_ATTRIBUTES,
      extraArgs: Object.entries(dyn).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]),
    },
  });
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** An in-process worker for the flywheel queue; the workflow bundle is built once per test file. */
export async function startWorker(env: TestWorkflowEnvironment, taskQueue = 'flywheel'): Promise<{ worker: Worker; running: Promise<void> }> {
  bundle ??= bundleWorkflows();
  const worker = await createCpuWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowBundle: await bundle });
  // Pooled MCP connections (sandbox processes) close with the worker.
  return { worker, running: worker.run().finally(() => closeAllConnections()) };
}
