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

/**
 * What train and preference return beside the outputs: the candidate's version (adp-…) and its tag in a deployed
 * version's name (core/train/adapter-version.ts), both decided here, once, and taken as they are by evaluate and deploy.
 */
export type TrainOutcome = StageOutcome & { adapterVersion: string; adapterTag: string };
