import { hostname } from 'node:os';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { gpuActivities } from '../activities/gpu.js';
import { visibleGpus } from '../core/train/gpus.js';

import { GPU_TASK_QUEUE } from '../workflows/contract/queues.js';

export { GPU_TASK_QUEUE };

/** The identity a GPU worker polls with: the SDK's `pid@host`, plus the GPUs it can give a training. */
export function gpuWorkerIdentity(gpus: number): string {
  return `${process.pid}@${hostname()} gpus=${gpus}`;
}

/**
 * A GPU worker runs activities only (workflows stay on the CPU queue). One training at a time per worker: the
 * training gets every GPU the worker has (a job asks for them with resources.gpus; the trainer then runs data-parallel).
 * The worker's identity says how many it has, so the Temporal UI's pollers list shows each worker's size.
 */
export async function createGpuWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue?: string;
  maxConcurrent?: number;
  gpus?: number;
}): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    identity: gpuWorkerIdentity(opts.gpus ?? visibleGpus()),
    taskQueue: opts.taskQueue ?? GPU_TASK_QUEUE,
    activities: gpuActivities,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrent ?? 1,
    // A SIGTERM (node drain, rollout) cancels the training; its process group is killed and the retry resumes
    // from the last uploaded checkpoint on another worker.
    shutdownGraceTime: '30 seconds',
  });
}
