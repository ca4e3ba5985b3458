import * as wf from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { FlywheelActivities } from '../activities/index.js';
import type { ServedVersion } from '../stages/evaluate/spec.js';
import type { DeployOutcome } from '../stages/deploy/spec.js';
import type { TrainOutcome } from '../stages/train/spec.js';
import type { GateDecision } from '../core/eval/types.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import type { FlywheelConfig, GateSettings } from '../core/config/schema.js';
import { GPU_TASK_QUEUE } from './contract/queues.js';
import type { FlywheelRunInput, RunProgress, StageProgress } from '../core/pipeline/types.js';
import {
  ADAPTER_VERSION,
  DATASET_SHA,
  DEPLOYED_VERSION,
  DOMAIN,
  FLYWHEEL_STAGE,
  TRIGGER,
} from './contract/search-attributes.js';
import {
  appliesTo,
  CATALOG_STAGES,
  chunkRanges,
  type OutputName,
  PROFILES,
  specOf,
  stageArgs,
  STAGES,
  type StageCallArgs,
  type StageName,
  type StageSpec,
  trainingProfile,
} from './contract/table.js';

// The stages, their order and when each runs: workflows/contract/table.ts.
export { CATALOG_STAGES, DATASET_STAGES, RELEASE_STAGES, TRAIN_STAGES, type StageName } from './contract/table.js';

export const progressQuery = wf.defineQuery<RunProgress>('progress');

/** An operator's decision on a candidate waiting for approval: who, and why. */
export interface ApprovalInput {
  by: string;
  reason: string;
}
/** Updates for `flywheel approve|reject` (the caller learns at once whether it landed)... */
export const approveUpdate = wf.defineUpdate<string, [ApprovalInput]>('approve');
export const rejectUpdate = wf.defineUpdate<string, [ApprovalInput]>('reject');
/** ...and signals of the same names for the Temporal UI's "Send a Signal". */
export const approveSignal = wf.defineSignal<[ApprovalInput]>('approve');
export const rejectSignal = wf.defineSignal<[ApprovalInput]>('reject');

// Which failures are worth a retry is the activities' to say: every InputError reaches the workflow as a
// non-retryable ApplicationFailure (activities/errors.ts), so retry policies here list no error types.

// Timeouts and retries: the stage table's profiles (workflows/contract/table.ts); a stage's own activity is called
// through activitiesOf, with its entry's queue and profile.
const { resolveConfig } = wf.proxyActivities<FlywheelActivities>(PROFILES.config);
const { listServerTools } = wf.proxyActivities<FlywheelActivities>(PROFILES.listing);
const cpu = wf.proxyActivities<FlywheelActivities>(PROFILES.control);

interface StageOutcome {
  outputs: Record<string, ArtifactRef>;
  reused: boolean;
  summary: string;
}

/**
 * One flywheel run: resolve the config, then each stage in order. The workflow holds control flow and
 * artifact refs only; every byte of data lives in the artifact store.
 */
export async function flywheelRun(input: FlywheelRunInput): Promise<RunProgress> {
  const progress: RunProgress = {
    state: 'running',
    project: null,
    configRef: null,
    configStore: null,
    // Read before resolveConfig validates the input: only well-typed values reach the memo and search attributes.
    resumeOf: text(input?.resumeOf),
    trigger: text(input?.trigger) ?? 'ui',
    reason: text(input?.reason),
    force: input?.force === true,
    skipReason: null,
    stages: CATALOG_STAGES.map((name) => pendingStage(name)),
  };
  wf.setHandler(progressQuery, () => progress);
  const approvals = approvalGate();
  // Operator filters in the UI: Domain, Trigger, and DeployedVersion once a deploy moved an alias.
  const labels: SearchAttributeUpdatePair[] = [{ key: TRIGGER, value: progress.trigger }];

  const publish = (current: string): void => {
    // The memo stays small: stage states, times and 72-char details, ~3 KB for thirteen stages (Temporal's limit is
    // 2 MB; its default *warning* at 2 KB is raised to 8 KB in temporal-config/dev-server.json). Outputs live in the
    // history as activity results, where `flywheel status` reads them; the progress query has it all.
    wf.upsertMemo({
      progress: {
        ...progress,
        stages: progress.stages.map(({ outputs: _o, detail, ...rest }) => ({
          ...rest,
          outputs: {},
          detail: detail.length > 72 ? `${detail.slice(0, 71)}…` : detail,
        })),
      },
    });
    // One upsert per publish, carrying every attribute known so far (the same commands as before they existed).
    wf.upsertSearchAttributes([{ key: FLYWHEEL_STAGE, value: current }, ...labels]);
    wf.setCurrentDetails(describe(progress));
  };

  const runStage = async (name: StageName, body: () => Promise<StageOutcome>): Promise<StageOutcome> => {
    const stage = progress.stages.find((s) => s.name === name) as StageProgress;
    stage.state = 'running';
    stage.startedAt = new Date().toISOString();
    publish(name);
    try {
      const outcome = await body();
      stage.outputs = outcome.outputs;
      stage.state = outcome.reused ? 'reused' : 'completed';
      stage.detail = outcome.summary;
      return outcome;
    } catch (err) {
      stage.state = 'failed';
      stage.detail = wf.isCancellation(err) ? 'cancelled' : rootMessage(err);
      progress.state = 'failed';
      if (wf.isCancellation(err)) throw err; // the run ends Cancelled, not Failed
      throw wf.ApplicationFailure.create({
        message: `stage ${name} failed: ${stage.detail}`,
        type: 'StageFailed',
        nonRetryable: true,
        cause: err as Error,
      });
    } finally {
      stage.finishedAt = new Date().toISOString();
      publish(progress.state === 'failed' ? 'failed' : name);
    }
  };

  let config: FlywheelConfig;
  try {
    const resolved = await resolveConfig(input);
    config = resolved.config;
    progress.project = config.name;
    labels.push({ key: DOMAIN, value: config.servers.map((s) => s.name) });
    progress.configRef = resolved.configRef;
    progress.configStore = config.artifacts.store;
  } catch (err) {
    progress.state = 'failed';
    publish('failed');
    throw wf.ApplicationFailure.create({
      message: `config: ${rootMessage(err)}`,
      type: 'ConfigError',
      nonRetryable: true,
      cause: err as Error,
    });
  }
  progress.stages.push(
    ...STAGES.filter((s) => s.group !== 'catalog' && appliesTo(s.name, config)).map((s) => pendingStage(s.name)),
  );
  publish('starting');

  // The run is the stage table in order: each listed stage's activity called with the arguments its entry names,
  // or its own step (STEPS below) where it does more.
  const run: RunContext = {
    config,
    runId: wf.workflowInfo().runId,
    runStage,
    progress,
    approvals,
    publish,
    adapterVersion: '',
    promoted: false,
  };
  for (const spec of STAGES) {
    if (!progress.stages.some((st) => st.name === spec.name)) continue;
    const step = STEPS[spec.name];
    if (!step) {
      const outcome = await run.runStage(spec.name, () => tableStage(run, spec.name));
      recordOutcome(run, spec, outcome);
      continue;
    }
    const skipReason = await step(run);
    if (skipReason) {
      // Not enough new data: the run ends here, completed, with the reason on the run and every later stage.
      for (const st of progress.stages)
        if (st.state === 'pending')
          Object.assign(st, { state: 'skipped', detail: 'skipped: not enough new data (see watermark)' });
      progress.skipReason = skipReason;
      progress.state = 'completed';
      publish('skipped');
      return progress;
    }
  }
  if (run.deployedVersion) labels.push({ key: DEPLOYED_VERSION, value: run.deployedVersion });

  progress.state = 'completed';
  publish('done');
  return progress;
}

/** Approve / reject handlers: accepted only while the gate waits, from an Update or a signal alike. */
interface Approvals {
  waiting: boolean;
  decision?: ApprovalInput & { approved: boolean };
}

function approvalGate(): Approvals {
  const state: Approvals = { waiting: false };
  const validate = (a: ApprovalInput): void => {
    if (!state.waiting)
      throw new Error(
        state.decision
          ? `already ${state.decision.approved ? 'approved' : 'rejected'} by ${state.decision.by}`
          : 'this run is not waiting for approval',
      );
    if (!a?.by?.trim() || !a?.reason?.trim()) throw new Error('give who decides (by) and why (reason)');
  };
  const decide =
    (approved: boolean) =>
    (a: ApprovalInput): string => {
      state.decision = { by: a.by.trim(), reason: a.reason.trim(), approved };
      state.waiting = false;
      return `${approved ? 'approved' : 'rejected'} by ${state.decision.by}`;
    };
  wf.setHandler(approveUpdate, decide(true), { validator: validate });
  wf.setHandler(rejectUpdate, decide(false), { validator: validate });
  // A signal cannot answer back: one that does not apply is logged and dropped.
  const fromSignal =
    (approved: boolean) =>
    (a: ApprovalInput): void => {
      try {
        validate(a);
        decide(approved)(a);
      } catch (err) {
        wf.log.warn(`${approved ? 'approve' : 'reject'} signal ignored: ${(err as Error).message}`);
      }
    };
  wf.setHandler(approveSignal, fromSignal(true));
  wf.setHandler(rejectSignal, fromSignal(false));
  return state;
}

/**
 * What a table stage's entry says its result means for the run (after the stage, in the order the stage's own steps
 * did it, so recorded histories replay): the candidate it names, the search attribute it sets.
 */
function recordOutcome(run: RunContext, spec: StageSpec, outcome: StageOutcome): void {
  if (spec.namesCandidate) {
    // The adapter a training stage made: evaluate scores it, deploy serves it.
    const { adapterVersion, adapterTag } = outcome as TrainOutcome;
    run.adapterVersion = adapterVersion;
    run.adapterTag = adapterTag;
    wf.upsertSearchAttributes([{ key: ADAPTER_VERSION, value: run.adapterVersion }]);
  }
  if (spec.indexes) {
    const key = SEARCH_ATTRIBUTE_KEYS[spec.indexes.attribute];
    wf.upsertSearchAttributes([{ key, value: outcome.outputs[spec.indexes.output]!.sha256 }]);
  }
}

const SEARCH_ATTRIBUTE_KEYS = { DatasetSha: DATASET_SHA } as const;

/** A finished stage's output, by the names stages.ts gives it. */
function outputOf<S extends StageName>(progress: RunProgress, stage: S, name: OutputName<S>): ArtifactRef {
  return progress.stages.find((s) => s.name === stage)!.outputs[name]!;
}

/** An output that exists only on some runs (a stage this config does not list, train metrics from older trainers). */
function optionalOutput<S extends StageName>(
  progress: RunProgress,
  stage: S,
  name: OutputName<S>,
): ArtifactRef | undefined {
  return progress.stages.find((s) => s.name === stage)?.outputs[name];
}

function pendingStage(name: StageName): StageProgress {
  return { name, state: 'pending', outputs: {}, startedAt: null, finishedAt: null, detail: '' };
}

type StageRunner = (name: StageName, body: () => Promise<StageOutcome>) => Promise<StageOutcome>;

/** What the stages' steps share: the run's config and state, and what earlier steps decided. */
interface RunContext {
  config: FlywheelConfig;
  runId: string;
  runStage: StageRunner;
  progress: RunProgress;
  approvals: Approvals;
  publish: (current: string) => void;
  /** Set by train, then by preference when it runs: the candidate's version. */
  adapterVersion: string;
  /** Set with the version: the candidate's tag in deployed names (absent from results recorded before tags). */
  adapterTag?: string;
  /** Set by gate: the candidate is to be deployed. */
  promoted: boolean;
  /** The gate's decision, for deploy's record. */
  decision?: GateDecision;
  /** What the alias served when evaluate scored the candidate: deploy moves the alias only from this version. */
  production?: ServedVersion | null;
  /** Set by deploy. */
  deployedVersion?: string;
}

/**
 * A stage's activity, on its queue with its profile, called with the arguments its table entry names: `store`,
 * `runId`, its config paths and the earlier stages' outputs it reads (`extra`: what only the run knows).
 */
function callStage<R = StageOutcome>(
  run: RunContext,
  name: StageName,
  extra: Record<string, unknown> = {},
): Promise<R> {
  const spec = specOf(name);
  if (!spec.activity) throw new Error(`stage ${name} has no activity to call`);
  return activitiesOf<R>(run, spec)[activityType(spec)]!({ ...argsOf(run, name), ...extra });
}

/** A stage's activity type: its name, or on runs recorded before activity types were stage names, its former type. */
function activityType(spec: StageSpec): string {
  return wf.patched('activity-type-is-stage-name') || !spec.formerActivity ? spec.name : spec.formerActivity;
}

/** Activities on a stage's queue, with its profile or the one given. */
function activitiesOf<R>(run: RunContext, spec: StageSpec, profile: StageSpec['profile'] = spec.profile) {
  const options = profile === 'training' ? trainingProfile(run.config.train!) : PROFILES[profile];
  return wf.proxyActivities<Record<string, (args: Record<string, unknown>) => Promise<R>>>(
    spec.queue === 'gpu' ? { taskQueue: GPU_TASK_QUEUE, ...options } : options,
  );
}

/** A stage activity's arguments as its table entry names them, from this run's config and finished stages. */
function argsOf(run: RunContext, name: StageName): StageCallArgs {
  return stageArgs(
    name,
    run.config,
    run.runId,
    (stage) => run.progress.stages.find((st) => st.name === stage)?.outputs,
  );
}

/**
 * A stage with no step of its own: its activity; for a row-parallel stage (`chunkedBy`) whose input has more than
 * `dataset.chunkSize` rows, first its chunks in parallel (any worker takes any chunk), then its activity merges
 * them. A stage the memo already holds schedules no chunks.
 */
async function tableStage(run: RunContext, name: StageName): Promise<StageOutcome> {
  const spec = specOf(name);
  const args = argsOf(run, name);
  const input = spec.chunkedBy ? (args[spec.chunkedBy] as ArtifactRef | undefined) : undefined;
  const size = run.config.dataset?.chunkSize;
  // Configs resolved before chunking existed have no chunkSize, so their runs replay unchunked.
  if (!input || !size || input.count <= size || !wf.patched('chunked-stages')) return callStage(run, name);
  const stored = await cpu.storedStage({ ...args, stage: name });
  if (stored) return stored;
  const ranges = chunkRanges(input.count, size);
  const stage = stageOf(run, name);
  let done = 0;
  const parts = await Promise.all(
    ranges.map(async (range) => {
      const outcome = await activitiesOf<StageOutcome>(run, spec, 'chunk').stageChunk!({
        ...args,
        stage: name,
        ...range,
      });
      stage.detail = `${++done}/${ranges.length} chunks of ${input.count} rows done`;
      run.publish(name);
      return outcome.outputs;
    }),
  );
  return callStage(run, name, { parts });
}

/**
 * With `evaluate.chunkSize` below the number of cases: the cases in chunks, in parallel on the GPU queue (each
 * chunk scores every endpoint on its slice, with its own serve of the candidate), for the stage to merge. A chunk
 * is memoised on its own, so a re-run with the same candidate and production scores nothing twice.
 */
async function evaluateChunks(
  run: RunContext,
  extra: Record<string, unknown>,
): Promise<Array<Record<string, ArtifactRef>> | undefined> {
  const size = run.config.evaluate?.chunkSize;
  const args = argsOf(run, 'evaluate');
  const test = args.renderedTest as ArtifactRef;
  const cases = Math.min(test.count, run.config.evaluate?.limit ?? test.count);
  if (!size || cases <= size || !wf.patched('chunked-evaluate')) return undefined;
  const stage = stageOf(run, 'evaluate');
  const ranges = chunkRanges(cases, size);
  let done = 0;
  return Promise.all(
    ranges.map(async (range) => {
      const outcome = await activitiesOf<StageOutcome>(run, specOf('evaluate')).evaluateChunk!({
        ...args,
        ...extra,
        ...range,
      });
      stage.detail = `${++done}/${ranges.length} chunks of ${cases} cases scored`;
      run.publish('evaluate');
      return outcome.outputs;
    }),
  );
}

/**
 * The stages that do more than call their activity. Each returns a reason only to end the run early (the retrain
 * policy's skip). A stage is reached only when the table lists it for this config (stages.ts `appliesTo`).
 */
const STEPS: Partial<Record<StageName, (run: RunContext) => Promise<string | void>>> = {
  /** Each server listed by its own activity (in parallel), then one catalog from the listings. */
  async ingest(run) {
    const { config } = run;
    await run.runStage('ingest', async () => {
      const snapshots = await Promise.all(
        config.servers.map((server) =>
          listServerTools({ store: config.artifacts, server, maxPages: config.catalog.maxPages }),
        ),
      );
      return callStage(run, 'ingest', { snapshots });
    });
  },
  /** The retrain policy: too few new trace rows end the run here, completed, with the reason. */
  async watermark(run) {
    const { config, progress } = run;
    const traceRows = optionalOutput(progress, 'traces', 'traceRows');
    if (!config.retrain || !traceRows) return;
    const policy = config.retrain;
    let train = true;
    await run.runStage('watermark', async () => {
      const decision = await cpu.retrainCheck({
        store: config.artifacts,
        project: config.name,
        catalog: out(run, 'ingest', 'catalog'),
        traceRows,
        policy,
        force: progress.force,
      });
      train = decision.train;
      return { outputs: {}, reused: false, summary: decision.reason };
    });
    if (!train) return progress.stages.find((st) => st.name === 'watermark')!.detail;
  },
  /** LoRA SFT on the GPU queue, then the retrain watermark. A worker that dies is noticed after
   * heartbeatTimeoutSeconds; the retry resumes from the checkpoint in its last heartbeat. A bad job fails at once. */
  async train(run) {
    const { config, progress } = run;
    const outcome = await run.runStage('train', async () => {
      const trained = await callStage<TrainOutcome>(run, 'train');
      // The trace rows this run trained on are no longer new to the next run, whatever the gate decides later.
      if (config.retrain) {
        await cpu.advanceWatermark({
          store: config.artifacts,
          project: config.name,
          catalog: out(run, 'ingest', 'catalog'),
          traceRows: outputOf(progress, 'traces', 'traceRows'),
          runId: run.runId,
          workflowId: wf.workflowInfo().workflowId,
        });
      }
      return trained;
    });
    recordOutcome(run, specOf('train'), outcome);
  },
  /** The candidate scored against what the alias serves now (the base before the first deploy). */
  async evaluate(run) {
    const { config } = run;
    await run.runStage('evaluate', async () => {
      const production = config.deploy
        ? await cpu.currentVersion({ store: config.artifacts, deploy: config.deploy })
        : null;
      run.production = production;
      // The candidate's training curve: DPO's when it ran (the same value as before on runs without it).
      const trainMetrics =
        optionalOutput(run.progress, 'preference', 'metrics') ?? optionalOutput(run.progress, 'train', 'metrics');
      // Runs started before the report gained the retriever's recall replay without the catalog.
      const withCatalog = wf.patched('evaluate-retriever-recall');
      const extra = {
        adapterVersion: run.adapterVersion,
        ...(trainMetrics ? { trainMetrics } : {}),
        production,
        ...(withCatalog ? {} : { catalog: undefined }),
      };
      const parts = await evaluateChunks(run, extra);
      return callStage(run, 'evaluate', { ...extra, ...(parts ? { parts } : {}) });
    });
  },
  /** The gate's rules, then an operator's approval when it asks for one; a held candidate ends the run completed. */
  async gate(run) {
    const { config, runId, approvals } = run;
    if (!config.evaluate) return;
    const gate: GateSettings = config.gate!;
    let decision: GateDecision | undefined;
    await run.runStage('gate', async () => {
      decision = (
        await cpu.gateStage({ store: config.artifacts, runId, evalResults: out(run, 'evaluate', 'evalResults'), gate })
      ).decision;
      if (decision.promote && gate.requireApproval)
        decision = await awaitApproval(decision, gate, approvals, () => {
          stageOf(run, 'gate').detail = 'waiting for approval';
          run.publish('awaiting-approval');
        });
      // Recorded after the approval step, so the stored report carries the final decision.
      return callStage(run, 'gate', { decision });
    });
    run.decision = decision;
    run.promoted = decision?.promote === true;
  },
  /** Serve the promoted candidate and move the alias (skipped when the gate held it). */
  async deploy(run) {
    const { config, approvals } = run;
    if (!config.evaluate || !config.gate) return;
    if (!run.promoted) {
      const skipped = stageOf(run, 'deploy');
      skipped.state = 'skipped';
      skipped.detail = `not deployed: ${stageOf(run, 'gate').detail}`;
      return;
    }
    const approvedBy = approvals.decision?.approved ? approvals.decision.by : undefined;
    const { workflowId } = wf.workflowInfo();
    await run.runStage('deploy', async () => {
      const outcome = await callStage<DeployOutcome>(run, 'deploy', {
        workflowId,
        adapterVersion: run.adapterVersion,
        adapterTag: run.adapterTag,
        actor: approvedBy ?? `flywheel gate (${workflowId})`,
        reason: run.decision!.reasons.join('; '),
        expectedCurrent: run.production?.name ?? null,
      });
      run.deployedVersion = outcome.version;
      return outcome;
    });
  },
};

/** A finished stage's output, by the names stages.ts gives it. */
function out<S extends StageName>(run: RunContext, stage: S, name: OutputName<S>): ArtifactRef {
  return outputOf(run.progress, stage, name);
}

function stageOf(run: RunContext, name: StageName): StageProgress {
  return run.progress.stages.find((st) => st.name === name)!;
}

/** Wait for an operator's approve / reject; no answer in time holds the candidate. */
async function awaitApproval(
  decision: GateDecision,
  gate: GateSettings,
  approvals: Approvals,
  announce: () => void,
): Promise<GateDecision> {
  approvals.waiting = true;
  announce();
  const answered = await wf.condition(() => approvals.decision !== undefined, `${gate.approvalTimeoutMinutes} minutes`);
  approvals.waiting = false;
  const d = approvals.decision;
  if (!answered || !d)
    return {
      ...decision,
      promote: false,
      reasons: [...decision.reasons, `no approval within ${gate.approvalTimeoutMinutes} minutes`],
    };
  return {
    ...decision,
    promote: d.approved,
    reasons: [...decision.reasons, `${d.approved ? 'approved' : 'rejected'} by ${d.by}: ${d.reason}`],
  };
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v.slice(0, 500) : null;
}

function rootMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}

/** Markdown for the "current details" panel of the Temporal UI. */
function describe(p: RunProgress): string {
  const lines = [
    `**${p.project ?? 'flywheel'}**: ${p.state}${p.skipReason ? ` (stopped early: ${p.skipReason})` : ''}`,
    '',
  ];
  if (p.reason) lines.push(`started by ${p.trigger}: ${p.reason}`, '');
  for (const s of p.stages) lines.push(`- ${s.name}: ${s.state}${s.detail ? ` — ${s.detail}` : ''}`);
  return lines.join('\n');
}
