import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { PreferenceConfig } from '../../core/config/schema.js';
import type { TrainArgs } from '../train/spec.js';

/** preference: DPO on the near-miss pairs, continuing train's adapter. */
export interface PreferenceArgs extends Omit<TrainArgs, 'train' | 'val'> {
  /** The train stage's adapter: where DPO starts, and its reference. */
  sft: ArtifactRef;
  pairs: ArtifactRef;
  pairsVal: ArtifactRef;
  preference: PreferenceConfig;
}
