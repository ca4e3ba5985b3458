import type { FlywheelConfig } from '../config/schema.js';
import { hashOf, shortSha } from '../hash.js';

/**
 * Workflow ids come from the business key (project + config hash): a second start of the same config while
 * one is running is rejected instead of racing it; later runs of the same config reuse the id.
 */
export function workflowIdFor(config: FlywheelConfig): string {
  return `flywheel-${config.name}-${shortSha(hashOf(config))}`;
}

/**
 * A caller's idempotency key names the run: a second start with the same key (running or completed) returns
 * that run instead of starting another, for as long as the namespace retains its history. The colon cannot
 * occur in a project name, so two projects' keys never meet ("sales" + "eu-1" vs "sales-eu" + "1").
 */
export function workflowIdForKey(project: string, key: string): string {
  return `flywheel-${project}:${key}`;
}

/**
 * The workflow id of a start: by key when given; else by config, or by the whole request when it adds
 * traces or force, so such a start never attaches to a run of the bare config that would ignore them.
 */
export function workflowIdForRun(
  config: FlywheelConfig,
  input: { idempotencyKey?: string; traces?: unknown[]; force?: boolean },
): string {
  if (input.idempotencyKey) return workflowIdForKey(config.name, input.idempotencyKey);
  if (input.traces?.length || input.force) return `flywheel-${config.name}-${shortSha(requestHash(input))}`;
  return workflowIdFor(config);
}

/** What a keyed start is judged on: a reused key must carry the same request (who started it and why may differ). */
export function requestHash(input: object): string {
  const { trigger: _t, reason: _r, ...request } = input as Record<string, unknown>;
  return hashOf(request);
}
