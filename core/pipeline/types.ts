import type { ArtifactRef } from '../artifacts/types.js';
import type { ConfigInput, FlywheelConfig } from '../config/schema.js';

/**
 * Input of the `flywheelRun` workflow: one JSON object, so an operator can paste it into the Temporal UI.
 * Exactly one of config / configPath / configRef.
 */
export interface FlywheelRunInput {
  /** The config inline (defaults are filled in by validation). */
  config?: ConfigInput;
  /** A config file path as seen by the worker (relative to the worker's working directory). */
  configPath?: string;
  /** A config stored earlier as an artifact (what `--resume` uses, so a resumed run reads exactly the same config). */
  configRef?: ArtifactRef;
  /** The store holding configRef, when it is not the default file store. */
  configStore?: string;
  /** The run this one continues; finished stages are reused through the stage memo. */
  resumeOf?: string;
  /** Who started it: cli, ui, schedule, script. Shown to operators. */
  trigger?: string;
}

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
