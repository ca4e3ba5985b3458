/**
 * Replay recorded flywheelRun histories against the current workflow code. A failure means a change to
 * workflows/ is not deterministic for runs already in flight: guard it with wf.patched() or version the
 * workflow, then record new fixtures:
 *   temporal workflow show -w WORKFLOW_ID -r RUN_ID --output json > test/fixtures/histories/NAME.json
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { bundleWorkflows } from '../../workers/cpu.js';
import { REPO } from '../helpers/fixtures.js';

const dir = join(REPO, 'test', 'fixtures', 'histories');

describe('workflow replay', () => {
  const bundle = bundleWorkflows();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    it(`replays ${file} deterministically`, async () => {
      const history: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      await Worker.runReplayHistory({ workflowBundle: await bundle }, history, file);
    });
  }
});
