import { Worker, type NativeConnection } from '@temporalio/worker';
import * as gpuActivities from '../activities/gpu.js';

import { GPU_TASK_QUEUE } from '../workflows/queues.js';

export { GPU_TASK_QUEUE };

/**
 * A GPU worker runs activities only (workflows stay on the CPU queue). One training at a time per worker:
 * a worker owns one accelerator; scale out with more workers (one per GPU or per node).
 */
export async function createGpuWorker(opts: { connection: NativeConnection; namespace: string; taskQueue?: string; maxConcurrent?: number }): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue ?? GPU_TASK_QUEUE,
    activities: gpuActivities,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrent ?? 1,
    // A SIGTERM (node drain, rollout) cancels the training; its process group is killed and the retry resumes
    // from the last uploaded checkpoint on another worker.
    shutdownGraceTime: '30 seconds',
  });
}
