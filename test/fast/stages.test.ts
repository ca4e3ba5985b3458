/**
 * The stage table (workflows/contract/table.ts) against what runs really did: recorded histories of a whole release run
 * and of a retrain run, read the way `flywheel status` and gc read a live run's history.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { parseConfig } from '../../core/config/load.js';
import { outputsFromEvents } from '../../scripts/lib/runs.js';
import { loadConfigFile } from '../../core/config/load.js';
import { configKeys } from '../../scripts/docs/config-keys.js';
import {
  appliesTo,
  bindingSources,
  memoParts,
  stageArgs,
  STAGE_OF_ACTIVITY,
  STAGES,
  type StageName,
  type StageSpec,
  valueAt,
} from '../../workflows/contract/table.js';

/** The table as its declared type, for what only some entries have. */
const SPECS: readonly StageSpec[] = STAGES;
import { REPO } from '../helpers/fixtures.js';

function history(name: string) {
  return (
    historyFromJSON(JSON.parse(readFileSync(join(REPO, 'test', 'fixtures', 'histories', `${name}.json`), 'utf8')))
      .events ?? []
  );
}

// Later runs' outputs win: the newest recording of a release run comes last.
const RUNS = [
  'flywheel-run-release-stage-args',
  'flywheel-run-retrain-trained-stage-args',
  'flywheel-run-release-render-pairs',
  'flywheel-run-preference',
  // Recorded since activity types are stage names.
  'flywheel-run-release-stage-named',
  'flywheel-run-retrain-trained-stage-named',
  'flywheel-run-preference-stage-named',
];

describe('stage table', () => {
  it('every stage with outputs is found in recorded runs, with exactly the outputs the table names', () => {
    const seen = new Map<string, Record<string, unknown>>();
    for (const run of RUNS)
      for (const [stage, outputs] of Object.entries(outputsFromEvents(history(run)))) seen.set(stage, outputs);
    for (const s of STAGES) {
      if (!s.activity) continue;
      assert.ok(seen.has(s.name), `${s.name}: no result of its activity in ${RUNS.join(', ')}`);
      assert.deepEqual(Object.keys(seen.get(s.name)!).sort(), [...s.outputs].sort(), `${s.name}'s outputs`);
    }
  });

  it('every activity a recorded run scheduled is in the table or is a helper that records no stage', () => {
    const helpers = new Set([
      'resolveConfig',
      'listServerTools',
      'currentVersion',
      'gateStage',
      'retrainCheck',
      'advanceWatermark',
    ]);
    for (const run of RUNS) {
      for (const e of history(run)) {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
        if (name)
          assert.ok(
            STAGE_OF_ACTIVITY[name] !== undefined || helpers.has(name),
            `${run}: ${name} is neither a stage's activity nor a known helper`,
          );
      }
    }
  });

  it('a run lists the stages its config asks for, in table order', () => {
    const base = { version: 1, name: 'p', servers: [{ name: 's', stdio: { command: 'x' } }] };
    const names = (extra: Record<string, unknown>) =>
      STAGES.filter((s) => appliesTo(s.name, parseConfig({ ...base, ...extra }))).map((s) => s.name);
    assert.deepEqual(names({}), ['ingest']);
    assert.deepEqual(names({ dataset: {} }), [
      'ingest',
      'intents',
      'generate',
      'solve',
      'validate',
      'corrupt',
      'split',
      'render',
    ]);
    assert.deepEqual(
      names({
        dataset: {},
        traces: ['t.jsonl'],
        retrain: {},
        train: { job: { baseModel: 'tiny:nano' } },
        evaluate: {},
        gate: {},
      }),
      [
        'ingest',
        'intents',
        'generate',
        'solve',
        'validate',
        'traces',
        'watermark',
        'corrupt',
        'split',
        'render',
        'train',
        'evaluate',
        'gate',
      ],
    );
  });

  it('the recorded runs listed exactly those stages', () => {
    for (const run of RUNS) {
      const events = history(run);
      const input = events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const config = parseConfig((JSON.parse(Buffer.from(input.data!).toString('utf8')) as { config: unknown }).config);
      const last = events.filter((e) => e.workflowPropertiesModifiedEventAttributes?.upsertedMemo).at(-1)!;
      const memo = last.workflowPropertiesModifiedEventAttributes!.upsertedMemo!.fields!.progress!;
      const listed = (
        JSON.parse(Buffer.from(memo.data!).toString('utf8')) as { stages: Array<{ name: string }> }
      ).stages.map((s) => s.name);
      assert.deepEqual(
        listed,
        STAGES.filter((s) => appliesTo(s.name, config)).map((s) => s.name),
        run,
      );
    }
  });

  it("every input names an earlier stage's declared output, every config path a key of the config schema", () => {
    const schemaKeys = new Set(configKeys().map((k) => k.path));
    SPECS.forEach((s, i) => {
      for (const [arg, binding] of Object.entries(s.inputs ?? {})) {
        for (const { from, output } of bindingSources(binding).sources) {
          const source = SPECS.findIndex((x) => x.name === from);
          assert.ok(source >= 0 && source < i, `${s.name}.${arg}: ${from} is not a stage before ${s.name}`);
          assert.ok(SPECS[source]!.outputs.includes(output), `${s.name}.${arg}: ${from} has no output ${output}`);
        }
      }
      for (const [arg, path] of Object.entries(s.config ?? {}))
        assert.ok(schemaKeys.has(path), `${s.name}.${arg}: no config key ${path}`);
    });
  });

  it("what an entry says its result means for the run names the stage's own outputs", () => {
    for (const s of SPECS) {
      if (s.indexes) assert.ok(s.outputs.includes(s.indexes.output), `${s.name}.indexes names ${s.indexes.output}`);
      if (s.namesCandidate) assert.ok(s.outputs.includes('adapter'), `${s.name} names a candidate but has no adapter`);
    }
    // The candidate is what training made: the last of these to run is what evaluate scores and deploy serves.
    assert.deepEqual(
      SPECS.filter((s) => s.namesCandidate).map((s) => s.name),
      ['train', 'preference'],
    );
  });

  it('every memo key path reads an argument the table gives the stage, or one only the run knows', () => {
    const schemaKeys = new Set(configKeys().map((k) => k.path));
    // What only the run knows, passed by the stage's own step (workflows/flywheel-run.ts).
    const runtime = new Set(['production']);
    for (const s of SPECS) {
      const config = s.config ?? {};
      for (const path of s.keyedBy ?? []) {
        const [arg, ...rest] = path.split('.');
        if (runtime.has(arg!)) continue;
        assert.ok(arg! in config, `${s.name}: memo key ${path} reads ${arg}, which the table does not pass`);
        assert.ok(schemaKeys.has([config[arg!], ...rest].join('.')), `${s.name}: memo key ${path} is no config key`);
      }
    }
  });

  it('a config edit changes the memo keys of exactly the stages keyed by it', async () => {
    const example = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    const fake = { uri: 'file:///x', sha256: 'a'.repeat(64), kind: 'x', count: 1, bytes: 1 };
    const outputs = () => Object.fromEntries(STAGES.flatMap((s) => s.outputs.map((o) => [o, fake])));
    const keyOf = (stage: StageName, config: typeof example) =>
      JSON.stringify(memoParts(stage, stageArgs(stage, config, 'r', outputs)));
    // Written out, not derived from the table: a stage that stops being keyed by what it reads fails here.
    const edits: Array<[string, unknown, StageName[]]> = [
      ['dataset.seed', 99, ['intents', 'generate', 'solve', 'validate', 'corrupt', 'split']],
      ['dataset.teacher.kind', 'openai', ['generate', 'solve']],
      ['dataset.negativeShare', 0.11, ['corrupt', 'split']],
      ['dataset.sliceSize', 3, ['validate', 'corrupt']],
      ['dataset.minSliceSize', 2, ['validate', 'corrupt']],
      ['dataset.perGoal', 3, ['intents']],
      ['dataset.render.format', 'hermes', ['render']],
      ['name', 'renamed', ['ingest', 'split']],
      ['evaluate.limit', 7, ['evaluate']],
    ];
    for (const [path, value, changed] of edits) {
      const edited = structuredClone(example);
      const parent = path.includes('.') ? valueAt(edited, path.slice(0, path.lastIndexOf('.'))) : edited;
      (parent as Record<string, unknown>)[path.slice(path.lastIndexOf('.') + 1)] = value;
      const memoised = STAGES.filter((x) => x.version !== null && x.name !== 'train' && x.name !== 'traces').map(
        (x) => x.name,
      );
      assert.deepEqual(
        memoised.filter((stage) => keyOf(stage, edited) !== keyOf(stage, example)),
        changed,
        `stages re-run after editing ${path}`,
      );
    }
  });

  it("finds a chunked stage's outputs in the memo's answer when the memo held it, and in the merge otherwise", () => {
    const ref = { uri: 'file:///x', sha256: 'b'.repeat(64), kind: 'requests', count: 3, bytes: 9 };
    const p = (v: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(v)] });
    const events = [
      {
        eventId: 1,
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'storedStage' },
          input: p({ stage: 'generate' }),
        },
      },
      {
        eventId: 2,
        activityTaskCompletedEventAttributes: {
          scheduledEventId: 1,
          result: p({ outputs: { requests: ref }, reused: true, summary: '' }),
        },
      },
      {
        eventId: 3,
        activityTaskScheduledEventAttributes: { activityType: { name: 'storedStage' }, input: p({ stage: 'solve' }) },
      },
      { eventId: 4, activityTaskCompletedEventAttributes: { scheduledEventId: 3, result: p(null) } },
      {
        eventId: 5,
        activityTaskScheduledEventAttributes: { activityType: { name: 'stageChunk' }, input: p({ stage: 'solve' }) },
      },
      {
        eventId: 6,
        activityTaskCompletedEventAttributes: {
          scheduledEventId: 5,
          result: p({ outputs: { candidates: { ...ref, kind: 'part' } } }),
        },
      },
      { eventId: 7, activityTaskScheduledEventAttributes: { activityType: { name: 'solveStage' } } },
      {
        eventId: 8,
        activityTaskCompletedEventAttributes: {
          scheduledEventId: 7,
          result: p({ outputs: { candidates: { ...ref, kind: 'candidates' } } }),
        },
      },
    ];
    assert.deepEqual(outputsFromEvents(events), {
      generate: { requests: ref },
      solve: { candidates: { ...ref, kind: 'candidates' } },
    });
  });
});
