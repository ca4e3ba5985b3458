import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { DatasetStageArgs } from '../../activities/stage.js';
import type { Parts } from '../../activities/merge-parts.js';

/** solve: the teacher answers each drafted request with a call or a no-call (row-parallel over `requests`). */
export type SolveArgs = DatasetStageArgs & { catalog: ArtifactRef; intents: ArtifactRef; requests: ArtifactRef };
export type SolveStageArgs = SolveArgs & Parts;
