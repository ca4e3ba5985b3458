import * as wf from '@temporalio/workflow';
import type { FlywheelActivities } from '../activities/index.js';
import type { StoreSpec } from '../activities/store.js';

/** Input of the `rollback` workflow: one JSON object, so it can be started from the Temporal UI too. */
export interface RollbackInput {
  alias: string;
  /** A version name of the alias; default: the version it served before the current one. */
  to?: string;
  by: string;
  reason: string;
  /** Absent: the deploy section's defaults (core/defaults.ts), applied by the activity. */
  registry?: string;
  adapterDir?: string;
  store?: StoreSpec;
  timeoutMs?: number;
  apiKeyEnv?: string;
  /** The worker environment variable with the local serve's admin token (the variable's name, never the token). */
  adminTokenEnv?: string;
}

export interface RollbackResult {
  alias: string;
  version: string;
  previous: string | null;
  smoke: string;
}

const { rollbackStage } = wf.proxyActivities<FlywheelActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

/**
 * Repoint an alias to an earlier version: reload it on its backend if needed, smoke-test it, move the alias,
 * record who and why. The move is keyed by this workflow's id, so a retried activity moves it once.
 */
export async function rollback(input: RollbackInput): Promise<RollbackResult> {
  if (!input?.alias || !input.by?.trim() || !input.reason?.trim()) {
    throw wf.ApplicationFailure.nonRetryable('rollback needs alias, by (who) and reason', 'ConfigError');
  }
  wf.setCurrentDetails(
    `rolling back **${input.alias}**${input.to ? ` to ${input.to}` : ''}: ${input.reason} (by ${input.by})`,
  );
  const info = wf.workflowInfo();
  const result = await rollbackStage({
    ...(input.registry ? { registry: input.registry } : {}),
    ...(input.adapterDir ? { adapterDir: input.adapterDir } : {}),
    ...(input.store ? { store: input.store } : {}),
    alias: input.alias,
    ...(input.to ? { to: input.to } : {}),
    actor: input.by.trim(),
    reason: input.reason.trim(),
    requestId: `${info.workflowId}/${info.runId}`,
    timeoutMs: input.timeoutMs ?? 120_000,
    ...(input.apiKeyEnv ? { apiKeyEnv: input.apiKeyEnv } : {}),
    ...(input.adminTokenEnv ? { adminTokenEnv: input.adminTokenEnv } : {}),
  });
  wf.setCurrentDetails(`**${input.alias}** → ${result.version} (was ${result.previous ?? 'none'}); ${result.smoke}`);
  return { alias: input.alias, ...result };
}
