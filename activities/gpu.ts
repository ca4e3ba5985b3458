/** Every activity the `flywheel-gpu` task queue runs. */
export { trainStage } from './train.js';
export { preferenceStage } from './preference.js';
export { evaluateChunk, evaluateStage } from './evaluate.js';
