import type { ArtifactRef, ArtifactStore } from '../artifacts/index.js';
import { hashOf } from '../hash.js';

export interface StageKeyParts {
  stage: string;
  /** Bump when the stage's code changes what it produces; old memo entries then stop matching. */
  version: string;
  /** The artifacts the stage reads. */
  inputs: ArtifactRef[];
  /** The config section the stage reads (and nothing more, so unrelated edits keep the memo). */
  config: unknown;
}

export function stageKey(parts: StageKeyParts): string {
  return hashOf({
    stage: parts.stage,
    version: parts.version,
    inputs: parts.inputs.map((r) => r.sha256),
    config: parts.config ?? null,
  });
}

export interface MemoResult<O extends Record<string, ArtifactRef>> {
  outputs: O;
  reused: boolean;
  key: string;
  summary: string;
}

/** The stored outputs under this stage key, if a finished run left them; recorded as reused by `runId`. */
export async function memoHit<O extends Record<string, ArtifactRef>>(
  store: ArtifactStore,
  parts: StageKeyParts,
  runId?: string,
): Promise<MemoResult<O> | undefined> {
  const key = stageKey(parts);
  const hit = await store.getMemo(key);
  if (!hit) return undefined;
  // Record who reused it last: gc counts an entry as part of the newest run that used it, not only the first.
  if (runId && hit.usedBy !== runId) await store.putMemo({ ...hit, usedBy: runId, usedAt: new Date().toISOString() });
  return { outputs: hit.outputs as O, reused: true, key, summary: hit.summary ?? '' };
}

/**
 * Run `produce` unless a finished run already stored outputs under the same stage key; the memo entry is
 * written only after every output is stored, so a crash mid-stage leaves no memo and the stage reruns.
 */
export async function memoized<O extends Record<string, ArtifactRef>>(
  store: ArtifactStore,
  parts: StageKeyParts,
  produce: () => Promise<O | { outputs: O; summary: string }>,
  runId?: string,
): Promise<MemoResult<O>> {
  const key = stageKey(parts);
  const hit = await memoHit<O>(store, parts, runId);
  if (hit) return hit;
  const produced = await produce();
  const { outputs, summary } =
    'outputs' in produced && 'summary' in produced
      ? (produced as { outputs: O; summary: string })
      : { outputs: produced as O, summary: '' };
  await store.putMemo({
    key,
    stage: parts.stage,
    outputs,
    summary,
    createdAt: new Date().toISOString(),
    ...(runId ? { runId } : {}),
  });
  return { outputs, reused: false, key, summary };
}
