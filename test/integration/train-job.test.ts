/** The train job contract: one schema file, validated by ajv here and by jsonschema in the Python trainer. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../core/hash.js';
import { normalizeTrainJob, TrainJobError } from '../../core/train/job.js';
import { REPO, tempDir } from '../helpers/fixtures.js';

const MINIMAL = {
  version: 1,
  baseModel: 'tiny:test',
  data: { train: 'train.jsonl', val: 'val.jsonl' },
  outputDir: 'out',
};

/** What the Python trainer makes of a job: exit code and normalized job or errors. */
function python(job: unknown): { code: number; out: string; err: string } {
  const file = join(tempDir(), 'job.json');
  writeFileSync(file, JSON.stringify(job));
  const r = spawnSync(
    join(REPO, '.venv', 'bin', 'python'),
    ['-m', 'flywheel_trainer', 'validate', '--job', file, '--normalize'],
    { cwd: join(REPO, 'trainer'), encoding: 'utf8' },
  );
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('train job contract', () => {
  const jobs = [
    MINIMAL,
    { ...MINIMAL, method: 'qlora', lora: { rank: 64 }, optim: { epochs: 1, maxLength: 2048 } },
    { ...MINIMAL, method: 'full', precision: 'bf16', packing: false, resumeFrom: 'out/checkpoint-200' },
  ];
  for (const [i, job] of jobs.entries()) {
    it(`TypeScript and Python normalize job ${i + 1} identically`, () => {
      const ts = canonicalJson(normalizeTrainJob(job));
      const py = python(job);
      assert.equal(py.code, 0, py.err);
      assert.equal(canonicalJson(JSON.parse(py.out)), ts);
    });
  }

  const bad: Array<[string, unknown, string]> = [
    ['a rank not allowed', { ...MINIMAL, lora: { rank: 12 } }, 'lora.rank'],
    ['an unknown key', { ...MINIMAL, epocs: 3 }, 'epocs: unknown key'],
    ['a missing base model', { version: 1, data: MINIMAL.data, outputDir: 'o' }, "'baseModel' is a required property"],
    ['a bad target module', { ...MINIMAL, lora: { targetModules: ['lm_head'] } }, 'lora.targetModules[0]'],
  ];
  for (const [what, job, expected] of bad) {
    it(`both sides refuse ${what}, naming the field`, () => {
      assert.throws(
        () => normalizeTrainJob(job),
        (e: TrainJobError) => e.problems.some((p) => p.includes(expected)),
      );
      const py = python(job);
      assert.equal(py.code, 2);
      assert.ok(py.err.includes(expected), py.err);
    });
  }
});
