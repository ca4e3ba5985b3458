/**
 * The config reference (docs/reference/config.md, generated) covers the zod schema (core/config/schema.ts), where
 * every key and default is defined: every key has a row in scripts/docs/config-meanings.ts, every row names keys
 * the schema has, and no row writes its own default for a key the schema gives one. (Staleness of the generated
 * file: reference-docs.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configDefault, configKeys } from '../../scripts/docs/config-keys.js';
import { CONFIG_ROWS } from '../../scripts/docs/config-meanings.js';
import { configReference } from '../../scripts/docs/reference.js';

const keys = configKeys();
const byPath = new Map(keys.map((k) => [k.path, k]));
const rowKeys = new Set(CONFIG_ROWS.flatMap((r) => r.keys));

/** A key is covered by its own row or by a row for an object or array holding it (`evaluate.cost` covers `.kind`). */
function covered(path: string): boolean {
  for (let p = path; p; p = p.replace(/(\[\]|\.[^.[\]]+)$/, '')) {
    if (rowKeys.has(p) || rowKeys.has(`${p}[]`)) return true;
    if (!/(\[\]|\.[^.[\]]+)$/.test(p)) break;
  }
  return false;
}

describe('config reference', () => {
  it('reads the schema: nested keys, array items and defaults, own or from the enclosing object', () => {
    assert.equal(byPath.get('dataset.sliceSize')?.default, 6);
    assert.equal(byPath.get('servers[].timeoutMs')?.default, 30_000);
    assert.equal(byPath.get('servers')?.container, true);
    assert.equal(configDefault(byPath, 'dataset.split.val'), 0.1);
    assert.equal(configDefault(byPath, 'dataset.teacher.kind'), 'template');
    assert.equal(configDefault(byPath, 'deploy.alias'), undefined);
    assert.ok(keys.length > 100, `${keys.length} keys`);
  });

  it('has a row for every key of the schema', () => {
    // Objects and arrays are covered through their keys.
    assert.deepEqual(
      keys.filter((k) => !k.container && !k.path.endsWith('[]') && !covered(k.path)).map((k) => k.path),
      [],
      'add these to scripts/docs/config-meanings.ts',
    );
  });

  it('has no row for a key the schema lacks', () => {
    assert.deepEqual(
      [...rowKeys].filter((k) => !byPath.has(k)),
      [],
    );
  });

  it('writes no default of its own where the schema has one', () => {
    const shadowing = CONFIG_ROWS.filter(
      (r) => r.unset !== undefined && r.keys.every((k) => configDefault(byPath, k) !== undefined),
    );
    assert.deepEqual(
      shadowing.map((r) => r.keys.join(', ')),
      [],
    );
  });

  it("shows the schema's defaults", () => {
    const doc = configReference();
    assert.match(doc, /^\| `dataset\.sliceSize` \| `6` \|/m);
    assert.match(doc, /^\| `dataset\.split\.train` \/ `\.val` \/ `\.test` \| `0\.8` \/ `0\.1` \/ `0\.1` \|/m);
    assert.match(doc, /^\| `gateway\.escalation\.on` \| `\[invalid, rewritten\]` \|/m);
    assert.match(doc, /^\| `deploy\.alias` \| — \(required\) \|/m);
  });
});
