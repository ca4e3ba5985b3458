import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { ServerConfig } from '../../core/config/schema.js';
import type { DatasetStageArgs } from '../../activities/stage.js';

/** corrupt: near-miss negatives from the validated rows; trace rows join as positives. */
export type CorruptArgs = DatasetStageArgs & {
  catalog: ArtifactRef;
  validated: ArtifactRef;
  pools: ArtifactRef;
  traceRows?: ArtifactRef;
  servers: ServerConfig[];
};
