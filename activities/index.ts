import type { DomainPack } from '../core/dataset/packs.js';
import { corruptFor } from '../stages/corrupt/activity.js';
import { deploy } from '../stages/deploy/activity.js';
import { gate, gateStage } from '../stages/gate/activity.js';
import { generate } from '../stages/generate/activity.js';
import { ingest, listServerTools } from '../stages/ingest/activity.js';
import { intentsFor } from '../stages/intents/activity.js';
import { render } from '../stages/render/activity.js';
import { solve } from '../stages/solve/activity.js';
import { split } from '../stages/split/activity.js';
import { traces } from '../stages/traces/activity.js';
import { validate } from '../stages/validate/activity.js';
import { advanceWatermark, retrainCheck } from '../stages/watermark/activity.js';
import { resolveConfig } from './config.js';
import { currentVersion, rollbackStage } from './deploy.js';
import { withFormerNames } from './former-names.js';
import { stageChunk } from './stage-chunk.js';
import { storedStage } from './stage.js';

/** What a worker hands its activities: the domain packs the dataset stages draw from (workers/packs.ts). */
export interface ActivityDeps {
  packs: readonly DomainPack[];
}

/**
 * Every activity the `flywheel` task queue runs, by activity type. Each is a thin adapter over core/; the ones that
 * read domain packs are made for the worker's (the Temporal samples' dependency-injection shape).
 */
export function createActivities(deps: ActivityDeps) {
  const stages = {
    ingest,
    intents: intentsFor(deps.packs),
    generate,
    solve,
    validate,
    traces,
    corrupt: corruptFor(deps.packs),
    split,
    render,
    gate,
    deploy,
  };
  return {
    ...withFormerNames(stages),
    resolveConfig,
    listServerTools,
    stageChunk,
    storedStage,
    currentVersion,
    gateStage,
    rollbackStage,
    retrainCheck,
    advanceWatermark,
  };
}

/** The activities' types, for the workflows' proxies. */
export type FlywheelActivities = ReturnType<typeof createActivities>;
