import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { ServerConfig } from '../../core/config/schema.js';
import type { DatasetStageArgs } from '../../activities/stage.js';
import type { Parts } from '../../activities/merge-parts.js';

/** validate: every candidate checked against its tool's schema, RBAC and a dry run (row-parallel over `candidates`). */
export type ValidateArgs = DatasetStageArgs & {
  catalog: ArtifactRef;
  intents: ArtifactRef;
  candidates: ArtifactRef;
  servers: ServerConfig[];
};
export type ValidateStageArgs = ValidateArgs & Parts;
