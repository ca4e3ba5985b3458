/**
 * Workflow code stays deterministic by what it can reach: workflows/ imports values only from @temporalio/* and
 * its own siblings; anything else (core/, activities/) it may import as types only.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

describe('workflow imports', () => {
  it('workflows/ imports values only from @temporalio/* and ./ siblings', () => {
    const dir = join(REPO, 'workflows');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
          .filter(({ line }) => /^(import|export) (?!type )[^;]* from '/.test(line))
          .filter(({ line }) => !/ from '(@temporalio\/[^']+|\.\/[^']+)';/.test(line))
          .map(({ line, at }) => `${at}: ${line}`),
      );
    assert.deepEqual(
      offenders,
      [],
      'import these as types, or move the value into a workflows/ sibling or an activity',
    );
  });
});
