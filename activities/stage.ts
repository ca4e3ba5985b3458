import type { ArtifactRef } from '../core/artifacts/types.js';
import { memoized } from '../core/pipeline/memo.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { failFast } from './errors.js';
import { storeFor, type StoreSpec } from './store.js';
import type { ArtifactStore } from '../core/artifacts/store.js';
import { stageVersion, type StageName } from '../workflows/stages.js';

export interface StageArgs {
  store: StoreSpec;
  runId: string;
}

/**
 * The shape of every memoized stage activity: the key is (stage, version, input shas, config section);
 * a hit returns the stored outputs and summary, a miss runs `produce` and records both.
 */
export async function runStage<O extends Record<string, ArtifactRef>>(
  args: StageArgs,
  stage: StageName,
  inputs: ArtifactRef[],
  config: unknown,
  produce: (store: ArtifactStore) => Promise<{ outputs: O; summary: string }>,
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(args.store);
    // The key: the stage, its version from the stage table, its input artifacts and its slice of the config.
    const memo = await memoized(store, { stage, version: stageVersion(stage), inputs, config }, () => produce(store), args.runId);
    return { outputs: memo.outputs, reused: memo.reused, summary: memo.reused ? `${memo.summary} (reused)` : memo.summary };
  });
}
