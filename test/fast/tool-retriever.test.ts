import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterRow } from '../../core/dataset/types.js';
import { retrieverRecall } from '../../core/retrieve/recall.js';
import { bm25Retriever, terms, toolDocument } from '../../core/retrieve/tool-retriever.js';

// A catalog nobody here wrote requests for: tools shaped like the public GitHub and calendar MCP servers'.
const TOOLS = [
  {
    name: 'create_issue',
    description: 'Create a new issue in a GitHub repository.',
    inputSchema: {
      type: 'object',
      properties: {
        owner: { type: 'string' },
        repo: { type: 'string' },
        title: { type: 'string' },
        body: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  {
    name: 'list_pull_requests',
    description: 'List pull requests in a repository.',
    inputSchema: {
      type: 'object',
      properties: {
        owner: { type: 'string' },
        repo: { type: 'string' },
        state: { type: 'string', enum: ['open', 'closed', 'all'] },
      },
    },
  },
  {
    name: 'merge_pull_request',
    description: 'Merge a pull request.',
    inputSchema: {
      type: 'object',
      properties: {
        pullNumber: { type: 'number' },
        mergeMethod: { type: 'string', enum: ['merge', 'squash', 'rebase'] },
      },
    },
  },
  {
    name: 'get_file_contents',
    description: 'Get the contents of a file or directory from a repository.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path to the file' }, branch: { type: 'string' } },
    },
  },
  {
    name: 'search_code',
    description: 'Search for code across repositories.',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
  },
  {
    name: 'create_event',
    description: 'Create a calendar event.',
    inputSchema: {
      type: 'object',
      properties: {
        summary: { type: 'string' },
        startTime: { type: 'string', description: 'ISO 8601 start' },
        attendees: { type: 'array', items: { type: 'string', description: 'attendee email' } },
      },
    },
  },
  {
    name: 'list_events',
    description: 'List upcoming calendar events.',
    inputSchema: { type: 'object', properties: { timeMin: { type: 'string' }, maxResults: { type: 'number' } } },
  },
];

describe('bm25 tool retriever', () => {
  it('splits names the way agents write them and folds plurals', () => {
    assert.deepEqual(terms('listPullRequests get_file_contents'), [
      'list',
      'pull',
      'request',
      'get',
      'file',
      'content',
    ]);
    assert.deepEqual(terms('the Invoices, please!'), ['invoice']);
    const doc = toolDocument(TOOLS[2]!);
    for (const word of ['merge_pull_request', 'pullNumber', 'squash', 'rebase']) assert.ok(doc.includes(word), word);
  });

  it('ranks the tool a request asks for first, over tools that share its words', () => {
    const retriever = bm25Retriever(TOOLS);
    const cases: Array<[string, string]> = [
      ['open an issue in acme/widgets titled "crash on start"', 'create_issue'],
      ['squash and merge PR 42', 'merge_pull_request'],
      ['which PRs are still open on acme/widgets?', 'list_pull_requests'],
      ['show me README.md on the main branch', 'get_file_contents'],
      ['book a meeting with dana@example.com at 3pm tomorrow, attendees: dana', 'create_event'],
      ['whats on my calendar next week', 'list_events'],
    ];
    for (const [request, tool] of cases) assert.equal(retriever.rank(request, 1)[0], tool, request);
  });

  it('matches abbreviations (prefixes, dropped vowels), but never above the full word', () => {
    const retriever = bm25Retriever(TOOLS);
    assert.deepEqual(retriever.rank('cal evts this wk', 2).sort(), ['create_event', 'list_events']);
    assert.equal(retriever.rank('any open prs in the rpo?', 1)[0], 'list_pull_requests');
    const tools = [
      { name: 'get_repository', description: 'Get a repository.' },
      { name: 'get_repo_stats', description: 'Statistics of a repo.' },
    ];
    assert.equal(bm25Retriever(tools).rank('repo', 1)[0], 'get_repo_stats');
  });

  it('returns k names, ties in the offered order, and copes with an empty query or catalog', () => {
    const retriever = bm25Retriever(TOOLS);
    assert.equal(retriever.rank('pull request', 3).length, 3);
    assert.deepEqual(retriever.rank('', 3), ['create_issue', 'list_pull_requests', 'merge_pull_request']);
    assert.equal(retriever.rank('anything', 100).length, TOOLS.length);
    assert.deepEqual(bm25Retriever([]).rank('anything', 5), []);
  });

  it('recall@k counts the calls whose tool ranks in the top k, reading every user turn, and skips no-calls', () => {
    const row = (request: string, tool: string | null, earlier?: string): RouterRow =>
      ({
        id: request,
        domain: 'github',
        entities: [],
        request,
        persona: { name: 'dev', domain: 'github', scopes: [] },
        tools: [],
        ...(earlier
          ? {
              messages: [
                { role: 'user', content: earlier },
                { role: 'assistant', content: 'Which one?' },
                { role: 'user', content: request },
              ],
            }
          : {}),
        target:
          tool === null ? { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' } : { tool, arguments: {} },
        provenance: { source: 'handwritten' },
      }) as RouterRow;
    const rows = [
      row('merge pull request 42 with squash', 'merge_pull_request'),
      row(
        'yes, that one please',
        'create_event',
        'create a calendar event for the standup tomorrow, attendees the whole team',
      ),
      row('what is the weather', null),
      row('frobnicate the widget', 'search_code'),
    ];
    const r = retrieverRecall(rows, TOOLS, [1, 7]);
    assert.equal(r.calls, 3, 'the no-call has no tool to find');
    assert.equal(r.toolsOffered, TOOLS.length);
    assert.equal(r.recallAt['1'], 2 / 3, 'the earlier turn finds create_event; nothing finds search_code first');
    assert.equal(r.recallAt['7'], 1, 'every tool is in a top 7 of 7');
    assert.deepEqual(retrieverRecall([rows[2]!], TOOLS, [1]).recallAt, { '1': null });
  });
});
