import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { GateSettings } from '../../core/config/schema.js';
import type { GateDecision } from '../../core/eval/types.js';
import type { StageArgs } from '../../activities/stage.js';

/** gate: the rules decide on the eval results (`gateStage`); after any approval, the stage records the report. */
export type GateDecisionArgs = StageArgs & { evalResults: ArtifactRef; gate: GateSettings };
export type GateArgs = StageArgs & { evalResults: ArtifactRef; decision: GateDecision };
