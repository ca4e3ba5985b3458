/**
 * dataset.minSliceSize: rows offer anywhere from minSliceSize to sliceSize tools, drawn per row, so a router also
 * sees the one- and two-tool menus agents send (a single function that fits, or one that does not). Unset, every
 * row offers sliceSize tools, as before. Pure functions over a small catalog shaped like a public MCP server's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogTool } from '../../core/catalog/types.js';
import { datasetSchema } from '../../core/config/schema.js';
import { corruptRows } from '../../core/dataset/corrupt.js';
import { candidateRow } from '../../core/dataset/rows.js';
import { rowSliceSize } from '../../core/dataset/slice.js';
import type { Intent } from '../../core/dataset/types.js';
import { Rng } from '../../core/rng.js';

const tool = (name: string, description: string): CatalogTool => ({
  id: `files/${name}`,
  server: 'files',
  name,
  description,
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  scopes: [],
});
const TOOLS = [
  tool('read_file', 'Read the contents of a file.'),
  tool('write_file', 'Create or overwrite a file.'),
  tool('list_directory', 'List the entries of a directory.'),
  tool('delete_file', 'Delete a file.'),
  tool('get_file_info', 'Size, times and permissions of a file.'),
  tool('create_directory', 'Create a directory.'),
  tool('search_files', 'Search for files matching a pattern.'),
  tool('read_multiple_files', 'Read several files at once.'),
];
const PERSONA = { domain: 'files', name: 'dev', scopes: [] };
const intent = (id: string, toolName: string | null): Intent => ({
  id,
  domain: 'files',
  persona: PERSONA,
  goal: 'g',
  tool: toolName,
  arguments: toolName ? { path: `/srv/${id}` } : {},
  slots: {},
  entities: [`files:${id}`],
  phrasings: [],
});
const row = (i: number, toolName: string | null, min?: number) =>
  candidateRow(
    intent(`i${i}`, toolName),
    {
      intentId: `i${i}`,
      request: toolName ? `open /srv/i${i} for me` : 'what should I cook tonight?',
      target: toolName
        ? { tool: toolName, arguments: { path: `/srv/i${i}` } }
        : { tool: null, verdict: 'abstain', code: 'no_tool', reason: 'nothing fits' },
      teacher: 't',
    },
    TOOLS,
    6,
    1,
    'neighbours',
    min,
  );

describe('slice sizes drawn per row', () => {
  it('unset, every row offers sliceSize tools, the same tools as before the key existed', () => {
    for (let i = 0; i < 40; i++) {
      const r = row(i, i % 3 ? 'read_file' : null);
      assert.equal(r.tools.length, 6);
      assert.deepEqual(r.tools, row(i, i % 3 ? 'read_file' : null, 6).tools, 'min = sliceSize draws nothing');
    }
    assert.equal(datasetSchema.parse({}).minSliceSize, undefined, 'absent stays absent: configs keep their keys');
  });

  it('set, sizes span [min, sliceSize]; a call row keeps its tool, a no-call row offers only tools that miss', () => {
    const sizes = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const toolName = i % 3 ? 'read_file' : null;
      const r = row(i, toolName, 1);
      assert.ok(r.tools.length >= 1 && r.tools.length <= 6, `row ${i}: ${r.tools.length} tools`);
      sizes.add(r.tools.length);
      if (toolName) assert.ok(r.tools.includes(toolName), `row ${i}: the right tool is offered`);
      assert.equal(r.target.tool, toolName);
      assert.deepEqual(row(i, toolName, 1).tools, r.tools, 'deterministic per seed and intent');
    }
    assert.deepEqual([...sizes].sort(), [1, 2, 3, 4, 5, 6], 'every size in the range is drawn');
    const singles = Array.from({ length: 200 }, (_, i) => row(i, 'read_file', 1)).filter((r) => r.tools.length === 1);
    assert.ok(singles.length > 10 && singles.every((r) => r.tools[0] === 'read_file'), 'a one-tool menu that fits');
  });

  it('the tool_absent negative draws its size too, and never offers the right tool', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(i, 'list_directory', 1));
    const ctx = {
      tools: TOOLS,
      personas: [PERSONA],
      pools: {},
      sliceSize: 6,
      minSliceSize: 1,
      rng: new Rng('c'),
      callable: () => false,
    };
    const { negatives } = await corruptRows(
      rows,
      ctx,
      async (call, r) => (r.tools.includes(call.tool) ? {} : { reason: 'not_offered' }),
      0.9,
    );
    const absent = negatives.filter((n) => n.target.tool === null && n.target.code === 'tool_not_offered');
    assert.ok(absent.length > 5, `${absent.length} tool_absent negatives`);
    assert.ok(absent.every((n) => !n.tools.includes('list_directory') && n.tools.length >= 1 && n.tools.length <= 6));
    assert.ok(new Set(absent.map((n) => n.tools.length)).size > 1, 'their sizes vary');
  });

  it('rowSliceSize draws nothing where the range is one size, and the config refuses a minimum above sliceSize', () => {
    const rng = new Rng('s');
    const before = new Rng('s').next();
    assert.equal(rowSliceSize(rng, 6), 6);
    assert.equal(rowSliceSize(rng, 6, 6), 6);
    assert.equal(rng.next(), before, 'no number drawn');
    assert.equal(datasetSchema.parse({ minSliceSize: 2 }).minSliceSize, 2);
    assert.throws(() => datasetSchema.parse({ minSliceSize: 7 }), /minSliceSize[\s\S]*above dataset\.sliceSize/);
    assert.throws(() => datasetSchema.parse({ minSliceSize: 0 }));
  });
});
