/**
 * Train one adapter for a benchmark with the real trainer, or reuse the one an earlier run into the same directory
 * trained with the very same job on the very same rows (a long CPU benchmark can be resumed that way).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../core/hash.js';
import { startTrainer } from '../../core/train/trainer-process.js';

export interface TrainedAdapter {
  /** The adapter directory, for serve's --adapter. */
  dir: string;
  reused: boolean;
  /** Set when early stopping ended the run before its last step (it then kept its best checkpoint). */
  stoppedEarly?: { step: number; total: number };
  tokensPerSecond?: number;
}

/** The config's train job with a benchmark's override merged key by key into its lora and optim. */
export function mergeJob(
  configured: Record<string, unknown>,
  override: Record<string, unknown> = {},
): Record<string, unknown> {
  const section = (job: Record<string, unknown>, key: string) => job[key] as Record<string, unknown> | undefined;
  return {
    ...configured,
    ...override,
    lora: { ...section(configured, 'lora'), ...section(override, 'lora') },
    optim: { ...section(configured, 'optim'), ...section(override, 'optim') },
  };
}

/** Where a benchmark's train job is written, and its text (what a rerun compares to reuse the adapter). */
function jobFileOf(name: string, job: Record<string, unknown>, out: string) {
  return { jobFile: join(out, `${name}.job.json`), jobText: JSON.stringify(job, null, 2) };
}

/**
 * Write the train job only, for training on another machine (a GPU): `python -m flywheel_trainer train --job FILE`
 * there, with the same absolute paths, leaves the adapter a rerun of the benchmark reuses.
 */
export async function prepareAdapter(name: string, job: Record<string, unknown>, out: string): Promise<string> {
  const { jobFile, jobText } = jobFileOf(name, job, out);
  await writeFile(jobFile, jobText);
  return jobFile;
}

/** `job` is a whole trainer job (trainJobFor's), its outputDir under `out`; written to `out/<name>.job.json`. */
export async function trainAdapter(
  name: string,
  job: Record<string, unknown>,
  opts: { out: string; say: (line: string) => void },
): Promise<TrainedAdapter> {
  const { jobFile, jobText } = jobFileOf(name, job, opts.out);
  const dir = join(job.outputDir as string, 'adapter');
  // The adapter records its training file's sha256; the job file its settings. DPO always trains.
  const meta = existsSync(join(dir, 'flywheel.json'))
    ? (JSON.parse(await readFile(join(dir, 'flywheel.json'), 'utf8')) as { method: string; trainSha256?: string })
    : undefined;
  const sameRows =
    meta !== undefined &&
    meta.method !== 'dpo' &&
    meta.trainSha256 === sha256Hex(await readFile((job.data as { train: string }).train));
  if (sameRows && existsSync(jobFile) && (await readFile(jobFile, 'utf8')) === jobText) {
    opts.say(`reusing ${name} from ${dir} (the same job on the same rows)`);
    return { dir, reused: true };
  }
  await writeFile(jobFile, jobText);
  const result: TrainedAdapter = { dir, reused: false };
  const run = startTrainer(['train', '--job', jobFile], {
    stderrFile: join(opts.out, `${name}.stderr.log`),
    onEvent: (e) => {
      if (e.event === 'step') {
        result.tokensPerSecond = e.tokens_per_s as number | undefined;
        if (e.step === 1 || e.step === e.total || (e.step ?? 0) % 40 === 0)
          opts.say(`  ${name} step ${e.step}/${e.total} loss ${e.loss ?? ''}`);
      }
      if (e.event === 'done' && e.step !== undefined && e.total !== undefined && e.step < e.total)
        result.stoppedEarly = { step: e.step, total: e.total };
    },
  });
  const exit = await run.done;
  if (exit.code !== 0)
    throw new Error(
      `training ${name} failed (exit ${exit.code}): ${exit.error?.message ?? exit.stderrTail.slice(-1500)}`,
    );
  return result;
}
