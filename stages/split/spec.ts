import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { DatasetStageArgs } from '../../activities/stage.js';

/** split: train / val / test by entity, the test set frozen per catalog version. */
export type SplitArgs = DatasetStageArgs & { project: string; catalog: ArtifactRef; augmented: ArtifactRef };
