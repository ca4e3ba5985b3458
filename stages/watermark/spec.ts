import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { RetrainPolicy } from '../../core/traces/watermark.js';
import type { StoreSpec } from '../../activities/store.js';

/**
 * watermark: the retrain policy. It records no artifacts, so it has no stage activity; the workflow asks
 * `retrainCheck` whether this run trains, and train calls `advanceWatermark` once it has.
 */
export interface RetrainCheckArgs {
  store: StoreSpec;
  project: string;
  catalog: ArtifactRef;
  traceRows: ArtifactRef;
  policy: RetrainPolicy;
  force: boolean;
}

export interface AdvanceWatermarkArgs {
  store: StoreSpec;
  project: string;
  catalog: ArtifactRef;
  traceRows: ArtifactRef;
  runId: string;
  workflowId: string;
}
