import type { FlywheelConfig } from '../config/schema.js';
import { hashOf, shortSha } from '../hash.js';

/**
 * Workflow ids come from the business key (project + config hash): a second start of the same config while
 * one is running is rejected instead of racing it; later runs of the same config reuse the id.
 */
export function workflowIdFor(config: FlywheelConfig): string {
  return `flywheel-${config.name}-${shortSha(hashOf(config))}`;
}
