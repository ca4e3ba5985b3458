/**
 * A stage is one folder: stages/<name>/ holds spec.ts (what its activity takes and gives) and activity.ts (the
 * activity, exported under the stage's name, or as `<name>For(packs)` for the stages that read domain packs), and
 * the workers register it under the stage's name, and under its former type for recorded histories.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gpuActivities } from '../../activities/gpu.js';
import { createActivities } from '../../activities/index.js';
import { STAGES, type StageSpec } from '../../workflows/contract/table.js';
import { REPO } from '../helpers/fixtures.js';

const SPECS: readonly StageSpec[] = STAGES;
const STAGE_DIR = join(REPO, 'stages');
const registered: Record<string, unknown> = { ...createActivities({ packs: [] }), ...gpuActivities };

describe('stage folders', () => {
  it('every stage has a folder with its spec and activity, and every folder is a stage', () => {
    for (const s of SPECS)
      for (const file of ['spec.ts', 'activity.ts'])
        assert.ok(existsSync(join(STAGE_DIR, s.name, file)), `stages/${s.name}/${file} is missing`);
    assert.deepEqual(
      readdirSync(STAGE_DIR).sort(),
      SPECS.map((s) => s.name).sort(),
      'stages/ holds one folder per stage of the table (workflows/contract/table.ts)',
    );
  });

  it("a stage's activity is exported by its folder and registered under the stage's name", async () => {
    for (const s of SPECS.filter((x) => x.activity)) {
      const mod = (await import(join(STAGE_DIR, s.name, 'activity.ts'))) as Record<string, unknown>;
      const exported = mod[s.name] ?? mod[`${s.name}For`];
      assert.equal(typeof exported, 'function', `stages/${s.name}/activity.ts exports no ${s.name} (or ${s.name}For)`);
      assert.equal(typeof registered[s.name], 'function', `no activity is registered as ${s.name}`);
      if (mod[s.name]) assert.equal(registered[s.name], mod[s.name], `${s.name} is registered from its folder`);
    }
  });

  it('every activity type a recorded history schedules is registered; a former type names the same function', () => {
    const dir = join(REPO, 'test', 'fixtures', 'histories');
    for (const file of readdirSync(dir)) {
      const types = new Set(
        [...readFileSync(join(dir, file), 'utf8').matchAll(/"activityType":\s*\{\s*"name":\s*"([^"]+)"/g)].map(
          (m) => m[1]!,
        ),
      );
      assert.ok(types.size > 0, `${file}: no activity scheduled`);
      for (const type of types) assert.equal(typeof registered[type], 'function', `${file} schedules ${type}`);
    }
    for (const s of SPECS.filter((x) => x.formerActivity))
      assert.equal(registered[s.formerActivity!], registered[s.name], `${s.formerActivity} → ${s.name}`);
  });

  it('a stage without an activity registers nothing under its name', () => {
    for (const s of SPECS.filter((x) => !x.activity)) assert.equal(registered[s.name], undefined, s.name);
  });
});
