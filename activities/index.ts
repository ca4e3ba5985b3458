/** Every activity the `flywheel` task queue runs. Each is a thin adapter over core/. */
export { resolveConfig } from './config.js';
export { listServerTools, buildCatalog } from './ingest.js';
export {
  intentsStage,
  generateStage,
  solveStage,
  validateStage,
  stageChunk,
  tracesStage,
  corruptStage,
  splitStage,
  renderStage,
} from './dataset.js';
export { storedStage } from './stage.js';
export { currentVersion, gateStage, recordGate, deployStage, rollbackStage } from './deploy.js';
export { retrainCheck, advanceWatermark } from './watermark.js';
