import { join } from 'node:path';
import { adapterTag, adapterVersion } from '../../core/train/adapter-version.js';
import { preferenceIdentity, preferenceJobConfig, trainJobFor } from '../../core/train/job.js';
import { stageVersion } from '../../workflows/contract/table.js';
import { InputError } from '../../core/errors.js';
import { failFast } from '../../activities/errors.js';
import { storeFor } from '../../activities/store.js';
import { trainMemoized } from '../../activities/trainer.js';
import type { TrainOutcome } from '../train/spec.js';
import type { PreferenceArgs } from './spec.js';

/**
 * DPO after SFT on the run's near-miss pairs: the train stage's contract (memo, checkpoints uploaded and resumed
 * from the last heartbeat, progress, bad job not retried), with the SFT adapter downloaded next to the data as
 * the starting point. Versioned by the pairs, the SFT adapter and the DPO job.
 */
export async function preference(a: PreferenceArgs): Promise<TrainOutcome> {
  return failFast(async () => {
    for (const [key, split, ref] of [
      ['pairsTrain', 'train', a.pairs],
      ['pairsVal', 'val', a.pairsVal],
    ] as const) {
      if (ref.count === 0)
        throw new InputError(
          `preference: render made no ${key} (the ${split} split has no near-miss negatives to pair); raise dataset.negativeShare or dataset.perGoal, or drop the preference section`,
        );
    }
    const identity = { ...preferenceIdentity(a.settings.job, a.preference, a.format), sft: a.sft.sha256 };
    const version = adapterVersion(a.pairs.sha256, a.pairsVal.sha256, {
      ...identity,
      stageVersion: stageVersion('preference'),
    });
    return trainMemoized(a, 'preference', identity, {
      version,
      // Named on the SFT dataset (the SFT adapter's parents) and, since its weights also depend on the pairs and the
      // SFT adapter, the DPO adapter's own hash.
      async tagOf(adapter, store) {
        const [trainSha, valSha] = (await store.manifest(a.sft.sha256)).parents;
        if (!trainSha || !valSha)
          throw new InputError(`preference: the SFT adapter ${a.sft.sha256.slice(0, 12)} does not name its dataset`);
        return adapterTag(
          { trainSha, valSha },
          {
            ...preferenceIdentity(a.settings.job, a.preference, a.format),
            stageVersion: stageVersion('preference'),
            adapter: adapter.sha256,
          },
        );
      },
      format: a.format,
      data: { train: a.pairs, val: a.pairsVal },
      parents: [a.sft],
      async jobFor(work, paths) {
        // adapter/ (+ base/ for a tiny model, which the DPO job copies beside its own adapter).
        const sft = join(work, 'sft');
        await storeFor(a.store).materializeDir(a.sft, sft);
        return trainJobFor(preferenceJobConfig(a.settings.job, a.preference, join(sft, 'adapter')), paths);
      },
    });
  });
}
