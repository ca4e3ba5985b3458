import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ArtifactStore } from '../core/artifacts/store.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import { memoized } from '../core/pipeline/memo.js';
import { normalizeTrainJob, type RunPaths } from '../core/train/job.js';
import { ensureBaseModel } from '../core/train/base-model.js';
import { isPackagedBase } from '../core/train/packaged-bases.js';
import {
  baseCacheRoot,
  BaseModelError,
  convertBase,
  startTrainer,
  type TrainerEvent,
} from '../core/train/trainer-process.js';
import { memoKeyOf, type StageArgs } from './stage.js';
import type { TrainArgs, TrainOutcome } from '../stages/train/spec.js';
import { storeFor } from './store.js';
import { DEFAULT_GPU_WORKDIR } from '../core/defaults.js';

/** What each heartbeat carries; a retry reads the last one and resumes from its checkpoint. */
export interface TrainHeartbeat {
  adapterVersion: string;
  step: number;
  total?: number;
  loss?: number;
  evalLoss?: number;
  /** The newest checkpoint, uploaded to the artifact store (a directory artifact: checkpoint/ [+ base/]). */
  checkpoint?: ArtifactRef;
  checkpointStep?: number;
}

/** Local scratch space of a GPU worker: datasets, checkpoints and outputs of the attempt in progress, evaluation servers' files. */
export function workRoot(): string {
  return resolve(process.env.FLYWHEEL_GPU_WORKDIR ?? DEFAULT_GPU_WORKDIR);
}

/** One trainer run the stage asks for: its adapter version, data and job. */
export interface TrainingPlan {
  version: string;
  format: TrainArgs['format'];
  /** The rows (SFT) or pairs (DPO) the trainer reads, downloaded to the attempt's data/. */
  data: { train: ArtifactRef; val: ArtifactRef };
  /** Other artifacts the adapter derives from (the SFT adapter a DPO pass continues). */
  parents?: ArtifactRef[];
  /** The candidate's tag in deployed names, once its adapter is stored (a DPO tag names the adapter's own hash). */
  tagOf(adapter: ArtifactRef, store: ArtifactStore): Promise<string>;
  /** The job for this attempt's paths; it may place what else it needs (a starting adapter) under `work`. */
  jobFor(work: string, paths: RunPaths): Promise<Record<string, unknown>>;
}

/** A training stage memoized by its inputs and job identity: the same inputs reuse the stored adapter. */
export async function trainMemoized(
  a: StageArgs,
  stage: 'train' | 'preference',
  identity: Record<string, unknown>,
  plan: TrainingPlan,
): Promise<TrainOutcome> {
  const store = storeFor(a.store);
  const memo = await memoized(store, memoKeyOf(stage, a, { config: identity }), () => runTrainer(store, plan), a.runId);
  return {
    outputs: memo.outputs,
    reused: memo.reused,
    summary: memo.reused ? `${memo.summary} (reused)` : memo.summary,
    adapterVersion: plan.version,
    adapterTag: await plan.tagOf(memo.outputs.adapter!, store),
  };
}

async function runTrainer(
  store: ArtifactStore,
  plan: TrainingPlan,
): Promise<{ outputs: Record<string, ArtifactRef>; summary: string }> {
  const version = plan.version;
  const ctx = Context.current();
  ctx.heartbeat(ctx.info.heartbeatDetails); // alive while the dataset downloads; keeps the last checkpoint
  const attempt = ctx.info.attempt;
  // Earlier attempts' scratch (on this worker) is stale: their checkpoints that matter are in the store.
  await rm(join(workRoot(), version), { recursive: true, force: true });
  const work = join(workRoot(), version, `attempt-${attempt}`);
  try {
    return await trainIn(work, store, plan);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A cancel the server asked for ends the activity as cancelled; a worker shutdown or timeout is retried. */
function interrupted(ctx: Context): Error {
  if (ctx.cancellationDetails?.cancelRequested)
    return new CancelledFailure('train cancelled; trainer process group killed');
  return ApplicationFailure.retryable(
    'train interrupted (worker shutting down or activity timed out); the retry resumes from the last checkpoint',
    'TrainInterrupted',
  );
}

async function trainIn(
  work: string,
  store: ArtifactStore,
  plan: TrainingPlan,
): Promise<{ outputs: Record<string, ArtifactRef>; summary: string }> {
  const ctx = Context.current();
  const { version, data } = plan;
  const parents = [data.train, data.val, ...(plan.parents ?? [])];
  const attempt = ctx.info.attempt;
  const out = join(work, 'out');
  await mkdir(join(work, 'data'), { recursive: true });
  await mkdir(out, { recursive: true });
  const trainFile = join(work, 'data', 'train.jsonl');
  const valFile = join(work, 'data', 'val.jsonl');
  await writeFile(trainFile, await store.read(data.train));
  await writeFile(valFile, await store.read(data.val));

  // Resume: the last heartbeat of an earlier attempt names an uploaded checkpoint.
  const prior = ctx.info.heartbeatDetails as TrainHeartbeat | undefined;
  let resumeFrom: string | null = null;
  // The curve so far: lines restored with the checkpoint, then this attempt's events in the order they came.
  const curve: string[] = [];
  if (prior?.checkpoint && prior.adapterVersion === version) {
    const restored = join(work, 'resume');
    await store.materializeDir(prior.checkpoint, restored);
    if (existsSync(join(restored, 'base'))) await rename(join(restored, 'base'), join(out, 'base'));
    if (existsSync(join(restored, 'metrics.jsonl'))) {
      const text = await readFile(join(restored, 'metrics.jsonl'), 'utf8');
      curve.push(...text.split('\n').filter(Boolean));
      await writeFile(join(out, 'metrics.jsonl'), text); // the trainer appends to it
    }
    resumeFrom = join(restored, 'checkpoint');
    ctx.log.info('resuming from checkpoint', { step: prior.checkpointStep, checkpoint: prior.checkpoint.sha256 });
  }

  const job = normalizeTrainJob(
    await plan.jobFor(work, { train: trainFile, val: valFile, format: plan.format, outputDir: out, resumeFrom }),
  );
  const jobFile = join(work, 'job.json');
  await writeFile(jobFile, JSON.stringify(job, null, 2));
  const tiny = String(job.baseModel).startsWith('tiny:');
  const baseCache = resolve(baseCacheRoot());
  if (isPackagedBase(String(job.baseModel))) {
    // The base every worker trains on is the stored base-model artifact: put it in this worker's cache (or
    // convert it once and store it), so the trainer finds it converted.
    const alive = setInterval(() => ctx.heartbeat(ctx.info.heartbeatDetails), 1_000); // converting takes ~20 s
    try {
      const base = await ensureBaseModel(store, String(job.baseModel), baseCache, convertBase);
      ctx.log.info('base model ready', { name: job.baseModel, artifact: base.ref.sha256, converted: base.converted });
    } catch (err) {
      if (err instanceof BaseModelError)
        throw ApplicationFailure.nonRetryable(`bad train job: ${err.message}`, 'BadTrainJob');
      throw err;
    } finally {
      clearInterval(alive);
    }
  }

  const beat: TrainHeartbeat = {
    adapterVersion: version,
    step: prior?.checkpointStep ?? 0,
    ...(prior?.checkpoint ? { checkpoint: prior.checkpoint, checkpointStep: prior.checkpointStep } : {}),
  };
  let done: TrainerEvent | undefined;
  const uploadCheckpoint = async (e: TrainerEvent): Promise<void> => {
    // checkpoint/ is what --resume reads; a tiny base travels with it because it was built from this data;
    // metrics.jsonl is the curve up to this checkpoint (events after it belong to steps a resume redoes).
    const staging = join(work, `upload-${e.step}`);
    try {
      await cp(e.checkpoint!, join(staging, 'checkpoint'), { recursive: true });
    } catch (err) {
      // The trainer rotated it out (keepCheckpoints) before we got to it; the next checkpoint will do.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        ctx.log.warn('checkpoint gone before upload; skipped', { step: e.step });
        await rm(staging, { recursive: true, force: true });
        return;
      }
      throw err;
    }
    if (tiny) await cp(join(out, 'base'), join(staging, 'base'), { recursive: true });
    await writeFile(join(staging, 'metrics.jsonl'), curve.map((l) => `${l}\n`).join(''));
    const ref = await store.putDir('train-checkpoint', staging, {
      parents,
      stats: { adapterVersion: version, step: e.step ?? 0 },
    });
    await rm(staging, { recursive: true, force: true });
    beat.checkpoint = ref;
    beat.checkpointStep = e.step;
  };
  const onEvent = async (e: TrainerEvent): Promise<void> => {
    if (e.event !== 'error') curve.push(JSON.stringify(e));
    if (e.step !== undefined) beat.step = e.step;
    if (e.total !== undefined) beat.total = e.total;
    if (e.event === 'step') beat.loss = e.loss;
    if (e.event === 'eval') beat.evalLoss = e.eval_loss;
    if (e.event === 'checkpoint' && e.checkpoint) await uploadCheckpoint(e);
    if (e.event === 'done') done = e;
    ctx.heartbeat(beat);
  };

  if (ctx.cancellationSignal.aborted) throw interrupted(ctx); // cancelled while the data downloaded
  const stderrFile = join(work, 'trainer.stderr.log');
  const run = startTrainer(['train', '--job', jobFile], {
    stderrFile,
    onEvent,
    env: { FLYWHEEL_BASE_CACHE: baseCache },
  });
  // Model loading and evals print nothing for a while; the SDK throttles these to its own interval.
  const keepAlive = setInterval(() => ctx.heartbeat(beat), 1_000);
  const onCancel = (): void => run.kill();
  ctx.cancellationSignal.addEventListener('abort', onCancel);
  let exit;
  let uploadError: unknown;
  try {
    exit = await run.done;
  } catch (err) {
    uploadError = err;
  } finally {
    clearInterval(keepAlive);
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
  }
  const trainerLog = await store.putBytes(
    'trainer-log',
    existsSync(stderrFile) ? await readFile(stderrFile) : Buffer.alloc(0),
    'text/plain',
    1,
    { parents, stats: { adapterVersion: version, attempt, exitCode: exit?.code ?? null } },
  );

  if (ctx.cancellationSignal.aborted) throw interrupted(ctx);
  if (uploadError !== undefined || !exit) {
    throw ApplicationFailure.retryable(
      `checkpoint upload failed, trainer stopped: ${(uploadError as Error)?.message ?? uploadError}`,
      'CheckpointUploadFailed',
    );
  }
  if (exit.code !== 0 || !done) {
    const why = exit.error?.message ?? (exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`);
    const message = `${exit.code === 2 ? 'bad train job' : 'trainer failed'}: ${why}\n--- stderr tail (trainer-log ${trainerLog.sha256.slice(0, 12)}) ---\n${exit.stderrTail.slice(-1500)}`;
    if (exit.code === 2) throw ApplicationFailure.nonRetryable(message, 'BadTrainJob');
    throw ApplicationFailure.retryable(message, 'TrainerFailed');
  }

  // The adapter artifact: adapter/ (+ base/ for tiny models, merged/ when asked for) and the metrics.
  const artifactDir = join(work, 'artifact');
  await cp(join(out, 'adapter'), join(artifactDir, 'adapter'), { recursive: true });
  if (tiny) await cp(join(out, 'base'), join(artifactDir, 'base'), { recursive: true });
  if (existsSync(join(out, 'merged'))) await cp(join(out, 'merged'), join(artifactDir, 'merged'), { recursive: true });
  await cp(join(out, 'metrics.jsonl'), join(artifactDir, 'metrics.jsonl'));
  const metricsText = await readFile(join(out, 'metrics.jsonl'), 'utf8');
  const firstEval = metricsText
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TrainerEvent)
    .find((e) => e.event === 'eval')?.eval_loss;
  const stats = {
    adapterVersion: version,
    baseModel: job.baseModel,
    method: job.method,
    steps: done.step,
    trainLoss: done.loss,
    evalLoss: done.eval_loss,
    firstEvalLoss: firstEval ?? null,
    resumedFromStep: resumeFrom ? prior?.checkpointStep : null,
  };
  const adapter = await store.putDir('adapter', artifactDir, { parents, stats });
  const metrics = await store.putBytes(
    'train-metrics',
    Buffer.from(metricsText),
    'application/jsonl',
    metricsText.split('\n').filter(Boolean).length,
    { parents: [adapter], stats: { adapterVersion: version } },
  );
  // Short: the run memo keeps 72 characters of it for `flywheel status`.
  const resumed = resumeFrom ? `, resumed at ${prior?.checkpointStep}` : '';
  const evalPart =
    firstEval !== undefined
      ? `eval loss ${firstEval.toFixed(3)}→${done.eval_loss?.toFixed(3)}`
      : `eval loss ${done.eval_loss?.toFixed(3)}`;
  return {
    outputs: { adapter, metrics, trainerLog },
    summary: `${version}: ${done.step} steps, ${evalPart}${resumed}`,
  };
}
