import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog, catalogStats, checkTool } from '../../core/catalog/build.js';
import { diffCatalogs } from '../../core/catalog/diff.js';
import { catalogVersion, recordCatalogVersion } from '../../core/catalog/history.js';
import type { QuarantinedTool, ServerSnapshot } from '../../core/catalog/types.js';
import { openStore } from '../../core/artifacts/index.js';
import { canonicalJson } from '../../core/hash.js';
import { tempDir } from '../helpers/fixtures.js';

const good = {
  name: 'get_account',
  description: 'Get one account',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};

describe('catalog: checking tools', () => {
  const bad: Array<[string, unknown, QuarantinedTool['code'], RegExp]> = [
    ['not an object', 'tool', 'invalid_tool', /not a JSON object/],
    ['no name', { inputSchema: { type: 'object' } }, 'invalid_tool', /no string "name"/],
    ['bad name', { name: 'has space', inputSchema: { type: 'object' } }, 'invalid_tool', /not 1-128/],
    ['no inputSchema', { name: 'x' }, 'invalid_tool', /inputSchema is missing/],
    ['non-object inputSchema', { name: 'x', inputSchema: { type: 'array' } }, 'invalid_tool', /must be "object"/],
    [
      'unknown type',
      { name: 'x', inputSchema: { type: 'object', properties: { a: { type: 'strang' } } } },
      'input_schema_compile_error',
      /type/,
    ],
    [
      'unknown keyword (strict)',
      { name: 'x', inputSchema: { type: 'object', propertiez: {} } },
      'input_schema_compile_error',
      /unknown keyword/,
    ],
    [
      'bad $ref',
      { name: 'x', inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } },
      'input_schema_compile_error',
      /reference|resolve/,
    ],
    [
      'broken outputSchema',
      { name: 'x', inputSchema: { type: 'object' }, outputSchema: { type: 'object', required: 'id' } },
      'output_schema_compile_error',
      /required/,
    ],
  ];
  for (const [what, raw, code, reason] of bad) {
    it(`quarantines a tool with ${what}`, () => {
      const r = checkTool('crm', raw);
      assert.ok('code' in r, 'tool was accepted');
      assert.equal(r.code, code);
      assert.match(r.reason, reason);
      assert.deepEqual(r.raw, raw);
    });
  }

  it('keeps every field and reads scopes from _meta.scopes', () => {
    const r = checkTool('crm', {
      ...good,
      title: 'Get',
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      _meta: { scopes: ['sf.read', 'sf.read', 7] },
    });
    assert.ok(!('code' in r));
    assert.equal(r.id, 'crm/get_account');
    assert.equal(r.title, 'Get');
    assert.deepEqual(r.scopes, ['sf.read']);
    assert.deepEqual(r.annotations, { readOnlyHint: true });
  });

  it('accepts draft-07 and 2020-12 schemas and format keywords', () => {
    for (const $schema of ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema']) {
      const r = checkTool('crm', {
        name: 'x',
        inputSchema: { $schema, type: 'object', properties: { when: { type: 'string', format: 'date-time' } } },
      });
      assert.ok(!('code' in r), JSON.stringify(r));
    }
  });
});

describe('catalog: building and diffing', () => {
  const snap = (server: string, tools: unknown[]): ServerSnapshot => ({ server, pages: 1, tools });

  it('is deterministic whatever the server order, and quarantines duplicates', () => {
    const a = buildCatalog('p', [snap('b', [good]), snap('a', [good, good, { name: 'x' }])]);
    const b = buildCatalog('p', [snap('a', [good, good, { name: 'x' }]), snap('b', [good])]);
    assert.equal(canonicalJson(a), canonicalJson(b));
    assert.deepEqual(
      a.tools.map((t) => t.id),
      ['a/get_account', 'b/get_account'],
    );
    assert.deepEqual(a.quarantined.map((q) => q.code).sort(), ['duplicate_name', 'invalid_tool']);
    const stats = catalogStats(a);
    assert.deepEqual(stats.crossServerNameCollisions, ['get_account']);
    assert.deepEqual(stats.quarantinedByCode, { duplicate_name: 1, invalid_tool: 1 });
  });

  it('diffs added, removed and changed tools with the changed fields', () => {
    const v1 = buildCatalog('p', [snap('s', [good, { name: 'old', inputSchema: { type: 'object' } }])]);
    const v2 = buildCatalog('p', [
      snap('s', [
        { ...good, description: 'new words' },
        { name: 'fresh', inputSchema: { type: 'object' } },
      ]),
    ]);
    const d = diffCatalogs(v1, v2, 'cat-1', 'cat-2');
    assert.deepEqual(d, {
      from: 'cat-1',
      to: 'cat-2',
      added: ['s/fresh'],
      removed: ['s/old'],
      changed: [{ id: 's/get_account', fields: ['description'] }],
    });
    assert.deepEqual(diffCatalogs(null, v1, null, 'cat-1').added, ['s/get_account', 's/old']);
  });

  it('keeps a history of distinct versions and diffs against the one before', async () => {
    const store = openStore(tempDir());
    const v1 = await store.putJson('catalog', { v: 1 });
    const v2 = await store.putJson('catalog', { v: 2 });
    assert.equal(await recordCatalogVersion(store, 'p', v1), null);
    assert.equal((await recordCatalogVersion(store, 'p', v2))?.sha256, v1.sha256);
    // Unchanged catalog: the diff base stays the previous distinct version.
    assert.equal((await recordCatalogVersion(store, 'p', v2))?.sha256, v1.sha256);
    assert.equal(catalogVersion(v2), `cat-${v2.sha256.slice(0, 12)}`);
  });
});
