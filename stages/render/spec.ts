import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { DatasetStageArgs } from '../../activities/stage.js';

/** render: each split in the training format, and the near-miss preference pairs beside it. */
export type RenderArgs = DatasetStageArgs & {
  catalog: ArtifactRef;
  train: ArtifactRef;
  val: ArtifactRef;
  test: ArtifactRef;
};
