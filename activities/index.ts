import type { DomainPack } from '../core/dataset/packs.js';
import { resolveConfig } from './config.js';
import {
  generateStage,
  renderStage,
  solveStage,
  splitStage,
  stageChunk,
  tracesStage,
  validateStage,
} from './dataset.js';
import { currentVersion, deployStage, gateStage, recordGate, rollbackStage } from './deploy.js';
import { buildCatalog, listServerTools } from './ingest.js';
import { packStages } from './pack-stages.js';
import { storedStage } from './stage.js';
import { advanceWatermark, retrainCheck } from './watermark.js';

/** What a worker hands its activities: the domain packs the dataset stages draw from (workers/packs.ts). */
export interface ActivityDeps {
  packs: readonly DomainPack[];
}

/**
 * Every activity the `flywheel` task queue runs, by activity type. Each is a thin adapter over core/; the ones that
 * read domain packs are made for the worker's (the Temporal samples' dependency-injection shape).
 */
export function createActivities(deps: ActivityDeps) {
  return {
    resolveConfig,
    listServerTools,
    buildCatalog,
    ...packStages(deps.packs),
    generateStage,
    solveStage,
    validateStage,
    stageChunk,
    tracesStage,
    splitStage,
    renderStage,
    storedStage,
    currentVersion,
    gateStage,
    recordGate,
    deployStage,
    rollbackStage,
    retrainCheck,
    advanceWatermark,
  };
}

/** The activities' types, for the workflows' proxies. */
export type FlywheelActivities = ReturnType<typeof createActivities>;
