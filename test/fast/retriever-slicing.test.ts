/**
 * dataset.slicing: retriever. Rows get the tools the gateway's retriever would show for their request, a miss
 * is labelled tool_not_offered, the tool_absent negative misses the right tool the same way, and hand-written
 * cases without `tools` are sliced alike. Pure functions over a small catalog shaped like a public MCP server's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Catalog, CatalogTool } from '../../core/catalog/types.js';
import { datasetSchema } from '../../core/config/schema.js';
import { corruptRows } from '../../core/dataset/corrupt.js';
import { candidateRow } from '../../core/dataset/rows.js';
import { retrievedSlice } from '../../core/dataset/slice.js';
import type { Intent } from '../../core/dataset/types.js';
import { handwrittenRows } from '../../core/eval/handwritten.js';
import { bm25Retriever } from '../../core/retrieve/tool-retriever.js';
import { Rng } from '../../core/rng.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): CatalogTool => ({
  id: `files/${name}`,
  server: 'files',
  name,
  description,
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
  scopes: [],
});
const TOOLS = [
  tool('read_file', 'Read the contents of a file.', { path: { type: 'string' } }),
  tool('write_file', 'Create or overwrite a file with new content.', {
    path: { type: 'string' },
    content: { type: 'string' },
  }),
  tool('list_directory', 'List the entries of a directory.', { path: { type: 'string' } }),
  tool('move_file', 'Move or rename a file.', { source: { type: 'string' }, destination: { type: 'string' } }),
  tool('search_files', 'Search for files matching a pattern.', { pattern: { type: 'string' } }),
  tool('get_file_info', 'Size, times and permissions of a file.', { path: { type: 'string' } }),
  tool('create_directory', 'Create a directory.', { path: { type: 'string' } }),
];
const PERSONA = { domain: 'files', name: 'dev', scopes: [] };
const intent = (id: string, toolName: string, args: Record<string, unknown>): Intent => ({
  id,
  domain: 'files',
  persona: PERSONA,
  goal: 'g',
  tool: toolName,
  arguments: args,
  slots: {},
  entities: [`files:${id}`],
  phrasings: [],
});

describe('retriever slicing', () => {
  it('offers what the retriever ranks highest, shuffled, and labels a miss tool_not_offered', () => {
    const hit = candidateRow(
      intent('i1', 'read_file', { path: '/etc/hosts' }),
      {
        intentId: 'i1',
        request: 'show me what is in /etc/hosts (read the file)',
        target: { tool: 'read_file', arguments: { path: '/etc/hosts' } },
        teacher: 't',
      },
      TOOLS,
      3,
      1,
      'retriever',
    );
    assert.deepEqual(
      [...hit.tools].sort(),
      [...bm25Retriever(TOOLS).rank('show me what is in /etc/hosts (read the file)', 3)].sort(),
    );
    assert.equal(hit.target.tool, 'read_file');

    // Nothing in this request names moving or renaming: the retriever misses move_file, so the honest label is no call.
    const missRequest = 'put report.txt under archive/ instead, and tell me the entries of archive/ after';
    assert.ok(
      !bm25Retriever(TOOLS).rank(missRequest, 3).includes('move_file'),
      'the fixture request is a retriever miss',
    );
    const miss = candidateRow(
      intent('i2', 'move_file', { source: 'report.txt', destination: 'archive/report.txt' }),
      {
        intentId: 'i2',
        request: missRequest,
        target: { tool: 'move_file', arguments: { source: 'report.txt', destination: 'archive/report.txt' } },
        teacher: 't',
      },
      TOOLS,
      3,
      1,
      'retriever',
    );
    assert.deepEqual(
      { tool: miss.target.tool, code: miss.target.tool === null ? miss.target.code : null },
      { tool: null, code: 'tool_not_offered' },
    );
    assert.ok(!miss.tools.includes('move_file'));
    assert.deepEqual(
      miss.provenance.negativeCall,
      { tool: 'move_file', arguments: { source: 'report.txt', destination: 'archive/report.txt' } },
      'the call it needs, which router-json rows teach',
    );

    // The classic slicing always offers the right tool.
    const classic = candidateRow(
      intent('i2', 'move_file', { source: 'report.txt', destination: 'archive/report.txt' }),
      {
        intentId: 'i2',
        request: missRequest,
        target: { tool: 'move_file', arguments: { source: 'report.txt', destination: 'archive/report.txt' } },
        teacher: 't',
      },
      TOOLS,
      3,
      1,
    );
    assert.ok(classic.tools.includes('move_file') && classic.target.tool === 'move_file');
  });

  it('a slice that must miss leaves the right tool out and still has `size` tools', () => {
    const slice = retrievedSlice('read the file /etc/hosts', TOOLS, 4, new Rng('x'), 'read_file');
    assert.equal(slice.length, 4);
    assert.ok(!slice.includes('read_file'));
  });

  it('the tool_absent negative misses the right tool with a retrieved slice', async () => {
    const row = candidateRow(
      intent('i3', 'list_directory', { path: '/srv' }),
      {
        intentId: 'i3',
        request: 'list the directory /srv',
        target: { tool: 'list_directory', arguments: { path: '/srv' } },
        teacher: 't',
      },
      TOOLS,
      3,
      1,
      'retriever',
    );
    const ctx = {
      tools: TOOLS,
      personas: [PERSONA],
      pools: {},
      sliceSize: 3,
      slicing: 'retriever' as const,
      rng: new Rng('c'),
      callable: () => false,
    };
    const { negatives } = await corruptRows(
      [row],
      ctx,
      async (call, r) => (r.tools.includes(call.tool) ? {} : { reason: 'not_offered' }),
      1,
    );
    const absent = negatives.find((n) => n.target.tool === null && n.target.code === 'tool_not_offered');
    assert.ok(absent, 'a tool_absent negative');
    assert.ok(!absent.tools.includes('list_directory'));
    assert.deepEqual(
      [...absent.tools].sort(),
      retrievedSlice('list the directory /srv', TOOLS, 3, new Rng('any'), 'list_directory').sort(),
    );
  });

  it('hand-written cases without tools are sliced by the retriever too, and the key is optional in the config', () => {
    const catalog: Catalog = {
      name: 'files',
      servers: [{ name: 'files', tools: TOOLS.length, quarantined: 0 }],
      tools: TOOLS,
      quarantined: [],
    };
    const cases = [
      {
        line: 1,
        value: {
          id: 'h1',
          domain: 'files',
          messages: [{ role: 'user', content: 'whats inside notes.md? read it' }],
          expected: { tool: 'read_file', arguments: { path: 'notes.md' } },
        },
      },
    ];
    const [row] = handwrittenRows(cases, {
      catalog,
      personas: [PERSONA],
      sliceSize: 3,
      slicing: 'retriever',
      seed: 1,
      source: 'cases.jsonl',
    });
    assert.deepEqual(
      [...row!.tools].sort(),
      [...bm25Retriever(TOOLS).rank('whats inside notes.md? read it', 3)].sort(),
    );
    assert.equal(
      datasetSchema.parse({}).slicing,
      undefined,
      'absent stays absent: existing configs keep their stage keys',
    );
    assert.equal(datasetSchema.parse({ slicing: 'retriever' }).slicing, 'retriever');
  });
});
