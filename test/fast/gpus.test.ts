/** How many GPUs a GPU worker says it has (core/train/gpus.ts). `nvidia-smi -L` cannot run here: its output is given as text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { visibleGpus } from '../../core/train/gpus.js';
import { InputError } from '../../core/errors.js';

const twoGpus = () => 'GPU 0: NVIDIA H200 (UUID: GPU-1)\nGPU 1: NVIDIA H200 (UUID: GPU-2)\n';
const noNvidiaSmi = () => {
  throw new Error('spawn nvidia-smi ENOENT');
};

describe('visible GPUs', () => {
  it('FLYWHEEL_GPUS wins, then CUDA_VISIBLE_DEVICES, then nvidia-smi; none of them is 0', () => {
    assert.equal(visibleGpus({ FLYWHEEL_GPUS: '4', CUDA_VISIBLE_DEVICES: '0' }, twoGpus), 4);
    assert.equal(visibleGpus({ CUDA_VISIBLE_DEVICES: '0,3,5' }, twoGpus), 3);
    assert.equal(visibleGpus({ CUDA_VISIBLE_DEVICES: '' }, twoGpus), 0);
    assert.equal(visibleGpus({ CUDA_VISIBLE_DEVICES: '-1' }, twoGpus), 0);
    assert.equal(visibleGpus({}, twoGpus), 2);
    assert.equal(visibleGpus({}, noNvidiaSmi), 0);
  });

  it('a FLYWHEEL_GPUS that is not a whole number is an error naming it', () => {
    assert.throws(
      () => visibleGpus({ FLYWHEEL_GPUS: 'two' }),
      (e: Error) => e instanceof InputError && /FLYWHEEL_GPUS/.test(e.message),
    );
  });
});
