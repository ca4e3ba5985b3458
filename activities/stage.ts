import type { ArtifactRef } from '../core/artifacts/types.js';
import type { DatasetConfig } from '../core/config/schema.js';
import { memoHit, memoized, type StageKeyParts } from '../core/pipeline/memo.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { failFast } from './errors.js';
import { storeFor, type StoreSpec } from './store.js';
import type { ArtifactStore } from '../core/artifacts/store.js';
import type { ChunkRange } from '../core/pipeline/chunks.js';
import { memoParts, stageVersion, type StageName } from '../workflows/contract/table.js';

export interface StageArgs {
  store: StoreSpec;
  runId: string;
}

/** The arguments every dataset stage shares. */
export interface DatasetStageArgs extends StageArgs {
  dataset: DatasetConfig;
}

/** What a stage's activity learns at run time that also keys its memo (trace files read, the test set pinned). */
export interface MemoExtras {
  /** Artifacts read besides the table's inputs, after them in the key. */
  inputs?: ArtifactRef[];
  /** Values beside the table's `keyedBy` ones. */
  key?: Record<string, unknown>;
  /**
   * Values instead of the table's `keyedBy` ones: train and preference key by the normalised job's identity, which
   * also names the adapter version (core/train/job.ts).
   */
  config?: Record<string, unknown>;
}

/**
 * The one place a memo key is built: the stage (`<stage>#chunk` for one chunk of it, with the chunk's row range),
 * its version, its input artifacts and its config values as the stage table names them (workflows/contract/table.ts), then
 * what the activity adds.
 */
export function memoKeyOf(
  stage: StageName,
  args: StageArgs,
  extras: MemoExtras = {},
  chunk?: ChunkRange,
): StageKeyParts {
  const parts = memoParts(stage, args as unknown as Record<string, unknown>);
  const config = { ...(extras.config ?? parts.config), ...extras.key };
  return {
    stage: chunk ? `${stage}#chunk` : stage,
    version: stageVersion(stage),
    inputs: [...parts.inputs, ...(extras.inputs ?? [])],
    config: chunk ? { ...config, chunk } : config,
  };
}

/** Extras known up front, or read from the store before the memo is looked up (e.g. from an input artifact). */
export type MemoExtrasFrom = MemoExtras | ((store: ArtifactStore) => Promise<MemoExtras>);

/**
 * The shape of every memoized stage activity: the key is the stage, its version, its input artifacts and its
 * config values, all as the stage table names them (workflows/contract/table.ts), plus `extras`; a hit returns the stored
 * outputs and summary, a miss runs `produce` and records both.
 */
export async function runStage<O extends Record<string, ArtifactRef>>(
  args: StageArgs,
  stage: StageName,
  produce: (store: ArtifactStore) => Promise<{ outputs: O; summary: string }>,
  extrasFrom: MemoExtrasFrom = {},
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const extras = typeof extrasFrom === 'function' ? await extrasFrom(store) : extrasFrom;
    const memo = await memoized(store, memoKeyOf(stage, args, extras), () => produce(store), args.runId);
    return {
      outputs: memo.outputs,
      reused: memo.reused,
      summary: memo.reused ? `${memo.summary} (reused)` : memo.summary,
    };
  });
}

/**
 * One chunk of a row-parallel stage, memoised on its own: the stage's key plus the chunk's row range, under
 * `<stage>#chunk`, so a retried or resumed stage reruns only the chunks that had not finished.
 */
export async function runChunk<O extends Record<string, ArtifactRef>>(
  args: StageArgs,
  stage: StageName,
  range: ChunkRange,
  produce: (store: ArtifactStore) => Promise<{ outputs: O; summary: string }>,
  extras: MemoExtras = {},
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const memo = await memoized(store, memoKeyOf(stage, args, extras, range), () => produce(store), args.runId);
    return { outputs: memo.outputs, reused: memo.reused, summary: memo.summary };
  });
}

/**
 * The stored outcome of a stage whose memo already has its key, else null: the workflow asks before it splits a
 * stage into chunks, so a reused stage schedules none.
 */
export async function storedStage(args: StageArgs & { stage: StageName }): Promise<StageOutcome | null> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const hit = await memoHit(store, memoKeyOf(args.stage, args), args.runId);
    return hit ? { outputs: hit.outputs, reused: true, summary: `${hit.summary} (reused)` } : null;
  });
}
