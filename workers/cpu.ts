import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  Worker,
  type NativeConnection,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { DomainPack } from '../core/dataset/packs.js';
import { SHIPPED_PACKS } from './packs.js';

import { CPU_TASK_QUEUE } from '../workflows/contract/queues.js';

export { CPU_TASK_QUEUE };
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Bundle the workflow code once (webpack), so several workers in one process share it. */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

const noop = (): void => undefined;
const quietBundlerLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: console.warn,
  error: console.error,
  log: noop,
};

/** The `flywheel` queue: all workflows plus the CPU activities. */
export async function createCpuWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue?: string;
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Shown in the history of every task it ran (default: Temporal's pid@host). */
  identity?: string;
  /** Activities it runs at once (default: the SDK's); a chunk's teacher calls are `teacher.concurrency` more each. */
  maxActivities?: number;
  /** Domain packs the dataset stages draw from (default: the sandboxes' packs; workers/packs.ts loads a user's). */
  packs?: readonly DomainPack[];
}): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue ?? CPU_TASK_QUEUE,
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...(opts.maxActivities ? { maxConcurrentActivityTaskExecutions: opts.maxActivities } : {}),
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: {} }),
    activities: createActivities({ packs: opts.packs ?? SHIPPED_PACKS }),
    shutdownGraceTime: '10 seconds',
  });
}
