import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { TrainConfig } from '../../core/config/schema.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import type { StageArgs } from '../../activities/stage.js';

/** train: LoRA SFT on the rendered train / val rows, on a GPU worker. */
export interface TrainArgs extends StageArgs {
  train: ArtifactRef;
  val: ArtifactRef;
  format: 'router-json' | 'hermes';
  settings: TrainConfig;
}

/** What train and preference return: the candidate's version beside its outputs. */
export type TrainOutcome = StageOutcome & { adapterVersion: string };
