export { flywheelRun, progressQuery } from './flywheel-run.js';
