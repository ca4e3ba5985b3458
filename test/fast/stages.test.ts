/**
 * The stage table (workflows/stages.ts) against what runs really did: recorded histories of a whole release run
 * and of a retrain run, read the way `flywheel status` and gc read a live run's history.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { parseConfig } from '../../core/config/load.js';
import { outputsFromEvents } from '../../scripts/lib/runs.js';
import { appliesTo, STAGE_OF_ACTIVITY, STAGES } from '../../workflows/stages.js';
import { REPO } from '../helpers/fixtures.js';

function history(name: string) {
  return historyFromJSON(JSON.parse(readFileSync(join(REPO, 'test', 'fixtures', 'histories', `${name}.json`), 'utf8'))).events ?? [];
}

const RUNS = ['flywheel-run-release-recall', 'flywheel-run-retrain-trained'];

describe('stage table', () => {
  it('every stage with outputs is found in recorded runs, with exactly the outputs the table names', () => {
    const seen = new Map<string, Record<string, unknown>>();
    for (const run of RUNS) for (const [stage, outputs] of Object.entries(outputsFromEvents(history(run)))) seen.set(stage, outputs);
    for (const s of STAGES) {
      if (s.activity === null) continue;
      assert.ok(seen.has(s.name), `${s.name}: no ${s.activity} result in ${RUNS.join(', ')}`);
      assert.deepEqual(Object.keys(seen.get(s.name)!).sort(), [...s.outputs].sort(), `${s.name}'s outputs`);
    }
  });

  it('every activity a recorded run scheduled is in the table or is a helper that records no stage', () => {
    const helpers = new Set(['resolveConfig', 'listServerTools', 'currentVersion', 'gateStage', 'retrainCheck', 'advanceWatermark']);
    for (const run of RUNS) {
      for (const e of history(run)) {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
        if (name) assert.ok(STAGE_OF_ACTIVITY[name] !== undefined || helpers.has(name), `${run}: ${name} is neither a stage's activity nor a known helper`);
      }
    }
  });

  it('a run lists the stages its config asks for, in table order', () => {
    const base = { version: 1, name: 'p', servers: [{ name: 's', stdio: { command: 'x' } }] };
    const names = (extra: Record<string, unknown>) => STAGES.filter((s) => appliesTo(s.name, parseConfig({ ...base, ...extra }))).map((s) => s.name);
    assert.deepEqual(names({}), ['ingest']);
    assert.deepEqual(names({ dataset: {} }), ['ingest', 'intents', 'generate', 'solve', 'validate', 'corrupt', 'split', 'render']);
    assert.deepEqual(names({ dataset: {}, traces: ['t.jsonl'], retrain: {}, train: { job: { baseModel: 'tiny:nano' } }, evaluate: {}, gate: {} }), ['ingest', 'intents', 'generate', 'solve', 'validate', 'traces', 'watermark', 'corrupt', 'split', 'render', 'train', 'evaluate', 'gate']);
  });

  it('the recorded runs listed exactly those stages', () => {
    for (const run of RUNS) {
      const events = history(run);
      const input = events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const config = parseConfig((JSON.parse(Buffer.from(input.data!).toString('utf8')) as { config: unknown }).config);
      const last = events.filter((e) => e.workflowPropertiesModifiedEventAttributes?.upsertedMemo).at(-1)!;
      const memo = last.workflowPropertiesModifiedEventAttributes!.upsertedMemo!.fields!.progress!;
      const listed = (JSON.parse(Buffer.from(memo.data!).toString('utf8')) as { stages: Array<{ name: string }> }).stages.map((s) => s.name);
      assert.deepEqual(listed, STAGES.filter((s) => appliesTo(s.name, config)).map((s) => s.name), run);
    }
  });
});
