import * as wf from '@temporalio/workflow';
import type * as activities from '../activities/index.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import type { FlywheelConfig } from '../core/config/schema.js';
import type { FlywheelRunInput, RunProgress, StageProgress } from '../core/pipeline/types.js';
import { FLYWHEEL_STAGE } from './search-attributes.js';

/** The stages this build runs, in order. Later stages join the list when they exist. */
export const STAGES = ['ingest'] as const;
export type StageName = (typeof STAGES)[number];

export const progressQuery = wf.defineQuery<RunProgress>('progress');

const NON_RETRYABLE = ['ConfigError', 'ArtifactError'];

const { resolveConfig } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});

// Listing is network-bound: heartbeats every 2 s, so a dead worker is noticed within the heartbeat timeout.
const { listServerTools } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE },
});

const { buildCatalog } = wf.proxyActivities<typeof activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
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
    resumeOf: input.resumeOf ?? null,
    trigger: input.trigger ?? 'ui',
    stages: STAGES.map((name) => ({ name, state: 'pending', outputs: {}, startedAt: null, finishedAt: null, detail: '' })),
  };
  wf.setHandler(progressQuery, () => progress);

  const publish = (current: string): void => {
    wf.upsertMemo({ progress });
    wf.upsertSearchAttributes([{ key: FLYWHEEL_STAGE, value: current }]);
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
      stage.detail = rootMessage(err);
      progress.state = 'failed';
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
    progress.configRef = resolved.configRef;
    progress.configStore = config.artifacts.store;
  } catch (err) {
    progress.state = 'failed';
    publish('failed');
    throw wf.ApplicationFailure.create({ message: `config: ${rootMessage(err)}`, type: 'ConfigError', nonRetryable: true, cause: err as Error });
  }
  publish('starting');

  const runId = wf.workflowInfo().runId;
  await runStage('ingest', async () => {
    const snapshots = await Promise.all(
      config.servers.map((server) => listServerTools({ store: config.artifacts, server, maxPages: config.catalog.maxPages })),
    );
    const result = await buildCatalog({ store: config.artifacts, project: config.name, catalog: config.catalog, snapshots, runId });
    return result;
  });

  progress.state = 'completed';
  publish('done');
  return progress;
}

function rootMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}

/** Markdown for the "current details" panel of the Temporal UI. */
function describe(p: RunProgress): string {
  const lines = [`**${p.project ?? 'flywheel'}**: ${p.state}`, ''];
  for (const s of p.stages) lines.push(`- ${s.name}: ${s.state}${s.detail ? ` — ${s.detail}` : ''}`);
  return lines.join('\n');
}
