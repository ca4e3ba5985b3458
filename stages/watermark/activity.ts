import type { ArtifactRef } from '../../core/artifacts/types.js';
import { catalogVersion } from '../../core/catalog/history.js';
import type { RouterRow } from '../../core/dataset/types.js';
import {
  advanceWatermark as advance,
  decideRetrain,
  readWatermark,
  seenIds,
  type RetrainDecision,
} from '../../core/traces/watermark.js';
import { failFast } from '../../activities/errors.js';
import { whileBeating } from '../../activities/heartbeat.js';
import { storeFor } from '../../activities/store.js';
import type { AdvanceWatermarkArgs, RetrainCheckArgs } from './spec.js';

async function rowIds(store: ReturnType<typeof storeFor>, ref: ArtifactRef): Promise<string[]> {
  return (await store.readJsonl<RouterRow>(ref)).map((r) => r.id);
}

/** Compare this run's trace rows with the watermark: does the run train, and why (or why not). */
export async function retrainCheck(a: RetrainCheckArgs): Promise<RetrainDecision> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store);
      const watermark = await readWatermark(store, a.project);
      return decideRetrain({
        rowIds: await rowIds(store, a.traceRows),
        watermark,
        watermarkIds: await seenIds(store, watermark),
        catalogVersion: catalogVersion(a.catalog),
        policy: a.policy,
        force: a.force,
      });
    }),
  );
}

/** Right after a run trained: the rows it trained on are no longer new to any later run. */
export async function advanceWatermark(a: AdvanceWatermarkArgs): Promise<string> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store);
      const w = await advance(store, a.project, {
        runId: a.runId,
        workflowId: a.workflowId,
        catalogVersion: catalogVersion(a.catalog),
        rowIds: await rowIds(store, a.traceRows),
        traceRows: a.traceRows,
      });
      return `watermark at ${w.rows} trace rows (run ${a.runId})`;
    }),
  );
}
