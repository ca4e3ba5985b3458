/** Task queues: workflows and CPU activities on `flywheel`, accelerator work on `flywheel-gpu`. Plain constants
 * next to the workflow (which may import only siblings); the workers import them from here. */
export const CPU_TASK_QUEUE = 'flywheel';
export const GPU_TASK_QUEUE = 'flywheel-gpu';
