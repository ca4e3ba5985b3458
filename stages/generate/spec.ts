import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { DatasetStageArgs } from '../../activities/stage.js';
import type { Parts } from '../../activities/merge-parts.js';

/** generate: a teacher drafts user requests for the intents (row-parallel over `intents`). */
export type GenerateArgs = DatasetStageArgs & { intents: ArtifactRef };
export type GenerateStageArgs = GenerateArgs & Parts;
