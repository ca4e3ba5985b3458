import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, type WorkflowBundleWithSourceMap, type Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../workflows/contract/search-attributes.js';
import { bundleWorkflows, createCpuWorker } from '../../workers/cpu.js';
import { devServerSettings } from '../../scripts/commands/dev-server.js';
import { TEMPORAL_BIN } from './fixtures.js';
import { closeAllConnections } from '../../activities/connections.js';
import type { RunProgress } from '../../core/pipeline/types.js';
import { runStatus } from '../../scripts/lib/runs.js';
import { createGpuWorker } from '../../workers/gpu.js';

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
export async function startWorker(
  env: TestWorkflowEnvironment,
  taskQueue = 'flywheel',
  identity?: string,
): Promise<{ worker: Worker; running: Promise<void> }> {
  bundle ??= bundleWorkflows();
  const worker = await createCpuWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await bundle,
    ...(identity ? { identity } : {}),
  });
  // Pooled MCP connections (sandbox processes) close with the worker.
  return { worker, running: worker.run().finally(() => closeAllConnections()) };
}

export interface Flywheel {
  env: TestWorkflowEnvironment;
  stop(): Promise<void>;
}

/** A dev server with in-process workers for both task queues (the flywheel-gpu one trains on CPU here). */
export async function startFlywheel(): Promise<Flywheel> {
  const env = await startTemporal();
  const cpu = await startWorker(env);
  const gpu = await createGpuWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default' });
  const gpuRunning = gpu.run();
  return {
    env,
    stop: async () => {
      gpu.shutdown();
      cpu.worker.shutdown();
      await Promise.all([gpuRunning, cpu.running]);
      await env.teardown();
    },
  };
}

/** A run's result; a failure carries every stage's state and detail, so a CI log says where it broke. */
export async function runResult(handle: WorkflowHandle): Promise<RunProgress> {
  try {
    return (await handle.result()) as RunProgress;
  } catch (err) {
    const status = await runStatus(handle);
    throw new Error(
      `${(err as Error).message}: ${status.error}\n${status.stages.map((s) => `${s.name} ${s.state} ${s.detail}`).join('\n')}`,
    );
  }
}
