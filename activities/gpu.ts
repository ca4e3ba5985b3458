import { evaluateChunk, evaluate } from '../stages/evaluate/activity.js';
import { preference } from '../stages/preference/activity.js';
import { train } from '../stages/train/activity.js';
import { withFormerNames } from './former-names.js';

/** Every activity the `flywheel-gpu` task queue runs, by activity type. */
export const gpuActivities = { ...withFormerNames({ train, preference, evaluate }), evaluateChunk };
