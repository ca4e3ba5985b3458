import type { ArtifactRef } from '../artifacts/types.js';
import type { FlywheelConfig } from '../config/schema.js';

/** Input of the `flywheelRun` workflow: see ./input.ts (schema and docs). */
export type { FlywheelRunInput } from './input.js';

export interface ResolvedConfig {
  config: FlywheelConfig;
  configRef: ArtifactRef;
}

/** skipped: the stage did not apply (deploy after a gate that held the candidate). */
export type StageState = 'pending' | 'running' | 'completed' | 'reused' | 'failed' | 'skipped';
export type RunState = 'running' | 'completed' | 'failed';

export interface StageProgress {
  name: string;
  state: StageState;
  outputs: Record<string, ArtifactRef>;
  startedAt: string | null;
  finishedAt: string | null;
  /** One line for humans: counts, what was reused, the error. */
  detail: string;
}

/** What the `progress` query returns and what the workflow keeps in its memo for `flywheel status`. */
export interface RunProgress {
  state: RunState;
  project: string | null;
  configRef: ArtifactRef | null;
  configStore: string | null;
  resumeOf: string | null;
  trigger: string;
  /** Why the run was started, when its starter said (input.reason). */
  reason: string | null;
  /** The input asked to train whatever the retrain policy says (kept so a resume does the same). */
  force: boolean;
  /** Set when the run stopped early on purpose (not enough new data): the stages after it are skipped. */
  skipReason: string | null;
  stages: StageProgress[];
}

/** What every stage activity returns to the workflow: refs and one line for humans, never data. */
export interface StageOutcome {
  outputs: Record<string, ArtifactRef>;
  reused: boolean;
  summary: string;
}

export interface IngestResult {
  outputs: { catalog: ArtifactRef; catalogDiff: ArtifactRef };
  reused: boolean;
  version: string;
  summary: string;
}
