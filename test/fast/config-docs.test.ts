/**
 * docs/config.md against the zod schema (core/config/schema.ts), where every key and default is defined: every
 * key is documented, every documented key exists, and every default the docs quote is the schema's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { configKeys, documentedKeys } from '../../scripts/docs/config-keys.js';
import { REPO } from '../helpers/fixtures.js';

const keys = configKeys();
const documented = documentedKeys(readFileSync(join(REPO, 'docs', 'config.md'), 'utf8'));

/** A key is covered by its own row or by a row for an object or array holding it (`evaluate.cost` covers `.kind`). */
function covered(path: string): boolean {
  for (let p = path; p; p = p.replace(/(\[\]|\.[^.[\]]+)$/, '')) {
    if (documented.has(p) || documented.has(`${p}[]`)) return true;
    if (!/(\[\]|\.[^.[\]]+)$/.test(p)) break;
  }
  return false;
}

describe('config reference', () => {
  it('reads the schema: nested keys, array items and defaults', () => {
    const byPath = new Map(keys.map((k) => [k.path, k]));
    assert.equal(byPath.get('dataset.sliceSize')?.default, 6);
    assert.equal(byPath.get('servers[].timeoutMs')?.default, 30_000);
    assert.equal(byPath.get('servers')?.container, true);
    assert.ok(keys.length > 100, `${keys.length} keys`);
  });

  it('documents every key of the schema', () => {
    // Objects and arrays are covered through their keys.
    assert.deepEqual(keys.filter((k) => !k.container && !k.path.endsWith('[]') && !covered(k.path)).map((k) => k.path), [], 'add these to docs/config.md');
  });

  it('documents no key the schema lacks', () => {
    const known = new Set(keys.map((k) => k.path));
    assert.deepEqual([...documented.keys()].filter((k) => !known.has(k)), []);
  });

  it('quotes every default as the schema has it', () => {
    const wrong = keys.flatMap((k) => {
      const quoted = documented.get(k.path);
      if (quoted === undefined || quoted === null || k.default === undefined) return [];
      return JSON.stringify(parse(quoted)) === JSON.stringify(k.default) ? [] : [`${k.path}: docs say ${quoted}, the schema ${JSON.stringify(k.default)}`];
    });
    assert.deepEqual(wrong, []);
    assert.ok([...documented.values()].filter((v) => v !== null).length >= 50, 'the docs quote most defaults literally');
  });
});
