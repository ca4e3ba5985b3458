import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { loadConfigFile } from '../../core/config/load.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { hashOf, shortSha } from '../../core/hash.js';
import type { FlywheelRunInput } from '../../core/pipeline/types.js';
import type { ScheduleDefinition } from '../../core/schedules/definition.js';
import { CPU_TASK_QUEUE } from '../../workflows/contract/queues.js';
import { runSummary } from './runs.js';

export const scheduleIdOf = (name: string): string => `flywheel-${name}`;

const POLICY: Record<ScheduleDefinition['overlap'], ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
};

/** What makes a schedule what it is (not its paused state, which operators own): apply compares this hash. */
export function definitionHash(def: ScheduleDefinition, config: FlywheelConfig): string {
  const { paused: _p, note: _n, config: _path, ...rest } = def;
  return hashOf({ ...rest, config });
}

/**
 * The Temporal schedule for a definition. The config is embedded in the action (the worker that runs it may
 * have no copy of the file); the run's static details carry the definition hash, so `apply` can tell an
 * unchanged schedule from one to update and operators see which definition started a run.
 */
export function scheduleOptions(def: ScheduleDefinition, config: FlywheelConfig): ScheduleOptions {
  const input: FlywheelRunInput = { config, trigger: `schedule:${def.name}` };
  return {
    scheduleId: scheduleIdOf(def.name),
    spec: { cronExpressions: Array.isArray(def.cron) ? def.cron : [def.cron], timezone: def.timezone },
    action: {
      type: 'startWorkflow',
      workflowType: 'flywheelRun',
      taskQueue: CPU_TASK_QUEUE,
      workflowId: `flywheel-${config.name}-${def.name}`,
      args: [input],
      staticSummary: runSummary(config, `schedule:${def.name}`),
      staticDetails: `schedule ${def.name}; definition ${definitionHash(def, config)}; config sha256 ${shortSha(hashOf(config))}`,
    },
    policies: { overlap: POLICY[def.overlap], catchupWindow: def.catchupWindow, pauseOnFailure: def.pauseOnFailure },
    state: { paused: def.paused, ...(def.note ? { note: def.note } : {}) },
  };
}

export type ApplyResult = 'created' | 'updated' | 'unchanged';

/** Create the schedule, update it if its definition changed, or leave it alone: safe to run again and again. */
export async function applySchedule(client: Client, def: ScheduleDefinition): Promise<ApplyResult> {
  const config = await loadConfigFile(def.config);
  const options = scheduleOptions(def, config);
  const handle = client.schedule.getHandle(options.scheduleId);
  let current;
  try {
    current = await handle.describe();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    await client.schedule.create(options);
    return 'created';
  }
  const hash = definitionHash(def, config);
  if (current.action.type === 'startWorkflow' && current.action.staticDetails?.includes(`definition ${hash}`))
    return 'unchanged';
  // Paused state and note stay as operators left them.
  await handle.update((prev) => ({
    spec: options.spec,
    action: options.action as never,
    policies: options.policies,
    state: { paused: prev.state.paused, ...(prev.state.note ? { note: prev.state.note } : {}) },
  }));
  return 'updated';
}

/** Start a run now under the schedule's own overlap policy (the SDK's trigger() would default to ALLOW_ALL). */
export async function triggerSchedule(client: Client, name: string): Promise<void> {
  const handle = client.schedule.getHandle(scheduleIdOf(name));
  await handle.trigger((await handle.describe()).policies.overlap);
}
