import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import {
  loadSchedulesFile,
  OVERLAP,
  parseSchedule,
  scheduleDefinitionSchema,
} from '../../core/schedules/definition.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson, table } from '../lib/output.js';
import { connect } from '../lib/runs.js';
import { applySchedule, scheduleIdOf, scheduleOptions, triggerSchedule } from '../lib/schedules.js';
import { loadConfigFile } from '../../core/config/load.js';

const DEFAULT_FILE = 'temporal-config/schedules.yaml';
/** The schedule schema's defaults, for the usage text. */
const DEFAULTS = {
  overlap: scheduleDefinitionSchema.shape.overlap.parse(undefined),
  catchupWindow: scheduleDefinitionSchema.shape.catchupWindow.parse(undefined),
};

export const scheduleCommand: Command = {
  name: 'schedule',
  summary: 'nightly (or any cron) flywheel runs as Temporal Schedules: create, apply, list, pause, trigger…',
  usage: `flywheel schedule create --name N --config FILE --cron "0 2 * * *" [--cron …] [--tz Europe/Berlin]
                         [--overlap ${OVERLAP.join('|')}]
                         [--catchup-window "${DEFAULTS.catchupWindow}"] [--no-pause-on-failure] [--paused] [--note TEXT]
flywheel schedule apply [--file ${DEFAULT_FILE}]
flywheel schedule list [--json]
flywheel schedule describe NAME [--json]
flywheel schedule pause|unpause NAME [--note TEXT]
flywheel schedule trigger NAME
flywheel schedule backfill NAME --from ISO --to ISO
flywheel schedule delete NAME

A schedule starts flywheelRun with the config embedded (loaded when the schedule is created or applied), on
task queue "flywheel", as trigger "schedule:<name>". Schedule id: flywheel-<name>.
  --overlap         a run due while the previous one still runs: ${DEFAULTS.overlap} (default) or another Temporal policy
  --catchup-window  after an outage, runs missed longer ago than this are not made up (default ${DEFAULTS.catchupWindow})
  pause on failure  a failed run pauses the schedule (default on) so a broken config does not fail nightly
apply   creates or updates every schedule in the file; an unchanged one is left alone (prints created,
        updated or unchanged). Paused state is the operators': apply never unpauses.
trigger starts a run now, under the schedule's overlap policy (a run in progress means skip).
backfill runs the times the schedule would have fired between --from and --to.`,
  async run(argv) {
    const [verb, ...rest] = argv;
    const client = await connect();
    try {
      switch (verb) {
        case 'create':
          return await create(client, rest);
        case 'apply':
          return await apply(client, rest);
        case 'list':
          return await list(client, rest);
        case 'describe':
          return await describe(client, rest);
        case 'pause':
        case 'unpause':
          return await pauseOrUnpause(client, verb, rest);
        case 'trigger':
          await triggerSchedule(client, one(rest, 'trigger'));
          console.log(
            `triggered ${one(rest, 'trigger')} (skipped if a run of it is in progress and its overlap policy is skip)`,
          );
          return 0;
        case 'backfill':
          return await backfill(client, rest);
        case 'delete':
          await handleOf(client, one(rest, 'delete')).delete();
          console.log(`deleted schedule ${one(rest, 'delete')} (runs it started are not touched)`);
          return 0;
        default:
          throw new UsageError(
            `expected create, apply, list, describe, pause, unpause, trigger, backfill or delete, got "${verb ?? ''}"`,
          );
      }
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw new UsageError(`no such schedule: ${err.message}`);
      throw err;
    } finally {
      await client.connection.close();
    }
  },
};

function one(argv: string[], verb: string): string {
  const { positionals } = parse(argv, {}, true);
  if (positionals.length !== 1) throw new UsageError(`expected: flywheel schedule ${verb} NAME`);
  return positionals[0]!;
}

const handleOf = (client: Client, name: string) => client.schedule.getHandle(scheduleIdOf(name));

async function create(client: Client, argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    name: { type: 'string' },
    config: { type: 'string' },
    cron: { type: 'string', multiple: true },
    tz: { type: 'string' },
    overlap: { type: 'string' },
    'catchup-window': { type: 'string' },
    'no-pause-on-failure': { type: 'boolean', default: false },
    paused: { type: 'boolean', default: false },
    note: { type: 'string' },
  });
  if (!values.name || !values.config || !values.cron?.length)
    throw new UsageError('--name, --config and --cron are required');
  const def = parseSchedule(
    {
      name: values.name,
      config: values.config,
      cron: values.cron.length === 1 ? values.cron[0] : values.cron,
      ...(values.tz ? { timezone: values.tz } : {}),
      ...(values.overlap ? { overlap: values.overlap } : {}),
      ...(values['catchup-window'] ? { catchupWindow: values['catchup-window'] } : {}),
      pauseOnFailure: !values['no-pause-on-failure'],
      paused: values.paused,
      ...(values.note ? { note: values.note } : {}),
    },
    'flywheel schedule create',
    process.cwd(),
  );
  await client.schedule.create(scheduleOptions(def, await loadConfigFile(def.config)));
  console.log(
    `created schedule ${def.name} (id ${scheduleIdOf(def.name)}): ${[def.cron].flat().join(', ')} ${def.timezone}`,
  );
  return 0;
}

async function apply(client: Client, argv: string[]): Promise<number> {
  const { values } = parse(argv, { file: { type: 'string', default: DEFAULT_FILE } });
  for (const def of await loadSchedulesFile(values.file))
    console.log(`${def.name}: ${await applySchedule(client, def)}`);
  return 0;
}

async function list(client: Client, argv: string[]): Promise<number> {
  const { values } = parse(argv, { json: { type: 'boolean', default: false } });
  const rows = [];
  for await (const s of client.schedule.list()) {
    if (!s.scheduleId.startsWith('flywheel-')) continue;
    rows.push({
      name: s.scheduleId.slice('flywheel-'.length),
      paused: s.state.paused,
      note: s.state.note ?? '',
      next: s.info.nextActionTimes[0]?.toISOString() ?? '',
      last: s.info.recentActions.at(-1)?.takenAt.toISOString() ?? '',
    });
  }
  if (values.json) printJson(rows);
  else
    console.log(
      rows.length
        ? table(
            ['name', 'paused', 'next run', 'last run', 'note'],
            rows.map((r) => [r.name, r.paused ? 'yes' : 'no', r.next, r.last, r.note]),
          )
        : 'no flywheel schedules',
    );
  return 0;
}

async function describe(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false } }, true);
  if (positionals.length !== 1) throw new UsageError('expected: flywheel schedule describe NAME');
  const d: ScheduleDescription = await handleOf(client, positionals[0]!).describe();
  const view = {
    name: positionals[0],
    // The server keeps cron strings as structured calendars; the action's details name the definition.
    calendars: d.spec.calendars ?? [],
    timezone: d.spec.timezone ?? 'UTC',
    overlap: d.policies.overlap,
    catchupWindowMs: d.policies.catchupWindow,
    pauseOnFailure: d.policies.pauseOnFailure,
    paused: d.state.paused,
    note: d.state.note ?? null,
    nextRuns: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    recentRuns: d.info.recentActions.map((a) => ({
      at: a.takenAt.toISOString(),
      workflowId: a.action.type === 'startWorkflow' ? a.action.workflow.workflowId : null,
    })),
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
    details: d.action.type === 'startWorkflow' ? (d.action.staticDetails ?? null) : null,
  };
  if (values.json) printJson(view);
  else {
    console.log(
      `schedule ${view.name} (${scheduleIdOf(positionals[0]!)}): ${view.paused ? `PAUSED${view.note ? ` — ${view.note}` : ''}` : 'active'}`,
    );
    console.log(`  when:    ${JSON.stringify(view.calendars)} ${view.timezone}`);
    console.log(
      `  overlap: ${view.overlap}; catch-up window ${Math.round(Number(view.catchupWindowMs) / 60000)} min; pause on failure ${view.pauseOnFailure ? 'yes' : 'no'}`,
    );
    console.log(`  next:    ${view.nextRuns.join(', ') || '—'}`);
    console.log(`  recent:  ${view.recentRuns.map((r) => `${r.at} ${r.workflowId}`).join('\n           ') || '—'}`);
    if (view.running.length) console.log(`  running: ${view.running.join(', ')}`);
    if (view.details) console.log(`  action:  ${view.details}`);
  }
  return 0;
}

async function pauseOrUnpause(client: Client, verb: 'pause' | 'unpause', argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { note: { type: 'string' } }, true);
  if (positionals.length !== 1) throw new UsageError(`expected: flywheel schedule ${verb} NAME [--note TEXT]`);
  const handle = handleOf(client, positionals[0]!);
  const note = values.note ?? `${verb}d from the flywheel CLI`;
  await (verb === 'pause' ? handle.pause(note) : handle.unpause(note));
  console.log(`${positionals[0]}: ${verb}d (${note})`);
  return 0;
}

async function backfill(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { from: { type: 'string' }, to: { type: 'string' } }, true);
  if (positionals.length !== 1 || !values.from || !values.to)
    throw new UsageError('expected: flywheel schedule backfill NAME --from ISO --to ISO');
  const [start, end] = [new Date(values.from), new Date(values.to)];
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || start >= end)
    throw new UsageError(`--from and --to must be ISO times with from < to, got ${values.from} .. ${values.to}`);
  await handleOf(client, positionals[0]!).backfill({ start, end });
  console.log(
    `${positionals[0]}: backfilling the runs due between ${start.toISOString()} and ${end.toISOString()} (under its overlap policy)`,
  );
  return 0;
}
