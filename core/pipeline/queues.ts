/** Task queues: workflows and CPU activities on `flywheel`, accelerator work on `flywheel-gpu`. */
export const CPU_TASK_QUEUE = 'flywheel';
export const GPU_TASK_QUEUE = 'flywheel-gpu';
