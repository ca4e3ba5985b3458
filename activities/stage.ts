import type { ArtifactRef } from '../core/artifacts/types.js';
import { memoized } from '../core/pipeline/memo.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { failFast } from './errors.js';
import { storeFor, type StoreSpec } from './store.js';
import type { ArtifactStore } from '../core/artifacts/store.js';

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
  stage: string,
  version: string,
  inputs: ArtifactRef[],
  config: unknown,
  produce: (store: ArtifactStore) => Promise<{ outputs: O; summary: string }>,
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const memo = await memoized(store, { stage, version, inputs, config }, () => produce(store), args.runId);
    return { outputs: memo.outputs, reused: memo.reused, summary: memo.reused ? `${memo.summary} (reused)` : memo.summary };
  });
}
