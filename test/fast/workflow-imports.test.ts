/**
 * Workflow code stays deterministic by what it can reach, and the arrows point down:
 * - everything under workflows/ imports values only from @temporalio/workflow, @temporalio/common and ./ paths; anything
 *   else (core/, activities/) it may import as types only. The stage contract sits beside the workflows for that
 *   reason (workflows/contract/, like the Temporal samples' shared module beside workflows.ts);
 * - the contract imports values only from @temporalio/common and its own files: it is what workers, activities,
 *   stage folders and scripts share with the workflows, and it reaches none of them;
 * - outside workflows/, only the contract is imported for values; a workflow definition (flywheel-run.ts,
 *   rollback.ts) only as a type, by the clients that start it; core/ imports nothing from workflows/ at all;
 * - the domain packs are the worker's to hand over (workers/packs.ts): core/, activities/ and stages/ import no
 *   pack from sandboxes/, so a user's pack for their own server is used the same way.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

const tsFiles = (dir: string, deep: boolean): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return deep ? tsFiles(path, true) : [];
    return name.endsWith('.ts') ? [path] : [];
  });

/** Every import or re-export line of the files, with where it is. */
const importLines = (files: string[]) =>
  files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${relative(REPO, file)}:${i + 1}` }))
      .filter(({ line }) => /^(import|export) [^;]* from '/.test(line) || /^\} from '/.test(line)),
  );
const values = (lines: ReturnType<typeof importLines>) =>
  lines.filter(({ line }) => !/^(import|export) type /.test(line));
const show = (lines: ReturnType<typeof importLines>) => lines.map(({ line, at }) => `${at}: ${line}`);

describe('workflow imports', () => {
  it('workflows/ imports values only from @temporalio/workflow|common and ./ paths', () => {
    const offenders = values(importLines(tsFiles(join(REPO, 'workflows'), true))).filter(
      ({ line }) => !/ from '(@temporalio\/(workflow|common)|\.\/[^']+)';/.test(line),
    );
    assert.deepEqual(
      show(offenders),
      [],
      'import these as types, or move the value into the stage contract (workflows/contract/) or an activity',
    );
  });

  it('the stage contract (workflows/contract/) imports values only from @temporalio/common and itself', () => {
    const offenders = values(importLines(tsFiles(join(REPO, 'workflows', 'contract'), true))).filter(
      ({ line }) => !/ from '(@temporalio\/common|\.\/[^']+)';/.test(line),
    );
    assert.deepEqual(show(offenders), [], 'everyone imports these files: types only from elsewhere');
  });

  it('outside workflows/, a workflow definition is imported only as a type, and core/ imports nothing from workflows/', () => {
    const outside = ['core', 'activities', 'stages', 'gateway', 'workers', 'scripts', 'test'].flatMap((d) =>
      tsFiles(join(REPO, d), true),
    );
    const lines = importLines(outside).filter(({ line }) => /from '(\.\.\/)+workflows\//.test(line));
    const definitions = values(lines).filter(({ line }) => !/from '(\.\.\/)+workflows\/contract\//.test(line));
    assert.deepEqual(show(definitions), [], 'what they share belongs in the stage contract (workflows/contract/)');
    const fromCore = lines.filter(({ at }) => at.startsWith('core/'));
    assert.deepEqual(show(fromCore), [], 'core/ is logic the stages call: take what it needs as arguments');
  });

  it('core/, activities/ and stages/ import nothing from sandboxes/: packs come from the worker', () => {
    const below = ['core', 'activities', 'stages'].flatMap((d) => tsFiles(join(REPO, d), true));
    const offenders = importLines(below).filter(({ line }) => /from '(\.\.\/)+sandboxes\//.test(line));
    assert.deepEqual(show(offenders), [], 'take packs as an argument; workers/packs.ts hands them over');
  });
});
