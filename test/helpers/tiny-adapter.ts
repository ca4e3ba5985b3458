import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RenderedRow } from '../../core/dataset/render.js';
import { startTrainer, TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';

export interface TinyAdapter {
  /** The LoRA directory (adapter_config.json, weights, flywheel.json; its tiny base sits in ../base). */
  adapter: string;
  /** The synthetic validation rows, in the rendered format. */
  val: RenderedRow[];
}

/**
 * Train a tiny LoRA adapter on trainer/tests/synthetic.py's rows (seconds on CPU). Each seed gives other rows, so
 * with a `tiny:` base another tokenizer and another tiny base (in `../base` of the adapter); `base` may also be a
 * base directory to train on (vLLM serves one base: its CPU attention wants heads of 32 or more, tiny:micro).
 */
export async function trainTinyAdapter(dir: string, seed = 0, steps = 30, base = 'tiny:nano'): Promise<TinyAdapter> {
  execFileSync(trainerPython(), [join(TRAINER_ROOT, 'tests', 'synthetic.py'), dir, String(seed)]);
  const job = {
    version: 1,
    baseModel: base,
    data: { train: join(dir, 'train.jsonl'), val: join(dir, 'val.jsonl') },
    outputDir: join(dir, 'out'),
    optim: { epochs: 5, maxSteps: steps, effectiveBatchSize: 8, microBatchSize: 8, learningRate: 0.005 },
    checkpointEvery: steps,
  };
  writeFileSync(join(dir, 'job.json'), JSON.stringify(job));
  const exit = await startTrainer(['train', '--job', join(dir, 'job.json')], {
    stderrFile: join(dir, 'train.log'),
    onEvent: () => undefined,
  }).done;
  assert.equal(exit.code, 0, exit.stderrTail);
  return {
    adapter: join(dir, 'out', 'adapter'),
    val: readFileSync(job.data.val, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RenderedRow),
  };
}

/** A copy of an adapter whose LoRA B matrices are zero: it loads fine and changes nothing. */
export function zeroedAdapter(adapter: string, dest: string): string {
  execFileSync('cp', ['-r', join(adapter, '..'), dest]);
  const weights = join(dest, 'adapter', 'adapter_model.safetensors');
  execFileSync(trainerPython(), [
    '-c',
    `from safetensors.torch import load_file, save_file; p=${JSON.stringify(weights)}; d=load_file(p); save_file({k: (v * 0 if "lora_B" in k else v) for k, v in d.items()}, p)`,
  ]);
  return join(dest, 'adapter');
}
