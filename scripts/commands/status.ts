import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson, REF_HEADERS, refRow, table } from '../lib/output.js';
import { connect, findRun, listRuns, runStatus } from '../lib/runs.js';
import { stageLine } from '../lib/watch.js';
import { intOption } from '../lib/args.js';

/** Runs `flywheel runs` lists unless --limit says. */
const DEFAULT_LIMIT = 20;

export const statusCommand: Command = {
  name: 'status',
  summary: 'show a run: state, stages, output artifacts',
  usage: `flywheel status RUN_ID [--json]

RUN_ID is a Temporal run id or a workflow id (its latest run). Works with no worker running.
--json prints {runId, workflowId, state, project, trigger, reason, skipReason, startedAt, closedAt, uiLink, error?,
               stages: [{name, state, outputs: {NAME: ArtifactRef}, startedAt, finishedAt, detail}]}
state is running | completed | failed | terminated | canceled | timed_out; skipReason is set when a completed run
stopped before training because its retrain policy found too little new data.`,
  async run(argv) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false } }, true);
    if (positionals.length !== 1) throw new UsageError('expected: flywheel status RUN_ID');
    const client = await connect();
    try {
      const status = await runStatus(await findRun(client, positionals[0]!));
      if (values.json) {
        printJson(status);
        return 0;
      }
      console.log(`run ${status.runId} (${status.workflowId}): ${status.state}`);
      console.log(`  ${status.uiLink}`);
      if (status.trigger) console.log(`  started by ${status.trigger}${status.reason ? `: ${status.reason}` : ''}`);
      if (status.skipReason) console.log(`  stopped early: ${status.skipReason}`);
      if (status.error) console.log(`  error: ${status.error}`);
      for (const s of status.stages) console.log(`  ${stageLine({ ...s })}`);
      const rows = status.stages.flatMap((s) => Object.entries(s.outputs).map(([n, r]) => refRow(`${s.name}.${n}`, r)));
      if (rows.length) console.log(`\n${table(REF_HEADERS, rows)}`);
      return 0;
    } finally {
      await client.connection.close();
    }
  },
};

export const runsCommand: Command = {
  name: 'runs',
  summary: 'list flywheel runs, newest first',
  usage: `flywheel runs [--limit N] [--json]

--json prints [{runId, workflowId, state, startedAt, closedAt, project}] newest first (default limit ${DEFAULT_LIMIT}).`,
  async run(argv) {
    const { values } = parse(argv, { json: { type: 'boolean', default: false }, limit: { type: 'string' } });
    const client = await connect();
    try {
      const runs = await listRuns(client, intOption(values.limit, 'limit', DEFAULT_LIMIT));
      if (values.json) printJson(runs);
      else
        console.log(
          table(
            ['started', 'state', 'project', 'run id', 'workflow id'],
            runs.map((r) => [r.startedAt, r.state, r.project ?? '', r.runId, r.workflowId]),
          ),
        );
      return 0;
    } finally {
      await client.connection.close();
    }
  },
};
