/** Task queues: workflows and CPU activities on `flywheel`, accelerator work on `flywheel-gpu`. Plain constants in
 * the stage contract, which the workflow may import; the workers import them from here too. */
export const CPU_TASK_QUEUE = 'flywheel';
export const GPU_TASK_QUEUE = 'flywheel-gpu';
