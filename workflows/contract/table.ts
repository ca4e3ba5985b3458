/**
 * The pipeline as data: every stage of flywheelRun in run order, which config makes it run, whether it has an
 * activity (typed by the stage's name), what its outputs are called, what its activity reads and what keys its memo.
 * The workflow builds a run's stage list from this table; `flywheel status` and gc find a stage's outputs in a run's
 * history through it; the benches print their stages from it. Pure data, no I/O: the workflow reaches it as ./
 * (the stage contract: docs/layout.md).
 *
 * Adding a stage: its entry here and its folder stages/<name>/ (spec.ts: what its activity takes and gives;
 * activity.ts: the activity, named as the stage, a `runStage` over its `core/` function). The run
 * loops over this table and calls each activity with the arguments the entry names; only stages that do more
 * than that (the approval wait, the retrain skip) have a step of their own in workflows/flywheel-run.ts.
 * test/fast/stages.test.ts checks the table against itself and against recorded histories of whole runs.
 */
import type { ActivityOptions } from '@temporalio/common';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { FlywheelConfig, TrainConfig } from '../../core/config/schema.js';
import type { ChunkRange } from '../../core/pipeline/chunks.js';

export type StageGroup = 'catalog' | 'dataset' | 'train' | 'release';

/**
 * How long a stage's activities may take, how often they must heartbeat (a dead worker is noticed within that),
 * and how they are retried. Only TransientErrors are retried: InputErrors fail at once (core/errors.ts).
 */
export const PROFILES = {
  /** Reading the config: quick, a few tries. */
  config: { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } },
  /** Listing a server: network-bound, heartbeats every 2 s. */
  listing: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
  },
  /** Checking the listings and writing the catalog. */
  catalog: { startToCloseTimeout: '5 minutes', retry: { maximumAttempts: 3 } },
  /** Dataset stages: minutes to hours with a remote teacher; the long ones heartbeat as they go. */
  dataset: {
    startToCloseTimeout: '4 hours',
    heartbeatTimeout: '2 minutes',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
  },
  /**
   * One chunk of a row-parallel stage: short, and beating with every row, so a worker that dies is noticed within
   * 30 s and another takes its chunk over. Never dispatched eagerly: eager dispatch would hand every chunk to the
   * worker that ran the workflow task, instead of spreading them over every worker polling the queue.
   */
  chunk: {
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30 seconds',
    allowEagerDispatch: false,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
  },
  /** Scoring the candidate, on a GPU worker that serves it. */
  scoring: {
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '5 minutes',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
  },
  /** Short CPU activities: the gate, deploy, the watermark, looking up what an alias serves. */
  control: {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 minutes',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
  },
} as const satisfies Record<string, ActivityOptions>;

/** Training's profile comes from its config: a silent GPU worker is presumed dead after heartbeatTimeoutSeconds. */
export function trainingProfile(train: TrainConfig): ActivityOptions {
  return {
    startToCloseTimeout: '72 hours',
    heartbeatTimeout: `${train.heartbeatTimeoutSeconds} seconds`,
    retry: {
      initialInterval: '5 seconds',
      backoffCoefficient: 2,
      maximumInterval: '5 minutes',
      maximumAttempts: train.maxAttempts,
    },
  };
}

export interface StageSpec {
  name: string;
  group: StageGroup;
  /**
   * Whether the stage has an activity of its own (stages/<name>/activity.ts), registered under the stage's name, whose
   * result is `{outputs, summary}`; false for one that records no artifacts (the watermark).
   */
  activity: boolean;
  /**
   * The type its activity had before activity types were stage names. Histories recorded then call it, so workers
   * register it as well and the workflow calls it on those runs; status reads either.
   */
  formerActivity?: string;
  /** Task queue: the GPU workers' for training and scoring, the CPU workers' for the rest. */
  queue: 'cpu' | 'gpu';
  /** Its activity's timeouts and retries (PROFILES; train's from its config). */
  profile: keyof typeof PROFILES | 'training';
  /** The outputs' names, as later stages and `flywheel status` read them. */
  outputs: readonly string[];
  /** When the stage runs, in words (`appliesTo` is the rule). */
  runsWhen: string;
  /** Runs only with config beyond its group's (traces, a retrain policy): the stages around it do not wait for it. */
  optional?: boolean;
  /**
   * Part of the stage's memo key (and of adapter versions, for train): bump it when the stage's code changes what
   * it produces for the same inputs and config, so earlier results are not reused. Null: nothing memoised.
   */
  version: string | null;
  /**
   * Its activity's arguments from earlier stages: argument → `stage.output`, in the order they key the memo; a
   * trailing `?` marks one a run may lack (a stage this config does not list); `a.x|b.y` takes the first of them
   * the run has (the preference adapter when DPO ran, else train's). Every activity also gets `store` (the config's
   * `artifacts`) and `runId`.
   */
  inputs?: Readonly<Record<string, string>>;
  /** Its activity's arguments from the run's config: argument → config path (`dataset`, `dataset.render.format`). */
  config?: Readonly<Record<string, string>>;
  /**
   * Paths into its activity's arguments whose values key the memo, each under its last segment, so a config edit
   * elsewhere keeps the memo. The activity adds what it learns at run time (core/pipeline/memo.ts has the key).
   */
  keyedBy?: readonly string[];
  /**
   * A row-parallel stage: the input argument whose rows it splits into `dataset.chunkSize` chunks, each run as a
   * `stageChunk` activity (any worker), before its own activity merges them in order.
   */
  chunkedBy?: string;
  /**
   * Its result names the candidate (`adapterVersion`, `adapterTag`): later stages evaluate and deploy that adapter,
   * and the run's AdapterVersion search attribute says which it is.
   */
  namesCandidate?: boolean;
  /** An output whose sha256 becomes a search attribute when the stage finishes, so the UI finds every run that made it. */
  indexes?: { output: string; attribute: 'DatasetSha' };
}

export const STAGES = [
  {
    name: 'ingest',
    version: '1',
    group: 'catalog',
    activity: true,
    formerActivity: 'buildCatalog',
    queue: 'cpu',
    profile: 'catalog',
    outputs: ['catalog', 'catalogDiff'],
    runsWhen: 'always',
    config: { project: 'name', catalog: 'catalog' },
    keyedBy: ['project', 'catalog'],
  },
  {
    name: 'intents',
    version: '3',
    group: 'dataset',
    activity: true,
    formerActivity: 'intentsStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['intents', 'pools'],
    runsWhen: 'a `dataset` section',
    inputs: { catalog: 'ingest.catalog' },
    config: { dataset: 'dataset', servers: 'servers' },
    keyedBy: [
      'servers',
      'dataset.seed',
      'dataset.perGoal',
      'dataset.minPerTool',
      'dataset.split',
      'dataset.unsatisfiableShare',
      'dataset.personas',
    ],
  },
  {
    name: 'generate',
    version: '2',
    group: 'dataset',
    activity: true,
    formerActivity: 'generateStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['requests'],
    runsWhen: 'a `dataset` section',
    inputs: { intents: 'intents.intents' },
    config: { dataset: 'dataset' },
    keyedBy: ['dataset.seed', 'dataset.teacher'],
    chunkedBy: 'intents',
  },
  {
    name: 'solve',
    version: '2',
    group: 'dataset',
    activity: true,
    formerActivity: 'solveStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['candidates'],
    runsWhen: 'a `dataset` section',
    inputs: { catalog: 'ingest.catalog', intents: 'intents.intents', requests: 'generate.requests' },
    config: { dataset: 'dataset' },
    keyedBy: ['dataset.seed', 'dataset.teacher'],
    chunkedBy: 'requests',
  },
  {
    name: 'validate',
    version: '3',
    group: 'dataset',
    activity: true,
    formerActivity: 'validateStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['validated', 'rejections'],
    runsWhen: 'a `dataset` section',
    inputs: { catalog: 'ingest.catalog', intents: 'intents.intents', candidates: 'solve.candidates' },
    config: { dataset: 'dataset', servers: 'servers' },
    keyedBy: [
      'servers',
      'dataset.sliceSize',
      'dataset.minSliceSize',
      'dataset.slicing',
      'dataset.seed',
      'dataset.personas',
    ],
    chunkedBy: 'candidates',
  },
  {
    name: 'traces',
    // 3: records in the OpenAI chat / Responses and Anthropic log formats read, one ingest over every file (a
    // conversation logged twice is one row, whatever its call ids). 4: the router's own gateway answers are not
    // labels (router_answer), only the decision of an escalated one is; OpenTelemetry GenAI (otel-genai) read;
    // traces counted as read.
    version: '4',
    group: 'dataset',
    activity: true,
    formerActivity: 'tracesStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['traceRows', 'traceRejections'],
    runsWhen: 'a `dataset` section and `traces` sources',
    optional: true,
    // Keyed by the trace files' contents and paths, which the activity reads first (a directory's files change).
    inputs: { catalog: 'ingest.catalog' },
    config: { dataset: 'dataset', traces: 'traces' },
  },
  {
    name: 'watermark',
    version: null,
    group: 'dataset',
    activity: false,
    queue: 'cpu',
    profile: 'control',
    outputs: [],
    runsWhen: 'a `dataset` section, `traces` and `retrain`',
    optional: true,
  },
  {
    name: 'corrupt',
    version: '2',
    group: 'dataset',
    activity: true,
    formerActivity: 'corruptStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['augmented'],
    runsWhen: 'a `dataset` section',
    inputs: {
      catalog: 'ingest.catalog',
      validated: 'validate.validated',
      pools: 'intents.pools',
      traceRows: 'traces.traceRows?',
    },
    config: { dataset: 'dataset', servers: 'servers' },
    keyedBy: [
      'servers',
      'dataset.negativeShare',
      'dataset.sliceSize',
      'dataset.minSliceSize',
      'dataset.slicing',
      'dataset.seed',
      'dataset.personas',
    ],
  },
  {
    name: 'split',
    // 4: under dataset.maxPerTool the cap keeps trace rows first (the same output where no row came from a trace).
    version: '4',
    group: 'dataset',
    activity: true,
    formerActivity: 'splitStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['train', 'val', 'test'],
    // Find every run that trained on a dataset: DatasetSha = the train split's sha256.
    indexes: { output: 'train', attribute: 'DatasetSha' },
    runsWhen: 'a `dataset` section',
    // Also keyed by the test set pinned for the catalog version, which the activity looks up.
    inputs: { catalog: 'ingest.catalog', augmented: 'corrupt.augmented' },
    config: { dataset: 'dataset', project: 'name' },
    keyedBy: [
      'project',
      'dataset.split',
      'dataset.seed',
      'dataset.minPerTool',
      'dataset.negativeShare',
      // Absent unless set, so configs without them keep their keys.
      'dataset.maxPerTool',
      'dataset.traceShare',
    ],
  },
  {
    name: 'render',
    version: '6',
    group: 'dataset',
    activity: true,
    formerActivity: 'renderStage',
    queue: 'cpu',
    profile: 'dataset',
    outputs: ['renderedTrain', 'renderedVal', 'renderedTest', 'pairsTrain', 'pairsVal', 'pairsTest'],
    runsWhen: 'a `dataset` section',
    inputs: { catalog: 'ingest.catalog', train: 'split.train', val: 'split.val', test: 'split.test' },
    config: { dataset: 'dataset' },
    keyedBy: ['dataset.render.format'],
  },
  {
    name: 'train',
    version: '4',
    group: 'train',
    activity: true,
    formerActivity: 'trainStage',
    queue: 'gpu',
    profile: 'training',
    outputs: ['adapter', 'metrics', 'trainerLog'],
    namesCandidate: true,
    runsWhen: '`dataset` and `train` sections',
    // Keyed by the normalised job (core/train/job.ts), which also names the adapter version.
    inputs: { train: 'render.renderedTrain', val: 'render.renderedVal' },
    config: { settings: 'train', format: 'dataset.render.format' },
  },
  {
    name: 'preference',
    version: '1',
    group: 'train',
    activity: true,
    formerActivity: 'preferenceStage',
    queue: 'gpu',
    profile: 'training',
    outputs: ['adapter', 'metrics', 'trainerLog'],
    // DPO continues train's adapter: its adapter becomes the candidate.
    namesCandidate: true,
    runsWhen: '`dataset`, `train` and `preference` sections',
    optional: true,
    // Keyed by the normalised DPO job; the SFT adapter it continues is an input.
    inputs: { sft: 'train.adapter', pairs: 'render.pairsTrain', pairsVal: 'render.pairsVal' },
    config: { settings: 'train', preference: 'preference', format: 'dataset.render.format' },
  },
  {
    name: 'evaluate',
    // 6: one router contract (core/router/answer.ts) and the checks after the answer for every endpoint. 7: the
    // schema check among them. 8: the candidate's confidence per case and the report's calibration.
    version: '8',
    group: 'release',
    activity: true,
    formerActivity: 'evaluateStage',
    queue: 'gpu',
    profile: 'scoring',
    outputs: ['evalResults'],
    runsWhen: '`train` and `evaluate` sections',
    // Also keyed by the teacher's endpoint when it is scored; `production` is what the alias served at the time.
    inputs: {
      renderedTest: 'render.renderedTest',
      test: 'split.test',
      adapter: 'preference.adapter|train.adapter',
      catalog: 'ingest.catalog?',
    },
    config: { evaluate: 'evaluate', teacher: 'dataset.teacher' },
    keyedBy: ['evaluate', 'production'],
  },
  {
    name: 'gate',
    version: null,
    group: 'release',
    activity: true,
    formerActivity: 'recordGate',
    queue: 'cpu',
    profile: 'control',
    outputs: ['evalReport'],
    runsWhen: '`train`, `evaluate` and `gate` sections',
    inputs: { evalResults: 'evaluate.evalResults' },
  },
  {
    name: 'deploy',
    version: null,
    group: 'release',
    activity: true,
    formerActivity: 'deployStage',
    queue: 'cpu',
    profile: 'control',
    outputs: ['deployment'],
    runsWhen: '`train`, `evaluate`, `gate` and `deploy` sections (skipped when the gate holds)',
    // The candidate's version and tag come from train or preference, as they named it.
    inputs: {
      adapter: 'preference.adapter|train.adapter',
      renderedTest: 'render.renderedTest',
      evalReport: 'gate.evalReport',
    },
    config: { deploy: 'deploy' },
  },
] as const satisfies readonly StageSpec[];

export type StageName = (typeof STAGES)[number]['name'];
/** The names of a stage's outputs, typed from the table. */
export type OutputName<S extends StageName> = Extract<(typeof STAGES)[number], { name: S }>['outputs'][number];

const ofGroup = <G extends StageGroup>(group: G) => STAGES.filter((s) => s.group === group).map((s) => s.name);
export const CATALOG_STAGES = ofGroup('catalog');
export const DATASET_STAGES = ofGroup('dataset');
export const TRAIN_STAGES = ofGroup('train');
export const RELEASE_STAGES = ofGroup('release');

/** Whether `stage` is part of a run of `config` (the stages it lists, pending, before any runs). */
export function appliesTo(
  stage: StageName,
  config: Pick<
    FlywheelConfig,
    'dataset' | 'train' | 'preference' | 'traces' | 'retrain' | 'evaluate' | 'gate' | 'deploy'
  >,
): boolean {
  const spec = specOf(stage);
  switch (spec.group) {
    case 'catalog':
      return true;
    case 'dataset':
      // Configs recorded before `traces` existed lack the key: treat it as empty.
      if (stage === 'traces') return config.dataset !== undefined && (config.traces ?? []).length > 0;
      if (stage === 'watermark') return config.dataset !== undefined && config.retrain !== undefined;
      return config.dataset !== undefined;
    case 'train':
      // Configs recorded before preference tuning existed lack the key: no preference stage.
      if (stage === 'preference')
        return config.dataset !== undefined && config.train !== undefined && config.preference !== undefined;
      return config.dataset !== undefined && config.train !== undefined;
    case 'release':
      return config.train !== undefined && config[stage as 'evaluate' | 'gate' | 'deploy'] !== undefined;
  }
}

/** A memoised stage's version, from the table. */
export function stageVersion(stage: StageName): string {
  const version = specOf(stage).version;
  if (version === null) throw new Error(`stage ${stage} is not memoised: it has no version`);
  return version;
}

/**
 * Activity type → the stage whose outputs its result carries (how status and gc read a run's history): the stage's
 * name, and its former type for runs recorded before.
 */
export const STAGE_OF_ACTIVITY: Readonly<Record<string, StageName>> = Object.fromEntries(
  STAGES.filter((s) => s.activity).flatMap((s) => [
    [s.name, s.name],
    ...(s.formerActivity ? [[s.formerActivity, s.name]] : []),
  ]),
);

export function specOf(stage: StageName): StageSpec {
  return STAGES.find((s) => s.name === stage)!;
}

/** The value at a dotted path (`dataset.render.format`); undefined when any part is missing. */
export function valueAt(root: unknown, path: string): unknown {
  let v = root;
  for (const key of path.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** The outputs an input binding reads (`stage.output`, alternatives joined by `|`, `?` when a run may lack them all). */
export function bindingSources(binding: string): {
  sources: Array<{ from: StageName; output: string }>;
  optional: boolean;
} {
  const optional = binding.endsWith('?');
  const sources = binding
    .replace(/\?$/, '')
    .split('|')
    .map((b) => {
      const [from, output] = b.split('.') as [StageName, string];
      return { from, output };
    });
  return { sources, optional };
}

/** What every stage activity gets, and the arguments its entry names. */
export type StageCallArgs = { store: FlywheelConfig['artifacts']; runId: string } & Record<string, unknown>;

/**
 * A stage activity's arguments, as the table names them: `store` and `runId`, its config paths, and the outputs of
 * the earlier stages it reads (`outputsOf` gives a stage's outputs; undefined for a stage the run does not list).
 */
export function stageArgs(
  stage: StageName,
  config: FlywheelConfig,
  runId: string,
  outputsOf: (stage: StageName) => Readonly<Record<string, ArtifactRef>> | undefined,
): StageCallArgs {
  const spec = specOf(stage);
  const args: StageCallArgs = { store: config.artifacts, runId };
  for (const [arg, path] of Object.entries(spec.config ?? {})) {
    const v = valueAt(config, path);
    if (v !== undefined) args[arg] = v;
  }
  for (const [arg, binding] of Object.entries(spec.inputs ?? {})) {
    const { sources, optional } = bindingSources(binding);
    const ref = sources.map(({ from, output }) => outputsOf(from)?.[output]).find((r) => r !== undefined);
    if (ref) args[arg] = ref;
    else if (!optional)
      throw new Error(
        `stage ${stage} needs ${sources.map(({ from, output }) => `${from}'s ${output}`).join(' or ')}, which this run has not produced`,
      );
  }
  return args;
}

/** What keys a stage's memo, from its activity's arguments: the input artifacts (table order) and the `keyedBy` values. */
export function memoParts(
  stage: StageName,
  args: Readonly<Record<string, unknown>>,
): { inputs: ArtifactRef[]; config: Record<string, unknown> } {
  const spec = specOf(stage);
  const inputs = Object.keys(spec.inputs ?? {})
    .map((arg) => args[arg] as ArtifactRef | undefined)
    .filter((r): r is ArtifactRef => r !== undefined);
  const config: Record<string, unknown> = {};
  for (const path of spec.keyedBy ?? []) config[path.slice(path.lastIndexOf('.') + 1)] = valueAt(args, path);
  return { inputs, config };
}

export type { ChunkRange };

/** The ranges covering `count` rows, `size` at a time (the last one shorter). */
export function chunkRanges(count: number, size: number): ChunkRange[] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, not ${size}`);
  const out: ChunkRange[] = [];
  for (let from = 0; from < count; from += size) out.push({ from, to: Math.min(count, from + size) });
  return out;
}
