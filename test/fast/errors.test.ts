/**
 * One error taxonomy (core/errors.ts): every exported error class extends InputError or TransientError, and the
 * activity boundary decides retries from that alone.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { failFast } from '../../activities/errors.js';
import { InputError, TransientError } from '../../core/errors.js';
import { REPO } from '../helpers/fixtures.js';

/** Where error classes live: the logic, the activities, the gateway and the CLI's helpers and commands. */
const ROOTS = ['core', 'activities', 'gateway', 'scripts/lib', 'scripts/commands'];

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modules(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('error taxonomy', () => {
  it('every exported error class extends InputError or TransientError', async () => {
    const errors: string[] = [];
    const loose: string[] = [];
    for (const file of ROOTS.flatMap((r) => modules(join(REPO, r)))) {
      const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exports)) {
        if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
        if (value === InputError || value === TransientError) continue;
        const where = `${relative(REPO, file)}: ${name}`;
        errors.push(where);
        if (!(value.prototype instanceof InputError) && !(value.prototype instanceof TransientError)) loose.push(where);
      }
    }
    assert.ok(errors.length >= 20, `found the error classes: ${errors.length}`);
    assert.deepEqual(loose, [], 'extend InputError (no retry can fix it) or TransientError (it may pass)');
  });

  it('an error keeps its own class name, the failure type Temporal shows', () => {
    class MissingThing extends InputError {}
    assert.equal(new MissingThing('x').name, 'MissingThing');
    assert.equal(new TransientError('y').name, 'TransientError');
  });

  it('failFast: input errors fail at once, transient ones are retried, anything else passes through', async () => {
    class BadRow extends InputError {}
    class Slow extends TransientError {}
    const failed = async (err: Error) => {
      try {
        await failFast(async () => {
          throw err;
        });
      } catch (e) {
        return e;
      }
      assert.fail('failFast swallowed the error');
    };
    const input = await failed(new BadRow('row 3: field x is missing'));
    assert.ok(input instanceof ApplicationFailure);
    assert.deepEqual([input.nonRetryable, input.type, input.message], [true, 'BadRow', 'row 3: field x is missing']);
    const transient = await failed(new Slow('timed out'));
    assert.ok(transient instanceof ApplicationFailure);
    assert.deepEqual([transient.nonRetryable, transient.type], [false, 'Slow']);
    const bug = new TypeError('undefined is not a function');
    assert.equal(await failed(bug), bug);
  });
});
