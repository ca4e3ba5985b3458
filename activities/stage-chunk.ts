import type { ArtifactRef } from '../core/artifacts/types.js';
import type { ChunkRange } from '../core/pipeline/chunks.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { draftRequests } from '../stages/generate/activity.js';
import type { GenerateArgs } from '../stages/generate/spec.js';
import { solveRequests } from '../stages/solve/activity.js';
import type { SolveArgs } from '../stages/solve/spec.js';
import { validateRows } from '../stages/validate/activity.js';
import type { ValidateArgs } from '../stages/validate/spec.js';
import { runChunk } from './stage.js';

export type ChunkArgs =
  | (GenerateArgs & { stage: 'generate' } & ChunkRange)
  | (SolveArgs & { stage: 'solve' } & ChunkRange)
  | (ValidateArgs & { stage: 'validate' } & ChunkRange);

/**
 * One chunk of a row-parallel stage: the rows `[from, to)` of its chunked input, with the whole input as context,
 * written as part artifacts the stage activity then merges. Memoised on its own, so a retried or resumed stage
 * redoes only the chunks that had not finished.
 */
export async function stageChunk(a: ChunkArgs): Promise<StageOutcome> {
  const range = { from: a.from, to: a.to };
  return runChunk(
    a,
    a.stage,
    range,
    async (store): Promise<{ outputs: Record<string, ArtifactRef>; summary: string }> => {
      switch (a.stage) {
        case 'generate': {
          const { rows, stats } = await draftRequests(store, a, range);
          return {
            outputs: { requests: await store.putJsonl('requests-part', rows, { parents: [a.intents], stats }) },
            summary: `${rows.length} requests`,
          };
        }
        case 'solve': {
          const { rows, stats } = await solveRequests(store, a, range);
          return {
            outputs: {
              candidates: await store.putJsonl('candidates-part', rows, { parents: [a.intents, a.requests], stats }),
            },
            summary: `${rows.length} candidates`,
          };
        }
        case 'validate': {
          const { rows, rejections, stats } = await validateRows(store, a, range);
          const parents = [a.catalog, a.intents, a.candidates];
          return {
            outputs: {
              validated: await store.putJsonl('validated-part', rows, { parents, stats }),
              rejections: await store.putJsonl('rejections-part', rejections, { parents }),
            },
            summary: `${stats.valid} valid, ${stats.rejected} rejected`,
          };
        }
      }
    },
  );
}
