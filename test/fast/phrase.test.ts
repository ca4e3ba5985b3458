import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogTool } from '../../core/catalog/types.js';
import { actionPhrase, humanize, phraseRequest } from '../../core/dataset/generic/phrase.js';
import { fill } from '../../core/dataset/teacher/template.js';
import { Rng } from '../../core/rng.js';

const tool = (
  name: string,
  description: string | undefined,
  properties: Record<string, unknown> = {},
  title?: string,
): CatalogTool => ({
  id: `srv/${name}`,
  server: 'srv',
  name,
  ...(title ? { title } : {}),
  ...(description !== undefined ? { description } : {}),
  inputSchema: { type: 'object', properties },
  scopes: [],
});

const CASES: Array<{ tool: CatalogTool; args: Record<string, unknown> }> = [
  {
    tool: tool(
      'read_text_file',
      'Read the complete contents of a file from the file system as text. Handles various text encodings.',
      {
        path: { type: 'string' },
        head: { type: 'number', description: 'If provided, returns only the first N lines of the file' },
      },
    ),
    args: { path: '/home/ana/notes/todo.md', head: 20 },
  },
  {
    tool: tool(
      'edit_file',
      'Make line-based edits to a text file. Each edit replaces exact line sequences with new content.',
      {
        path: { type: 'string' },
        edits: {
          type: 'array',
          items: { type: 'object', properties: { oldText: { type: 'string' }, newText: { type: 'string' } } },
        },
        dryRun: { type: 'boolean', description: 'Preview changes using git-style diff format' },
      },
    ),
    args: {
      path: 'src/app.ts',
      edits: [
        { oldText: 'const port = 80;', newText: 'const port = 8080;' },
        { oldText: 'debug()', newText: 'info()' },
      ],
      dryRun: true,
    },
  },
  {
    tool: tool('create_entities', 'Create multiple new entities in the knowledge graph', {
      entities: { type: 'array', items: { type: 'object' } },
    }),
    args: { entities: [{ name: 'Alice', entityType: 'person', observations: ['likes tea', 'lives in Oslo'] }] },
  },
  {
    tool: tool('convert_time', 'Convert time between timezones', {
      source_timezone: {
        type: 'string',
        description:
          "Source IANA timezone name (e.g., 'America/New_York'). Use 'UTC' as local timezone if no source timezone provided by the user.",
      },
      time: { type: 'string', description: 'Time to convert in 24-hour format (HH:MM)' },
      target_timezone: { type: 'string', description: 'Target IANA timezone name' },
    }),
    args: { source_timezone: 'America/New_York', time: '14:30', target_timezone: 'Europe/Oslo' },
  },
  {
    tool: tool(
      'list_allowed_directories',
      'Returns the list of directories that this server is allowed to access. Subdirectories within these are also accessible.',
    ),
    args: {},
  },
  { tool: tool('get_current_time', undefined, { timezone: { type: 'string' } }), args: { timezone: 'Asia/Tokyo' } },
  {
    tool: tool(
      'render_template',
      'This tool renders a `{{template}}` with **Mustache** {vars}; see [docs](https://example.com/{id}).\nMore text.',
      {
        template: { type: 'string', description: 'The {{template}} body' },
        vars: { type: 'object' },
        strict: { type: 'boolean' },
      },
    ),
    args: { template: 'Hello {{name}}!', vars: { name: 'Bo', count: 3 }, strict: false },
  },
];

/** Leaf values the router must be able to copy from the request text. */
function leaves(v: unknown): string[] {
  if (typeof v === 'string' || typeof v === 'number') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (v && typeof v === 'object') return Object.values(v).flatMap(leaves);
  return [];
}

describe('phraseRequest', () => {
  for (const { tool: t, args } of CASES) {
    it(`phrases ${t.name} with every argument value in every phrasing`, () => {
      const { phrasings, slots } = phraseRequest(t, args, new Rng(`phrase:${t.name}`));
      assert.ok(phrasings.length >= 6 && phrasings.length <= 10, `${phrasings.length} phrasings`);
      assert.equal(new Set(phrasings).size, phrasings.length, 'distinct');
      assert.ok(
        phrasings.some((p) => p.endsWith('?')),
        'a question',
      );
      assert.ok(
        phrasings.some((p) => !p.endsWith('?')),
        'a statement',
      );
      for (const p of phrasings) {
        // Every placeholder is a slot, and every slot is used (fill throws on unknown ones).
        for (const slot of Object.keys(slots)) assert.ok(p.includes(`{${slot}}`), `"${p}" lacks {${slot}}`);
        const text = fill(p, slots);
        assert.doesNotMatch(p.replace(/\{\w+\}/g, ''), /[{}]/, `stray brace in "${p}"`);
        for (const leaf of leaves(args)) assert.ok(text.includes(leaf), `"${text}" lacks ${leaf}`);
        for (const [k, v] of Object.entries(args)) {
          if (typeof v === 'boolean')
            assert.match(
              text,
              new RegExp(`${humanize(k)}\\W+(?:set to |should be )?${v ? '(yes|true)' : '(no|false)'}`),
              text,
            );
        }
      }
    });
  }

  it('is deterministic for a seed and varies across seeds', () => {
    const c = CASES[1]!;
    assert.deepEqual(phraseRequest(c.tool, c.args, new Rng(1)), phraseRequest(c.tool, c.args, new Rng(1)));
    const seen = new Set([1, 2, 3, 4].map((s) => JSON.stringify(phraseRequest(c.tool, c.args, new Rng(s)).phrasings)));
    assert.ok(seen.size > 1);
  });

  it('renders slots readably: numbers stay numbers, lists join with "and", objects as key/value groups', () => {
    const r = phraseRequest(CASES[0]!.tool, CASES[0]!.args, new Rng(0));
    assert.equal(r.slots.head, 20);
    const e = phraseRequest(CASES[2]!.tool, CASES[2]!.args, new Rng(0));
    assert.equal(e.slots.entities, 'name "Alice", entity type "person", observations "likes tea" and "lives in Oslo"');
    const l = phraseRequest(tool('tag', 'Tag items', {}), { tags: ['red', 'green', 'blue'] }, new Rng(0));
    assert.equal(l.slots.tags, 'red, green and blue');
  });

  it('covers the surface forms across seeds', () => {
    const c = CASES[3]!;
    const all = [0, 1, 2].flatMap((s) => phraseRequest(c.tool, c.args, new Rng(s)).phrasings);
    for (const re of [
      /^Convert time/,
      /^(Can|Could|Is it possible)/,
      /^I (need|'d like|want) to/,
      /^I'm /,
      /^convert time /,
      /^(Please|Could you please)/,
    ]) {
      assert.ok(
        all.some((p) => re.test(p)),
        `no phrasing matches ${re}`,
      );
    }
    assert.ok(
      all.some((p) => p.includes('source IANA timezone name:')),
      'a short property description becomes the label',
    );
    assert.ok(
      all.every((p) => !p.includes('e.g.')),
      'long descriptions fall back to the name',
    );
  });
});

describe('actionPhrase', () => {
  const table: Array<[CatalogTool, string]> = [
    [CASES[0]!.tool, 'read the complete contents of a file from the file system as text'],
    [tool('x', 'Reads a file.'), 'read a file'],
    [tool('x', 'Creates a new issue in the repository'), 'create a new issue in the repository'],
    [tool('x', 'Retrieves the weather forecast for a city'), 'retrieve the weather forecast for a city'],
    [tool('x', 'Searches the web; returns titles'), 'search the web'],
    [tool('x', 'Lists all open pull requests'), 'list all open pull requests'],
    [tool('x', 'Gets the current time'), 'get the current time'],
    [tool('x', 'Applies a patch to the working tree'), 'apply a patch to the working tree'],
    [
      tool('x', 'Returns the list of directories that this server is allowed to access.'),
      'get the list of directories that this server is allowed to access',
    ],
    [tool('x', 'This tool fetches a URL and converts it to markdown'), 'fetch a URL and converts it to markdown'],
    [tool('x', 'Use this tool to `query` the SQL database.'), 'query the SQL database'],
    [tool('x', 'Tool to send a message to a channel'), 'send a message to a channel'],
    [tool('x', 'Allows you to upload a file'), 'upload a file'],
    [tool('x', 'Used to delete a record (irreversible)'), 'delete a record'],
    [tool('x', 'Current weather conditions for a location'), 'get current weather conditions for a location'],
    [tool('x', 'Recursively lists files\nin a folder'), 'recursively list files'],
    [
      tool(
        'x',
        'Search for documents that match a query and rank them by relevance, date, author and popularity across all indexed sources',
      ),
      'search for documents',
    ],
    [CASES[6]!.tool, 'render a template with Mustache vars'],
    [tool('x', 'Deletes the item at /items/{id} (soft delete)'), 'delete the item at /items/(id)'],
    [tool('get_current_time', undefined), 'get current time'],
    [tool('read_text_file', '', {}, 'Read Text File'), 'read text file'],
    [tool('weather', undefined), 'get weather'],
  ];
  for (const [t, want] of table)
    it(`${JSON.stringify(t.description ?? t.title ?? t.name)} -> ${want}`, () => assert.equal(actionPhrase(t), want));
});

describe('humanize', () => {
  const table: Array<[string, string]> = [
    ['entityNames', 'entity names'],
    ['entity_names', 'entity names'],
    ['entity-names', 'entity names'],
    ['source_timezone', 'source timezone'],
    ['dryRun', 'dry run'],
    ['HTTPResponseCode', 'http response code'],
    ['path', 'path'],
  ];
  for (const [i, o] of table) it(`${i} -> ${o}`, () => assert.equal(humanize(i), o));
});
