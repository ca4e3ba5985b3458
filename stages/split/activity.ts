import { catalogVersion } from '../../core/catalog/history.js';
import { distinctCallsByTool, rowStats } from '../../core/dataset/pipeline.js';
import { describeCap, entityOverlap, splitByEntity, trainingRows } from '../../core/dataset/split.js';
import { frozenTestSet, pinTestSet } from '../../core/dataset/testset.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { beat } from '../../activities/heartbeat.js';
import { runStage } from '../../activities/stage.js';
import { storeFor } from '../../activities/store.js';
import type { SplitArgs } from './spec.js';

/** The split stage's activity: the augmented rows split by entity, the test set the catalog version pinned kept. */
export async function split(a: SplitArgs): Promise<StageOutcome> {
  const version = catalogVersion(a.catalog);
  const pinned = await frozenTestSet(storeFor(a.store), a.project, version);
  // The key names the project, the catalog and the pinned test set, so a memo hit never stands in for a split
  // that should have used (or created) another frozen test set.
  const outcome = await runStage(
    a,
    'split',
    async (store) => {
      beat({ stage: 'split' });
      const rows = await store.readJsonl<RouterRow>(a.augmented);
      const frozen = pinned ? await store.readJsonl<RouterRow>(pinned.ref) : undefined;
      const s = splitByEntity(rows, a.dataset.split, a.dataset.seed, frozen);
      const overlap = entityOverlap(s);
      if (overlap.length) throw new Error(`entity overlap across splits: ${overlap.slice(0, 5).join(', ')}`);
      const { rows: train, cap, traceCopies } = trainingRows(s.train, a.dataset);
      const parents = [a.augmented];
      const trainRef = await store.putJsonl('train', train, {
        parents,
        stats: {
          ...rowStats(train),
          distinctByTool: distinctCallsByTool(s.train),
          ...(cap ? { cap } : {}),
          ...(traceCopies ? { traceCopies } : {}),
        },
      });
      const valRef = await store.putJsonl('val', s.val, { parents, stats: rowStats(s.val) });
      const testRef = pinned ? pinned.ref : await store.putJsonl('test', s.test, { parents, stats: rowStats(s.test) });
      return {
        outputs: { train: trainRef, val: valRef, test: testRef },
        summary: `train ${train.length} (${s.train.length} before oversampling${cap ? `; ${describeCap(cap)}` : ''}${traceCopies ? `; ${traceCopies} copies of trace rows for dataset.traceShare ${a.dataset.traceShare}` : ''}), val ${s.val.length}, test ${s.test.length}${pinned ? ' (frozen)' : ' (new, now frozen)'}${s.heldOut ? `, ${s.heldOut} held out for touching test entities` : ''}`,
      };
    },
    { key: { frozenTest: pinned?.ref.sha256 ?? null } },
  );
  // Pinned outside the memo, so a reused split still pins its test set; the first pin wins.
  if (!pinned)
    await pinTestSet(storeFor(a.store), a.project, version, outcome.outputs.test!, 'split', { onlyIfAbsent: true });
  return outcome;
}
