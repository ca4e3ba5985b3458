import type { ArtifactRef } from '../core/artifacts/types.js';
import { memoized } from '../core/pipeline/memo.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { failFast } from './errors.js';
import { storeFor, type StoreSpec } from './store.js';
import type { ArtifactStore } from '../core/artifacts/store.js';
import { memoParts, stageVersion, type StageName } from '../workflows/stages.js';

export interface StageArgs {
  store: StoreSpec;
  runId: string;
}

/** What a stage's activity learns at run time that also keys its memo (trace files read, the test set pinned). */
export interface MemoExtras {
  /** Artifacts read besides the table's inputs, after them in the key. */
  inputs?: ArtifactRef[];
  /** Values beside the table's `keyedBy` ones. */
  key?: Record<string, unknown>;
}

/**
 * The shape of every memoized stage activity: the key is the stage, its version, its input artifacts and its
 * config values, all as the stage table names them (workflows/stages.ts), plus `extras`; a hit returns the stored
 * outputs and summary, a miss runs `produce` and records both.
 */
export async function runStage<O extends Record<string, ArtifactRef>>(
  args: StageArgs,
  stage: StageName,
  produce: (store: ArtifactStore) => Promise<{ outputs: O; summary: string }>,
  extras: MemoExtras = {},
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const parts = memoParts(stage, args as unknown as Record<string, unknown>);
    const key = { stage, version: stageVersion(stage), inputs: [...parts.inputs, ...(extras.inputs ?? [])], config: { ...parts.config, ...extras.key } };
    const memo = await memoized(store, key, () => produce(store), args.runId);
    return { outputs: memo.outputs, reused: memo.reused, summary: memo.reused ? `${memo.summary} (reused)` : memo.summary };
  });
}
