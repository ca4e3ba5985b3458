import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { DeployConfig } from '../../core/config/schema.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import type { StageArgs } from '../../activities/stage.js';

/** deploy: the promoted candidate served and smoke-tested, then the alias moved to it. */
export interface DeployArgs extends StageArgs {
  workflowId: string;
  deploy: DeployConfig;
  adapter: ArtifactRef;
  adapterVersion: string;
  /** The candidate's tag, as train or preference named it: the version deployed is `<alias>@<tag>`. */
  adapterTag?: string;
  renderedTest: ArtifactRef;
  evalReport: ArtifactRef;
  actor: string;
  reason: string;
  /** The production version the candidate was gated against (null: none); the alias moves only from it. */
  expectedCurrent: string | null;
}

export type DeployOutcome = StageOutcome & { version: string; previous: string | null };
