import type { ArtifactRef, ArtifactStore } from '../artifacts/index.js';

/**
 * Every trace row some run has trained on: a run counts only rows beyond it as new. Rows are keyed by their
 * content id (domain, context, target), so a rewritten or re-uploaded file does not count twice, and clock
 * skew between trace writers and workers cannot hide or repeat data. The set only grows: a run with fewer
 * sources (a nightly without a script's extra prefix) cannot make old rows new again.
 */
export interface Watermark {
  /** The run that last moved it, right after it trained. */
  runId: string;
  workflowId: string;
  at: string;
  catalogVersion: string;
  /** A `trace-watermark` artifact: the sorted row ids trained on so far, one JSON string per line (a pointer root: gc keeps it). */
  seen: ArtifactRef;
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
  if (w) store.checkRef(w.seen);
  return w;
}

/** The row ids a watermark has seen. */
export async function seenIds(store: ArtifactStore, w: Watermark | undefined): Promise<string[]> {
  return w ? store.readJsonl<string>(w.seen) : [];
}

/**
 * Add a trained run's row ids to the watermark: read, merge, write, so a run that trained concurrently is
 * merged rather than overwritten unless both write within the same moment (then the loser's rows count as
 * new once more: one extra training, never a lost row).
 */
export async function advanceWatermark(
  store: ArtifactStore,
  project: string,
  run: { runId: string; workflowId: string; catalogVersion: string; rowIds: string[]; traceRows: ArtifactRef },
  now = new Date(),
): Promise<Watermark> {
  const previous = await readWatermark(store, project);
  const ids = [...new Set([...(await seenIds(store, previous)), ...run.rowIds])].sort();
  const seen = await store.putJsonl('trace-watermark', ids, {
    parents: previous ? [previous.seen, run.traceRows] : [run.traceRows],
    stats: { rows: ids.length },
  });
  const w: Watermark = {
    runId: run.runId,
    workflowId: run.workflowId,
    at: now.toISOString(),
    catalogVersion: run.catalogVersion,
    seen,
    rows: ids.length,
  };
  await store.putPointer(watermarkKey(project), w);
  return w;
}

/**
 * Train when: the input forces it, there is no watermark yet, the catalog changed (new or changed tools need
 * a new adapter whatever the traces say), or at least `minNewTraceRows` rows are new since the watermark.
 */
export function decideRetrain(a: {
  rowIds: string[];
  watermark: Watermark | undefined;
  watermarkIds: string[];
  catalogVersion: string;
  policy: RetrainPolicy;
  force: boolean;
}): RetrainDecision {
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
  if (w.catalogVersion !== a.catalogVersion)
    return decide(true, `${counted}; catalog changed ${w.catalogVersion} -> ${a.catalogVersion}`);
  const where = `since run ${w.runId} (${w.at})`;
  if (newRows >= need) return decide(true, `${counted} ${where}, need ${need}`);
  return decide(false, `not enough new data: ${counted} ${where}, need ${need}`);
}
