import * as wf from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type * as activities from '../activities/index.js';
import type * as gpuActivities from '../activities/gpu.js';
import type { ServedVersion } from '../activities/evaluate.js';
import type { GateDecision } from '../core/eval/types.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import type { DatasetConfig, DeployConfig, FlywheelConfig, GateSettings, TrainConfig } from '../core/config/schema.js';
import { GPU_TASK_QUEUE } from './queues.js';
import type { FlywheelRunInput, RunProgress, StageProgress } from '../core/pipeline/types.js';
import { ADAPTER_VERSION, DATASET_SHA, DEPLOYED_VERSION, DOMAIN, FLYWHEEL_STAGE, TRIGGER } from './search-attributes.js';
import { appliesTo, CATALOG_STAGES, type OutputName, STAGES, type StageName } from './stages.js';

// The stages, their order and when each runs: workflows/stages.ts.
export { CATALOG_STAGES, DATASET_STAGES, RELEASE_STAGES, TRAIN_STAGES, type StageName } from './stages.js';

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

const { resolveConfig } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

// Listing is network-bound: heartbeats every 2 s, so a dead worker is noticed within the heartbeat timeout.
const { listServerTools } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

const { buildCatalog } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

// Dataset stages: minutes to hours with a remote teacher; the long ones heartbeat as they go.
const dataset = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

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
    wf.upsertMemo({ progress: { ...progress, stages: progress.stages.map(({ outputs: _o, detail, ...rest }) => ({ ...rest, outputs: {}, detail: detail.length > 72 ? `${detail.slice(0, 71)}…` : detail })) } });
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
      throw wf.ApplicationFailure.create({ message: `stage ${name} failed: ${stage.detail}`, type: 'StageFailed', nonRetryable: true, cause: err as Error });
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
    throw wf.ApplicationFailure.create({ message: `config: ${rootMessage(err)}`, type: 'ConfigError', nonRetryable: true, cause: err as Error });
  }
  progress.stages.push(...STAGES.filter((s) => s.group !== 'catalog' && appliesTo(s.name, config)).map((s) => pendingStage(s.name)));
  publish('starting');

  const runId = wf.workflowInfo().runId;
  await runStage('ingest', async () => {
    const snapshots = await Promise.all(
      config.servers.map((server) => listServerTools({ store: config.artifacts, server, maxPages: config.catalog.maxPages })),
    );
    const result = await buildCatalog({ store: config.artifacts, project: config.name, catalog: config.catalog, snapshots, runId });
    return result;
  });

  const skipReason = config.dataset ? await buildDataset(config, config.dataset, progress.force, runId, runStage, progress) : undefined;
  if (skipReason) {
    // Not enough new data: the run ends here, completed, with the reason on the run and every later stage.
    for (const s of progress.stages) if (s.state === 'pending') Object.assign(s, { state: 'skipped', detail: 'skipped: not enough new data (see watermark)' });
    progress.skipReason = skipReason;
    progress.state = 'completed';
    publish('skipped');
    return progress;
  }
  if (config.dataset && config.train) {
    const adapterVersion = await trainAdapter(config, config.dataset, config.train, runId, runStage, progress);
    if (config.evaluate) {
      const deployed = await releaseCandidate({ config, datasetConfig: config.dataset, train: config.train, adapterVersion, runId, runStage, progress, approvals, publish });
      if (deployed) labels.push({ key: DEPLOYED_VERSION, value: deployed });
    }
  }

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
    if (!state.waiting) throw new Error(state.decision ? `already ${state.decision.approved ? 'approved' : 'rejected'} by ${state.decision.by}` : 'this run is not waiting for approval');
    if (!a?.by?.trim() || !a?.reason?.trim()) throw new Error('give who decides (by) and why (reason)');
  };
  const decide = (approved: boolean) => (a: ApprovalInput): string => {
    state.decision = { by: a.by.trim(), reason: a.reason.trim(), approved };
    state.waiting = false;
    return `${approved ? 'approved' : 'rejected'} by ${state.decision.by}`;
  };
  wf.setHandler(approveUpdate, decide(true), { validator: validate });
  wf.setHandler(rejectUpdate, decide(false), { validator: validate });
  // A signal cannot answer back: one that does not apply is logged and dropped.
  const fromSignal = (approved: boolean) => (a: ApprovalInput): void => {
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

/** A finished stage's output, by the names stages.ts gives it. */
function outputOf<S extends StageName>(progress: RunProgress, stage: S, name: OutputName<S>): ArtifactRef {
  return progress.stages.find((s) => s.name === stage)!.outputs[name]!;
}

/** An output that exists only on some runs (train metrics from older trainers). */
function optionalOutput<S extends StageName>(progress: RunProgress, stage: S, name: OutputName<S>): ArtifactRef | undefined {
  return progress.stages.find((s) => s.name === stage)!.outputs[name];
}

function pendingStage(name: StageName): StageProgress {
  return { name, state: 'pending', outputs: {}, startedAt: null, finishedAt: null, detail: '' };
}

type StageRunner = (name: StageName, body: () => Promise<StageOutcome>) => Promise<StageOutcome>;

/**
 * intents -> generate -> solve -> validate -> (traces -> watermark) -> corrupt -> split -> render, each stage's
 * refs feeding the next. Returns why it stopped early when the retrain policy finds too little new data.
 */
async function buildDataset(config: FlywheelConfig, datasetConfig: DatasetConfig, force: boolean, runId: string, runStage: StageRunner, progress: RunProgress): Promise<string | undefined> {
  const out = <S extends StageName>(stage: S, name: OutputName<S>): ArtifactRef => outputOf(progress, stage, name);
  const common = { store: config.artifacts, runId, dataset: datasetConfig };
  const catalog = out('ingest', 'catalog');
  await runStage('intents', () => dataset.intentsStage({ ...common, catalog, servers: config.servers }));
  await runStage('generate', () => dataset.generateStage({ ...common, intents: out('intents', 'intents') }));
  await runStage('solve', () => dataset.solveStage({ ...common, catalog, intents: out('intents', 'intents'), requests: out('generate', 'requests') }));
  await runStage('validate', () => dataset.validateStage({ ...common, catalog, intents: out('intents', 'intents'), candidates: out('solve', 'candidates'), servers: config.servers }));
  let traceRows: ArtifactRef | undefined;
  if ((config.traces ?? []).length > 0) {
    await runStage('traces', () => dataset.tracesStage({ ...common, catalog, traces: config.traces ?? [] }));
    traceRows = out('traces', 'traceRows');
  }
  if (config.retrain && traceRows) {
    const policy = config.retrain;
    const rows = traceRows;
    let train = true;
    await runStage('watermark', async () => {
      const decision = await cpu.retrainCheck({ store: config.artifacts, project: config.name, catalog, traceRows: rows, policy, force });
      train = decision.train;
      return { outputs: {}, reused: false, summary: decision.reason };
    });
    if (!train) return progress.stages.find((s) => s.name === 'watermark')!.detail;
  }
  await runStage('corrupt', () => dataset.corruptStage({ ...common, catalog, validated: out('validate', 'validated'), pools: out('intents', 'pools'), servers: config.servers, ...(traceRows ? { traceRows } : {}) }));
  const split = await runStage('split', () => dataset.splitStage({ ...common, project: config.name, catalog, augmented: out('corrupt', 'augmented') }));
  wf.upsertSearchAttributes([{ key: DATASET_SHA, value: split.outputs.train!.sha256 }]);
  await runStage('render', () => dataset.renderStage({ ...common, catalog, train: out('split', 'train'), val: out('split', 'val'), test: out('split', 'test') }));
  return undefined;
}

/** LoRA SFT on the GPU queue. A worker that dies is noticed after heartbeatTimeoutSeconds; the retry resumes
 * from the checkpoint in its last heartbeat. A bad job fails at once. */
async function trainAdapter(config: FlywheelConfig, datasetConfig: DatasetConfig, train: TrainConfig, runId: string, runStage: StageRunner, progress: RunProgress): Promise<string> {
  const gpu = wf.proxyActivities<typeof gpuActivities>({
    taskQueue: GPU_TASK_QUEUE,
    startToCloseTimeout: '72 hours',
    heartbeatTimeout: `${train.heartbeatTimeoutSeconds} seconds`,
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: train.maxAttempts },
  });
  let version = '';
  await runStage('train', async () => {
    const outcome = await gpu.trainStage({ store: config.artifacts, runId, train: outputOf(progress, 'render', 'renderedTrain'), val: outputOf(progress, 'render', 'renderedVal'), format: datasetConfig.render.format, settings: train });
    version = outcome.adapterVersion;
    // The trace rows this run trained on are no longer new to the next run, whatever the gate decides later.
    if (config.retrain) {
      await cpu.advanceWatermark({ store: config.artifacts, project: config.name, catalog: outputOf(progress, 'ingest', 'catalog'), traceRows: outputOf(progress, 'traces', 'traceRows'), runId, workflowId: wf.workflowInfo().workflowId });
    }
    return outcome;
  });
  wf.upsertSearchAttributes([{ key: ADAPTER_VERSION, value: version }]);
  return version;
}

const cpu = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

interface ReleaseContext {
  config: FlywheelConfig;
  datasetConfig: DatasetConfig;
  train: TrainConfig;
  adapterVersion: string;
  runId: string;
  runStage: StageRunner;
  progress: RunProgress;
  approvals: Approvals;
  publish: (current: string) => void;
}

/**
 * evaluate → gate → (approval) → deploy. The candidate is scored against what the alias serves now; a held
 * candidate ends the run completed, with the gate's reasons on the stage, and nothing deployed.
 */
/** Returns the version it deployed, if it did. */
async function releaseCandidate({ config, datasetConfig, train, adapterVersion, runId, runStage, progress, approvals, publish }: ReleaseContext): Promise<string | undefined> {
  const out = <S extends StageName>(stage: S, name: OutputName<S>): ArtifactRef => outputOf(progress, stage, name);
  const stage = (name: StageName): StageProgress => progress.stages.find((s) => s.name === name)!;
  const gpu = wf.proxyActivities<typeof gpuActivities>({
    taskQueue: GPU_TASK_QUEUE,
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '5 minutes',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
  });
  // What the alias serves when the candidate is scored: the deploy moves the alias only from this version.
  const seen: { production: ServedVersion | null } = { production: null };
  await runStage('evaluate', async () => {
    const production = config.deploy ? await cpu.currentVersion({ store: config.artifacts, deploy: config.deploy }) : null;
    seen.production = production;
    return gpu.evaluateStage({
      store: config.artifacts,
      runId,
      renderedTest: out('render', 'renderedTest'),
      test: out('split', 'test'),
      adapter: out('train', 'adapter'),
      adapterVersion,
      ...(optionalOutput(progress, 'train', 'metrics') ? { trainMetrics: optionalOutput(progress, 'train', 'metrics') } : {}),
      evaluate: config.evaluate!,
      teacher: datasetConfig.teacher,
      production,
      // Runs started before the report gained the retriever's recall replay without the catalog.
      ...(wf.patched('evaluate-retriever-recall') ? { catalog: out('ingest', 'catalog') } : {}),
    });
  });
  if (!config.gate) return;
  const gate: GateSettings = config.gate;
  let decision: GateDecision | undefined;
  await runStage('gate', async () => {
    decision = (await cpu.gateStage({ store: config.artifacts, runId, evalResults: out('evaluate', 'evalResults'), gate })).decision;
    if (decision.promote && gate.requireApproval) decision = await awaitApproval(decision, gate, approvals, () => {
      stage('gate').detail = 'waiting for approval';
      publish('awaiting-approval');
    });
    // Recorded after the approval step, so the stored report carries the final decision.
    return cpu.recordGate({ store: config.artifacts, runId, evalResults: out('evaluate', 'evalResults'), decision });
  });
  if (!config.deploy) return;
  if (!decision?.promote) {
    const skipped = stage('deploy');
    skipped.state = 'skipped';
    skipped.detail = `not deployed: ${stage('gate').detail}`;
    return;
  }
  const deploy: DeployConfig = config.deploy;
  const approvedBy = approvals.decision?.approved ? approvals.decision.by : undefined;
  let deployed: string | undefined;
  await runStage('deploy', async () => {
    const outcome = await cpu.deployStage({
      store: config.artifacts,
      runId,
      workflowId: wf.workflowInfo().workflowId,
      deploy,
      adapter: out('train', 'adapter'),
      adapterVersion,
      train: out('render', 'renderedTrain'),
      val: out('render', 'renderedVal'),
      settings: train,
      format: datasetConfig.render.format,
      renderedTest: out('render', 'renderedTest'),
      evalReport: out('gate', 'evalReport'),
      actor: approvedBy ?? `flywheel gate (${wf.workflowInfo().workflowId})`,
      reason: decision!.reasons.join('; '),
      expectedCurrent: seen.production?.name ?? null,
    });
    deployed = outcome.version;
    return outcome;
  });
  return deployed;
}

/** Wait for an operator's approve / reject; no answer in time holds the candidate. */
async function awaitApproval(decision: GateDecision, gate: GateSettings, approvals: Approvals, announce: () => void): Promise<GateDecision> {
  approvals.waiting = true;
  announce();
  const answered = await wf.condition(() => approvals.decision !== undefined, `${gate.approvalTimeoutMinutes} minutes`);
  approvals.waiting = false;
  const d = approvals.decision;
  if (!answered || !d) return { ...decision, promote: false, reasons: [...decision.reasons, `no approval within ${gate.approvalTimeoutMinutes} minutes`] };
  return { ...decision, promote: d.approved, reasons: [...decision.reasons, `${d.approved ? 'approved' : 'rejected'} by ${d.by}: ${d.reason}`] };
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
  const lines = [`**${p.project ?? 'flywheel'}**: ${p.state}${p.skipReason ? ` (stopped early: ${p.skipReason})` : ''}`, ''];
  if (p.reason) lines.push(`started by ${p.trigger}: ${p.reason}`, '');
  for (const s of p.stages) lines.push(`- ${s.name}: ${s.state}${s.detail ? ` — ${s.detail}` : ''}`);
  return lines.join('\n');
}
