import { execFileSync } from 'node:child_process';
import { InputError } from '../errors.js';

/**
 * How many GPUs this worker can give a training: $FLYWHEEL_GPUS when set (an operator's word), else the devices
 * CUDA_VISIBLE_DEVICES names, else what `nvidia-smi -L` lists; 0 without a GPU or without nvidia-smi.
 * A GPU worker says it in its identity and start line; the trainer refuses a job asking for more (resources.gpus).
 */
export function visibleGpus(env: NodeJS.ProcessEnv = process.env, listGpus: () => string = nvidiaSmiList): number {
  if (env.FLYWHEEL_GPUS !== undefined) {
    const n = Number(env.FLYWHEEL_GPUS);
    if (!Number.isInteger(n) || n < 0)
      throw new InputError(`FLYWHEEL_GPUS: expected a whole number of GPUs, got "${env.FLYWHEEL_GPUS}"`);
    return n;
  }
  const visible = env.CUDA_VISIBLE_DEVICES;
  if (visible !== undefined)
    return visible.trim() === '' || visible.trim() === '-1'
      ? 0
      : visible.split(',').filter((d) => d.trim() !== '').length;
  try {
    return listGpus()
      .split('\n')
      .filter((l) => l.startsWith('GPU ')).length;
  } catch {
    return 0;
  }
}

function nvidiaSmiList(): string {
  return execFileSync('nvidia-smi', ['-L'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
}
