import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { TEMPORAL_BIN } from './fixtures.js';

/**
 * FLYWHEEL_RECORD_HISTORIES=DIR writes the named runs' histories there (as `temporal workflow show --output
 * json` prints them), for test/fixtures/histories: the replay test then guards those paths against
 * nondeterministic workflow changes. Without the variable it does nothing. A recorded history is a contract:
 * an existing fixture is never overwritten (record under a new name).
 */
export async function recordHistories(address: string, runs: Record<string, WorkflowHandle>): Promise<void> {
  const dir = process.env.FLYWHEEL_RECORD_HISTORIES;
  if (!dir) return;
  for (const [name, handle] of Object.entries(runs)) {
    const file = join(dir, `${name}.json`);
    if (existsSync(file))
      throw new Error(`${file} exists: recorded histories are never re-recorded; give the new one another name`);
    const { runId } = await handle.describe();
    const { stdout } = await promisify(execFile)(
      TEMPORAL_BIN,
      ['workflow', 'show', '--address', address, '-w', handle.workflowId, '-r', runId, '--output', 'json'],
      { maxBuffer: 64 << 20 },
    );
    writeFileSync(file, stdout);
  }
}
