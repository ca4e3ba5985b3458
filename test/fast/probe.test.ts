/**
 * Entity discovery, the pure parts: which tools may be called, what is harvested from results (JSON, text
 * listings, trees) with provenance, and how argument names find harvested values. The probe against live
 * servers (a hanging and a throwing tool included) runs in test/generic-catalog.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogTool } from '../../core/catalog/types.js';
import { callMode } from '../../core/probe/call-mode.js';
import { harvestRefusal, harvestResult, packPoolsAsHarvested } from '../../core/probe/harvest.js';
import { identifyingKeys, nameTokens, valuesForField } from '../../core/probe/match.js';
import type { HarvestedPools } from '../../core/probe/types.js';

const tool = (
  annotations: Record<string, unknown> | undefined,
  meta?: Record<string, unknown>,
  name = 't',
): CatalogTool => ({
  id: `s/${name}`,
  server: 's',
  name,
  inputSchema: { type: 'object' },
  scopes: [],
  ...(annotations ? { annotations } : {}),
  ...(meta ? { _meta: meta } : {}),
});
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

describe('call mode: what the flywheel may call', () => {
  const cases: Array<[string, CatalogTool, string[], string]> = [
    ['read-only and closed-world', tool({ readOnlyHint: true, openWorldHint: false }), [], 'execute'],
    ['read-only, openWorldHint unset (the MCP default is true)', tool({ readOnlyHint: true }), [], 'schema'],
    ['read-only but open-world', tool({ readOnlyHint: true, openWorldHint: true }), [], 'schema'],
    ['no annotations', tool(undefined), [], 'schema'],
    ['readOnlyHint false', tool({ readOnlyHint: false, destructiveHint: true }), [], 'schema'],
    ['declares dry-run', tool({ readOnlyHint: false }, { dryRun: true }), [], 'dry-run'],
    ['listed by the operator', tool(undefined, undefined, 'lookup'), ['lookup'], 'execute'],
    [
      'open-world but listed',
      tool({ readOnlyHint: true, openWorldHint: true }, undefined, 'fetch'),
      ['fetch'],
      'execute',
    ],
  ];
  for (const [name, t, allow, mode] of cases) it(name, () => assert.equal(callMode(t, allow).mode, mode));
});

describe('harvest: values from results, with the call that produced them', () => {
  it('walks JSON in text content and structuredContent, keyed by path, counting repeats', () => {
    const pools: HarvestedPools = {};
    harvestResult(
      pools,
      text(
        JSON.stringify({
          entities: [
            { name: 'Ada', entityType: 'person' },
            { name: 'Bo', entityType: 'person' },
          ],
        }),
      ),
      'read_graph',
      1,
    );
    harvestResult(pools, { structuredContent: { total: 2, next: 'c2' } }, 'read_graph', 2);
    assert.deepEqual(
      pools['entities[].name']!.map((v) => [v.value, v.tool, v.call, v.count]),
      [
        ['Ada', 'read_graph', 1, 1],
        ['Bo', 'read_graph', 1, 1],
      ],
    );
    assert.deepEqual(
      pools['entities[].entityType']!.map((v) => [v.value, v.count]),
      [['person', 2]],
    );
    assert.deepEqual(
      pools.total!.map((v) => v.value),
      [2],
    );
  });

  it('reads paths, URLs, emails and listing lines from prose; a listing names children of the path it was called for', () => {
    const pools: HarvestedPools = {};
    harvestResult(
      pools,
      text(
        'Allowed directories:\n/srv/docs\n[FILE] plan.md\n[DIR] archive\nMail ops@example.com or see https://example.com/help.',
      ),
      'list',
      1,
      '/srv/docs/',
    );
    assert.deepEqual(pools['text:path']!.map((v) => v.value).sort(), [
      '/srv/docs',
      '/srv/docs/archive',
      '/srv/docs/plan.md',
    ]);
    assert.deepEqual(
      pools['text:url']!.map((v) => v.value),
      ['https://example.com/help.'],
    );
    assert.deepEqual(
      pools['text:email']!.map((v) => v.value),
      ['ops@example.com'],
    );
    assert.ok(pools['text:line']!.some((v) => v.value === 'plan.md'));
  });

  it('a refusal that names what the server accepts is harvested, except what the call itself sent', () => {
    const pools: HarvestedPools = {};
    const sent = new Set<unknown>(['/var/data/index.ts']);
    harvestRefusal(
      pools,
      "Error executing tool git_status: Repository path '/var/data/index.ts' is outside the allowed repository '/srv/repo'",
      'git_status',
      1,
      sent,
    );
    assert.deepEqual(
      pools['text:path']!.map((v) => [v.value, v.tool, v.call]),
      [['/srv/repo', 'git_status', 1]],
    );
  });

  it('turns tree listings into full paths', () => {
    const pools: HarvestedPools = {};
    harvestResult(
      pools,
      text(
        JSON.stringify([
          { name: 'src', type: 'directory', children: [{ name: 'main.ts', type: 'file' }] },
          { name: 'README.md', type: 'file' },
        ]),
      ),
      'tree',
      1,
      '/repo',
    );
    assert.deepEqual(pools['text:path']!.map((v) => v.value).sort(), [
      '/repo/README.md',
      '/repo/src',
      '/repo/src/main.ts',
    ]);
  });

  it("flattens a domain pack's pools into pool.field keys", () => {
    const pools = packPoolsAsHarvested({
      account: [
        { Id: '001A', Name: 'Acme', Type: 'Customer' },
        { Id: '001B', Name: 'Bolt', Type: 'Customer' },
      ],
    });
    assert.deepEqual(Object.keys(pools).sort(), ['account.Id', 'account.Name', 'account.Type']);
    assert.equal(pools['account.Type']![0]!.count, 2);
  });
});

describe('matching argument names to harvested values', () => {
  const pools: HarvestedPools = {};
  harvestResult(
    pools,
    text(
      JSON.stringify({
        entities: [
          { name: 'Ada', entityType: 'person' },
          { name: 'Bo', entityType: 'project' },
        ],
        accounts: [{ Id: '001A' }, { Id: '001B' }],
      }),
    ),
    'read',
    1,
  );
  harvestResult(pools, text('/data/a.txt\n/data/b.txt'), 'ls', 1);
  const values = (name: string, path: string[] = [name]) =>
    valuesForField(pools, { name, path })
      .map((v) => v.value)
      .sort();

  it('tokenises names', () => {
    assert.deepEqual(nameTokens('entityNames'), ['entity', 'name']);
    assert.deepEqual(nameTokens('source_timezone'), ['source', 'timezone']);
    assert.deepEqual(nameTokens('HTTPStatusCode'), ['http', 'status', 'code']);
    assert.deepEqual(nameTokens('categories'), ['category']);
  });
  it('an exact leaf name wins', () => assert.deepEqual(values('entityType'), ['person', 'project']));
  it('a leaf plus a parent spell the field', () =>
    assert.deepEqual(values('entityNames', ['entityNames', '[]']), ['Ada', 'Bo']));
  it('a field ending in the leaf takes it', () =>
    assert.deepEqual(values('sourcePath'), ['/data/a.txt', '/data/b.txt']));
  it('ids go by their object', () => assert.deepEqual(values('accountId'), ['001A', '001B']));
  it('an unrelated name finds nothing', () => assert.deepEqual(values('temperature'), []));
  it('identifying keys name things; descriptive ones (repeated values) do not', () => {
    const p: HarvestedPools = {};
    harvestResult(
      p,
      text(
        JSON.stringify({
          rows: [
            { id: 'a', status: 'open' },
            { id: 'b', status: 'open' },
            { id: 'c', status: 'open' },
          ],
        }),
      ),
      't',
      1,
    );
    assert.deepEqual([...identifyingKeys(p)], ['rows[].id']);
  });
});
