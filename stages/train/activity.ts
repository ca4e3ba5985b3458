import { adapterTag, adapterVersion } from '../../core/train/adapter-version.js';
import { jobIdentity, trainJobFor } from '../../core/train/job.js';
import { failFast } from '../../activities/errors.js';
import { trainMemoized } from '../../activities/trainer.js';
import { stageVersion } from '../../workflows/contract/table.js';
import type { TrainArgs, TrainOutcome } from './spec.js';

/**
 * LoRA SFT on the rendered dataset. Memoized by (dataset, normalised job): the same inputs reuse the stored
 * adapter. The trainer runs as a child process; its progress lines become heartbeats, each checkpoint is
 * uploaded before it is announced, and a retry resumes from the checkpoint in the last heartbeat.
 */
export async function train(a: TrainArgs): Promise<TrainOutcome> {
  return failFast(async () => {
    const identity = jobIdentity(a.settings.job, a.format);
    const named = { ...identity, stageVersion: stageVersion('train') };
    const version = adapterVersion(a.train.sha256, a.val.sha256, named);
    const tag = adapterTag({ trainSha: a.train.sha256, valSha: a.val.sha256 }, named);
    return trainMemoized(a, 'train', identity, {
      version,
      tagOf: async () => tag,
      format: a.format,
      data: { train: a.train, val: a.val },
      jobFor: async (_work, paths) => trainJobFor(a.settings.job, paths),
    });
  });
}
