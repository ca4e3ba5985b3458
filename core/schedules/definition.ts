import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/load.js';
import { formatPath } from '../config/path.js';

/** How a schedule treats a run that is due while the previous one still runs (Temporal's overlap policies). */
export const OVERLAP = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;

const timezone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'an IANA time zone such as Europe/Berlin or UTC');

// Five fields (minute hour day-of-month month day-of-week) or a macro such as @daily; the server checks the rest.
const cron = z.string().regex(/^(@\w+|\S+(\s+\S+){4})$/, 'a cron expression with five fields, e.g. "0 2 * * *"');

/** One schedule: run flywheelRun on a config at cron times. */
export const scheduleDefinitionSchema = z.strictObject({
  /** Lowercase letters, digits and dashes; the Temporal schedule id is flywheel-<name>. */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'use lowercase letters, digits and dashes'),
  /** The flywheel config, relative to the schedules file; loaded and embedded in the schedule at apply time. */
  config: z.string().min(1),
  cron: z.union([cron, z.array(cron).min(1)]),
  timezone: timezone.default('UTC'),
  overlap: z.enum(OVERLAP).default('skip'),
  /** Missed runs older than this (server or workers down) are not made up; e.g. "1 hour", "30 minutes". */
  catchupWindow: z
    .string()
    .regex(/^\d+\s*(seconds?|minutes?|hours?|days?|[smhd])$/, 'a duration such as "1 hour" or "30 minutes"')
    .default('1 hour'),
  /** Pause the schedule when a run fails, so a broken config does not fail every night. */
  pauseOnFailure: z.boolean().default(true),
  /** Only at creation: apply never unpauses a schedule an operator paused. */
  paused: z.boolean().default(false),
  note: z.string().optional(),
});

export const schedulesFileSchema = z.strictObject({
  schedules: z
    .array(scheduleDefinitionSchema)
    .refine((s) => new Set(s.map((d) => d.name)).size === s.length, 'schedule names must be unique'),
});

export type ScheduleDefinition = z.infer<typeof scheduleDefinitionSchema>;
export type ScheduleDefinitionInput = z.input<typeof scheduleDefinitionSchema>;

/** Parse a definition; errors name the file and key path. Config paths come back absolute. */
export function parseSchedule(raw: unknown, source: string, baseDir: string): ScheduleDefinition {
  const parsed = scheduleDefinitionSchema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(
      source,
      parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`),
    );
  return { ...parsed.data, config: resolve(baseDir, parsed.data.config) };
}

/** temporal-config/schedules.yaml: `schedules: [...]`. */
export async function loadSchedulesFile(path: string): Promise<ScheduleDefinition[]> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(path, [(err as Error).message]);
  }
  const parsed = schedulesFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(
      path,
      parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`),
    );
  return parsed.data.schedules.map((d) => ({ ...d, config: resolve(dirname(path), d.config) }));
}
