import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { EvaluateConfig, TeacherConfig } from '../../core/config/schema.js';
import type { StageArgs } from '../../activities/stage.js';

/** The version an alias serves now, as the workflow looked it up (null before the first deploy). */
export interface ServedVersion {
  name: string;
  endpoint: string;
  servedModel: string;
  adapterId: string | null;
}

/** evaluate: the candidate, production and the teacher scored on the same frozen cases, on a GPU worker. */
export interface EvaluateArgs extends StageArgs {
  renderedTest: ArtifactRef;
  test: ArtifactRef;
  adapter: ArtifactRef;
  adapterVersion: string;
  /** The train stage's metrics.jsonl, for the loss curve in the report. */
  trainMetrics?: ArtifactRef;
  evaluate: EvaluateConfig;
  teacher: TeacherConfig;
  production: ServedVersion | null;
  /** The run's catalog: the report then gives the gateway retriever's recall on the test set's calls. */
  catalog?: ArtifactRef;
  /** Set when the cases were scored in chunks (`evaluate.chunkSize`): their `evalPart` outputs, in case order. */
  parts?: Array<Record<string, ArtifactRef>>;
}
