/**
 * Workflow code stays deterministic by what it can reach, and the arrows point down:
 * - workflows/ imports values only from @temporalio/*, its own siblings and the stage contract (stages/*.ts: the
 *   stage table, queues, search attributes); anything else (core/, activities/) it may import as types only;
 * - the stage contract is itself workflow-safe: values only from @temporalio/common and its siblings;
 * - nothing below the workflows imports them (core/, activities/, stages/, gateway/, workers/): the contract they
 *   share lives in stages/. Clients (scripts/, tests) may import a workflow's type to start it;
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
  it('workflows/ imports values only from @temporalio/*, ./ siblings and the stage contract', () => {
    const offenders = values(importLines(tsFiles(join(REPO, 'workflows'), false))).filter(
      ({ line }) => !/ from '(@temporalio\/[^']+|\.\/[^']+|\.\.\/stages\/[^/']+)';/.test(line),
    );
    assert.deepEqual(
      show(offenders),
      [],
      'import these as types, or move the value into the stage contract (stages/*.ts) or an activity',
    );
  });

  it('the stage contract (stages/*.ts) is workflow-safe: values only from @temporalio/common and its siblings', () => {
    const offenders = values(importLines(tsFiles(join(REPO, 'stages'), false))).filter(
      ({ line }) => !/ from '(@temporalio\/common|\.\/[^']+)';/.test(line),
    );
    assert.deepEqual(show(offenders), [], 'the workflow bundle imports these files: types only from elsewhere');
  });

  it('nothing below the workflows imports them', () => {
    const below = ['core', 'activities', 'stages', 'gateway', 'workers'].flatMap((d) => tsFiles(join(REPO, d), true));
    const offenders = importLines(below).filter(({ line }) => /from '(\.\.\/)+workflows\//.test(line));
    assert.deepEqual(show(offenders), [], 'what they share belongs in the stage contract (stages/)');
  });

  it('core/, activities/ and stages/ import nothing from sandboxes/: packs come from the worker', () => {
    const below = ['core', 'activities', 'stages'].flatMap((d) => tsFiles(join(REPO, d), true));
    const offenders = importLines(below).filter(({ line }) => /from '(\.\.\/)+sandboxes\//.test(line));
    assert.deepEqual(show(offenders), [], 'take packs as an argument; workers/packs.ts hands them over');
  });
});
