import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { TEMPORAL_BIN } from './fixtures.js';

/**
 * FLYWHEEL_RECORD_HISTORIES=DIR writes the named runs' histories there (as `temporal workflow show --output
 * json` prints them), for test/fixtures/histories: the replay test then guards those paths against
 * nondeterministic workflow changes. Without the variable it does nothing.
 */
export async function recordHistories(address: string, runs: Record<string, WorkflowHandle>): Promise<void> {
  const dir = process.env.FLYWHEEL_RECORD_HISTORIES;
  if (!dir) return;
  for (const [name, handle] of Object.entries(runs)) {
    const { runId } = await handle.describe();
    const { stdout } = await promisify(execFile)(TEMPORAL_BIN, ['workflow', 'show', '--address', address, '-w', handle.workflowId, '-r', runId, '--output', 'json'], { maxBuffer: 64 << 20 });
    writeFileSync(join(dir, `${name}.json`), stdout);
  }
}
