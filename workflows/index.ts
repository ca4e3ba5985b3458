export {
  flywheelRun,
  progressQuery,
  approveUpdate,
  rejectUpdate,
  approveSignal,
  rejectSignal,
} from './flywheel-run.js';
export { rollback } from './rollback.js';
