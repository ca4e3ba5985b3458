/**
 * scripts/bench/gpu-check.sh needs a CUDA GPU for its checks; here (no GPU) only that it parses and that, without
 * `nvidia-smi`, it says so and succeeds: nothing may depend on a GPU.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

const SCRIPT = join(REPO, 'scripts', 'bench', 'gpu-check.sh');

describe('gpu-check.sh', () => {
  it('parses, and without a GPU says it skipped and exits 0', () => {
    execFileSync('bash', ['-n', SCRIPT]);
    const out = execFileSync('bash', [SCRIPT], { env: { ...process.env, NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
    assert.match(out.toString(), /^gpu-check: skipped, no CUDA GPU here/);
  });
});
