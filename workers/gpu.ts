/** The `flywheel-gpu` queue: train, evaluate and serve activities. None exist yet (the trainer issue adds them). */
export const GPU_TASK_QUEUE = 'flywheel-gpu';

export const gpuActivities: Record<string, (...args: never[]) => Promise<unknown>> = {};
