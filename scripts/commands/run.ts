import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import { openStore } from '../../core/artifacts/index.js';
import type { FlywheelRunInput, RunProgress } from '../../core/pipeline/types.js';
import { uiLink } from '../../core/temporal-env.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson } from '../lib/output.js';
import { connect, findRun, rootMessage, runProgress, runStatus, startRun } from '../lib/runs.js';
import { watchRun } from '../lib/watch.js';

const RESUMABLE = new Set(['failed', 'terminated', 'canceled', 'timed_out']);

export const runCommand: Command = {
  name: 'run',
  summary: 'start a flywheel run (or resume a failed one)',
  usage: `flywheel run --config FILE [--wait] [--json]
flywheel run --resume RUN_ID [--wait] [--json]

Starts the flywheelRun workflow on task queue "flywheel" with workflow id flywheel-<project>-<config hash>.
Starting the same config while a run of it is in progress attaches to that run instead of racing it.
  --config FILE     validated here first: a bad config exits 2 before anything starts
  --resume RUN_ID   start a new run with the exact stored config of a failed run; stages whose inputs
                    and config are unchanged are reused from the stage memo instead of redone
  --wait            follow stage progress until the run closes; exit 0 if it completed, 1 if not
  --json            print {runId, workflowId, uiLink, created} (with --wait: the final status JSON)`,
  async run(argv) {
    const { values } = parse(argv, {
      config: { type: 'string' },
      resume: { type: 'string' },
      wait: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    if (Boolean(values.config) === Boolean(values.resume)) throw new UsageError('give exactly one of --config FILE or --resume RUN_ID');
    const client = await connect();
    try {
      let input: FlywheelRunInput;
      let config;
      if (values.config) {
        config = await loadConfigFile(values.config);
        input = { config, trigger: 'cli' };
      } else {
        const failed = await findRun(client, values.resume!);
        const status = await runStatus(failed);
        if (!RESUMABLE.has(status.state)) {
          throw new UsageError(`run ${status.runId} is ${status.state}; only failed, terminated, canceled or timed-out runs can be resumed`);
        }
        const progress = (await runProgress(failed)) as RunProgress | undefined;
        if (!progress?.configRef) throw new UsageError(`run ${status.runId} failed before its config was stored; start it again with --config`);
        const store = progress.configStore ?? undefined;
        config = parseConfig(await openStore(store).readJson(progress.configRef), `config of run ${status.runId}`);
        input = { configRef: progress.configRef, ...(store ? { configStore: store } : {}), resumeOf: status.runId, trigger: 'cli-resume' };
      }
      const started = await startRun(client, config, input);
      const link = uiLink(started.handle.workflowId, started.runId);
      if (!values.json || !values.wait) {
        const what = started.created ? 'started' : 'already in progress, attached to';
        if (values.json) printJson({ runId: started.runId, workflowId: started.handle.workflowId, uiLink: link, created: started.created });
        else console.log(`${what} run ${started.runId}\n  workflow ${started.handle.workflowId}\n  ${link}`);
      }
      if (!values.wait) return 0;
      let code = 0;
      try {
        await watchRun(started.handle);
      } catch (err) {
        if (!values.json) console.error(`run failed: ${rootMessage(err)}`);
        code = 1;
      }
      if (values.json) printJson(await runStatus(started.handle));
      else if (code === 0) console.log(`run ${started.runId} completed — see "flywheel status ${started.runId}"`);
      return code;
    } finally {
      await client.connection.close();
    }
  },
};
