import type { ArtifactRef, ArtifactStore } from '../artifacts/index.js';

/**
 * The trace rows the last run that trained had seen: a scheduled run counts only rows beyond it as new.
 * Rows are keyed by their content id (domain, context, target), so a rewritten or re-uploaded file does not
 * count twice, and clock skew between trace writers and workers cannot hide or repeat data.
 */
export interface Watermark {
  runId: string;
  workflowId: string;
  /** When the run that set it finished training. */
  at: string;
  catalogVersion: string;
  /** The trace-rows artifact that run trained on (a pointer root: gc keeps it). */
  traceRows: ArtifactRef;
  rows: number;
}

export interface RetrainPolicy {
  minNewTraceRows: number;
}

export interface RetrainDecision {
  train: boolean;
  newRows: number;
  totalRows: number;
  since: Pick<Watermark, 'runId' | 'at' | 'catalogVersion'> | null;
  /** One line for the stage detail and the run's record of why it trained or not. */
  reason: string;
}

export function watermarkKey(project: string): string {
  return `watermark/${project}`;
}

export async function readWatermark(store: ArtifactStore, project: string): Promise<Watermark | undefined> {
  const w = await store.getPointer<Watermark>(watermarkKey(project));
  if (w) store.checkRef(w.traceRows);
  return w;
}

export async function writeWatermark(store: ArtifactStore, project: string, w: Watermark): Promise<void> {
  await store.putPointer(watermarkKey(project), w);
}

/**
 * Train when: the input forces it, there is no watermark yet, the catalog changed (new or changed tools need
 * a new adapter whatever the traces say), or at least `minNewTraceRows` rows are new since the watermark.
 */
export function decideRetrain(a: { rowIds: string[]; watermark: Watermark | undefined; watermarkIds: string[]; catalogVersion: string; policy: RetrainPolicy; force: boolean }): RetrainDecision {
  const seen = new Set(a.watermarkIds);
  const newRows = new Set(a.rowIds.filter((id) => !seen.has(id))).size;
  const totalRows = new Set(a.rowIds).size;
  const w = a.watermark;
  const since = w ? { runId: w.runId, at: w.at, catalogVersion: w.catalogVersion } : null;
  const counted = `${newRows} new trace row${newRows === 1 ? '' : 's'} of ${totalRows}`;
  const need = a.policy.minNewTraceRows;
  const decide = (train: boolean, reason: string): RetrainDecision => ({ train, newRows, totalRows, since, reason });
  if (a.force) return decide(true, `${counted}; training forced by the run's input`);
  if (!w) return decide(true, `${counted}; no watermark yet, the first run trains`);
  if (w.catalogVersion !== a.catalogVersion) return decide(true, `${counted}; catalog changed ${w.catalogVersion} -> ${a.catalogVersion}`);
  const where = `since run ${w.runId} (${w.at})`;
  if (newRows >= need) return decide(true, `${counted} ${where}, need ${need}`);
  return decide(false, `not enough new data: ${counted} ${where}, need ${need}`);
}
