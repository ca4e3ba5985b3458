import { checkConfigFiles } from '../../core/config/files.js';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import { openStore } from '../../core/artifacts/index.js';
import type { FlywheelRunInput, RunProgress } from '../../core/pipeline/types.js';
import { uiLink } from '../../core/temporal-env.js';

/** The Trigger search attribute of a run started from this command. */
const DEFAULT_TRIGGER = 'cli';
import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson } from '../lib/output.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { connect, findRun, IdempotencyConflict, rootMessage, runProgress, runStatus, startRun } from '../lib/runs.js';
import { IDEMPOTENCY_KEY_RE, parseRunInput } from '../../core/pipeline/input.js';
import { watchRun } from '../lib/watch.js';

const RESUMABLE = new Set(['failed', 'terminated', 'canceled', 'timed_out']);

export const runCommand: Command = {
  name: 'run',
  summary: 'start a flywheel run (or resume a failed one)',
  usage: `flywheel run [--config FILE] [--traces SOURCE]... [--reason TEXT] [--idempotency-key KEY] [--force]
             [--trigger NAME] [--wait] [--json]
flywheel run --resume RUN_ID [--wait] [--json]

Starts the flywheelRun workflow on task queue "flywheel" with workflow id flywheel-<project>-<config hash>
(a hash of the whole request when it adds --traces or --force). Starting the same request while a run of it is
in progress attaches to that run instead of racing it.
  --config FILE     validated here first: a bad config exits 2 before anything starts
                    (default: $FLYWHEEL_CONFIG, else ${DEFAULT_CONFIG})
  --traces SOURCE   add a trace source to the config's traces (repeatable): a file, a directory of *.jsonl /
                    *.json files, s3://bucket/prefix/ (every trace object directly under it) or s3://bucket/key.jsonl;
                    read by the worker (S3 credentials and FLYWHEEL_S3_ENDPOINT from the worker's environment)
  --reason TEXT     why this run: shown in the Temporal UI (summary, current details) and in flywheel status
  --idempotency-key KEY
                    the run's workflow id becomes flywheel-<project>:<KEY>: starting again with the same key returns
                    the same run while it runs or once it completed (a failed run gives its key back); the same
                    key with a different request (config, traces, force) exits 2. Letters, digits, . _ : - (at most 100)
  --force           train even when the config's retrain policy finds too little new data
  --trigger NAME    who starts it, for the Trigger search attribute (default ${DEFAULT_TRIGGER}; e.g. script:etl)
  --resume RUN_ID   start a new run with the exact stored config of a failed run (its traces, reason and force
                    included); stages whose inputs and config are unchanged are reused from the stage memo
  --wait            follow stage progress until the run closes; exit 0 if it completed, 1 if not
  --json            print {runId, workflowId, uiLink, created} (with --wait: the final status JSON)`,
  async run(argv) {
    const { values } = parse(argv, {
      config: { type: 'string' },
      resume: { type: 'string' },
      traces: { type: 'string', multiple: true },
      reason: { type: 'string' },
      'idempotency-key': { type: 'string' },
      force: { type: 'boolean', default: false },
      trigger: { type: 'string' },
      wait: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    if (values.config && values.resume) throw new UsageError('give --config FILE or --resume RUN_ID, not both');
    const fresh = {
      traces: values.traces,
      reason: values.reason,
      'idempotency-key': values['idempotency-key'],
      force: values.force || undefined,
      trigger: values.trigger,
    };
    if (values.resume) {
      const extra = Object.entries(fresh)
        .filter(([, v]) => v !== undefined)
        .map(([k]) => `--${k}`);
      if (extra.length)
        throw new UsageError(`${extra.join(', ')} start a new run; --resume reruns a failed run exactly as it was`);
    }
    const key = values['idempotency-key'];
    if (key !== undefined && !IDEMPOTENCY_KEY_RE.test(key))
      throw new UsageError(
        `--idempotency-key "${key}": use 1-100 letters, digits, . _ : - (starting with a letter or digit)`,
      );
    const client = await connect();
    try {
      let input: FlywheelRunInput;
      let config;
      if (!values.resume) {
        const file = values.config ?? process.env.FLYWHEEL_CONFIG ?? DEFAULT_CONFIG;
        config = await loadConfigFile(file);
        // A bad tools file exits 2 here; one that is only on the workers is theirs to read.
        await checkConfigFiles(config, file, { missingOk: true });
        input = {
          config,
          trigger: values.trigger ?? DEFAULT_TRIGGER,
          ...(values.traces?.length ? { traces: values.traces } : {}),
          ...(values.reason ? { reason: values.reason } : {}),
          ...(key ? { idempotencyKey: key } : {}),
          ...(values.force ? { force: true } : {}),
        };
        // The same checks the workflow makes, here first: a bad input exits 2 before anything starts.
        parseRunInput(input);
        if (input.traces)
          parseConfig({ ...config, traces: [...config.traces, ...input.traces] }, `${file} with --traces`);
      } else {
        const failed = await findRun(client, values.resume!);
        const status = await runStatus(failed);
        if (!RESUMABLE.has(status.state)) {
          throw new UsageError(
            `run ${status.runId} is ${status.state}; only failed, terminated, canceled or timed-out runs can be resumed`,
          );
        }
        const progress = (await runProgress(failed)) as RunProgress | undefined;
        if (!progress?.configRef)
          throw new UsageError(`run ${status.runId} failed before its config was stored; start it again with --config`);
        const store = progress.configStore ?? undefined;
        config = parseConfig(await openStore(store).readJson(progress.configRef), `config of run ${status.runId}`);
        // The stored config already holds the input's traces; force and reason carry over as they were.
        input = {
          configRef: progress.configRef,
          ...(store ? { configStore: store } : {}),
          resumeOf: status.runId,
          trigger: 'cli-resume',
          ...(progress.force ? { force: true } : {}),
          ...(progress.reason ? { reason: progress.reason } : {}),
        };
      }
      let started;
      try {
        started = await startRun(client, config, input);
      } catch (err) {
        if (!(err instanceof IdempotencyConflict)) throw err;
        console.error(`flywheel run: ${err.message}`);
        return 2;
      }
      const link = uiLink(started.handle.workflowId, started.runId);
      if (!values.json || !values.wait) {
        const what = started.created
          ? 'started'
          : key
            ? `idempotency key ${key} already started`
            : 'already in progress, attached to';
        if (values.json)
          printJson({
            runId: started.runId,
            workflowId: started.handle.workflowId,
            uiLink: link,
            created: started.created,
          });
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
