import type { ArtifactRef } from '../artifacts/types.js';

/** Where deploy, the gateway and the CLI find the alias table unless told otherwise (relative to the cwd). */
export { DEFAULT_REGISTRY } from '../defaults.js';

/** Serving backends: the trainer's serve (local), vLLM with runtime LoRA loading, LoRAX (adapter per request). */
export type DeployTarget = 'local' | 'vllm' | 'lorax';

/** One deployable version of an alias. Names are never reused: `<alias>@<dataset-short-hash>-<job-short-hash>`. */
export interface DeployedVersion {
  name: string;
  alias: string;
  /** adp-… from the train stage. */
  adapterVersion: string;
  adapter: ArtifactRef;
  target: DeployTarget;
  /** The backend's OpenAI base URL (…/v1). */
  endpoint: string;
  /** The `model` value requests use on the backend: the version name (local, vllm) or the base model (lorax). */
  servedModel: string;
  /** LoRAX only: the adapter id sent per request (`adapter_id`); null for the other targets. */
  adapterId: string | null;
  /** Backend's model id of the base the adapter sits on (what the smoke test compares against). */
  baseModel: string;
  /** Workflow id of the run that produced it (null for versions registered by hand). */
  runId: string | null;
  evalReport: ArtifactRef | null;
  /** The smoke-test prompts (a `smoke-probes` artifact): a rollback to this version smoke-tests with them. */
  probes: ArtifactRef | null;
  createdAt: string;
}

export type AliasAction = 'deploy' | 'rollback';

/** One move of an alias; the table keeps every one of them. */
export interface AliasEvent {
  id: number;
  alias: string;
  version: string;
  previous: string | null;
  action: AliasAction;
  actor: string;
  reason: string;
  /** Idempotency key of the move (workflow id + step): a retried move with the same key is a no-op. */
  requestId: string;
  at: string;
}
