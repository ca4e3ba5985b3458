import type { ArtifactRef } from '../core/artifacts/types.js';
import { catalogVersion } from '../core/catalog/history.js';
import type { RouterRow } from '../core/dataset/types.js';
import { decideRetrain, readWatermark, writeWatermark, type RetrainDecision, type RetrainPolicy } from '../core/traces/watermark.js';
import { failFast } from './errors.js';
import { storeFor, type StoreSpec } from './store.js';

/** Compare this run's trace rows with the watermark: does the run train, and why (or why not). */
export async function retrainCheck(a: { store: StoreSpec; project: string; catalog: ArtifactRef; traceRows: ArtifactRef; policy: RetrainPolicy; force: boolean }): Promise<RetrainDecision> {
  return failFast(async () => {
    const store = storeFor(a.store);
    const ids = async (ref: ArtifactRef) => (await store.readJsonl<RouterRow>(ref)).map((r) => r.id);
    const watermark = await readWatermark(store, a.project);
    return decideRetrain({
      rowIds: await ids(a.traceRows),
      watermark,
      watermarkIds: watermark ? await ids(watermark.traceRows) : [],
      catalogVersion: catalogVersion(a.catalog),
      policy: a.policy,
      force: a.force,
    });
  });
}

/** After a run trained and finished: the rows it trained on are no longer new. */
export async function advanceWatermark(a: { store: StoreSpec; project: string; catalog: ArtifactRef; traceRows: ArtifactRef; runId: string; workflowId: string }): Promise<string> {
  return failFast(async () => {
    await writeWatermark(storeFor(a.store), a.project, {
      runId: a.runId,
      workflowId: a.workflowId,
      at: new Date().toISOString(),
      catalogVersion: catalogVersion(a.catalog),
      traceRows: a.traceRows,
      rows: a.traceRows.count,
    });
    return `watermark at ${a.traceRows.count} trace rows (run ${a.runId})`;
  });
}
