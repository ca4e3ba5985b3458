/**
 * Hand-written eval cases for public MCP servers nothing else in the repo runs: mcp-server-git and
 * mcp-server-sqlite (both PyPI). Their tools are `tools/list` dumps recorded from the real servers with the MCP
 * SDK's client (test/fixtures/handwritten/README.md says how). Each set loads through the tool-file reader and
 * the hand-written case loader, so every expected call is checked against its tool's schema; together they hold
 * ≥ 60 cases, call every tool at least twice, expect no call in ≥ 20 % of cases, and no case borrows four words in
 * a row from the tool text it is judged against (its tool's description and parameter descriptions; for a
 * no-call, every tool's of its server).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import { readToolsFile, toolsFileSnapshot, type ToolsFile } from '../../core/catalog/tools-file.js';
import type { Catalog, CatalogTool } from '../../core/catalog/types.js';
import { datasetSchema } from '../../core/config/schema.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { EvalInputError } from '../../core/eval/cases.js';
import { parseJsonl } from '../../core/eval/handwritten.js';
import { handwrittenRowsOf } from '../../scripts/lib/handwritten.js';
import { REPO } from '../helpers/fixtures.js';

/** The servers: each has test/fixtures/tools/<name>.tools-list.json and test/fixtures/handwritten/<name>.jsonl. */
const SERVERS = [
  { name: 'git', tools: 12 }, // mcp-server-git 2026.10.19
  { name: 'sqlite', tools: 6 }, // mcp-server-sqlite 2025.4.25
];
const MIN_CASES = 60;
const MIN_SERVERS = 2;
const MIN_CALLS_PER_TOOL = 2;
const MIN_NO_CALL_SHARE = 0.2;
const RUN = 4;

interface PlainCase {
  id: string;
  domain: string;
  tools?: string[];
  messages: Array<{ role: string; content?: string | null }>;
  expected: { tool: string | null; arguments?: Record<string, unknown>; verdict?: string; code?: string };
}

interface CaseSet {
  server: string;
  tools: CatalogTool[];
  cases: PlainCase[];
}

const dataset = datasetSchema.parse({});
const dumpPath = (server: string) => join(REPO, 'test', 'fixtures', 'tools', `${server}.tools-list.json`);
const casesPath = (server: string) => join(REPO, 'test', 'fixtures', 'handwritten', `${server}.jsonl`);

/** Lower-cased words: runs of [a-z0-9]. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Every run of `n` consecutive words, joined by spaces. */
function runsOf(text: string, n = RUN): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(' '));
  return out;
}

/** A tool's own text a case must not parrot: its description and its parameters' descriptions. */
function toolTexts(tool: CatalogTool): string[] {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>;
  return [
    tool.description ?? '',
    ...Object.values(props).map((p) => (typeof p?.description === 'string' ? p.description : '')),
  ].filter(Boolean);
}

/** Every broken rule across the sets, each naming the case (or tool) and what is wrong; empty when all hold. */
function ruleProblems(sets: CaseSet[]): string[] {
  const problems: string[] = [];
  const all = sets.flatMap((s) => s.cases);
  if (all.length < MIN_CASES) problems.push(`${all.length} cases, fewer than ${MIN_CASES}`);
  const servers = sets.filter((s) => s.cases.length > 0).length;
  if (servers < MIN_SERVERS) problems.push(`${servers} servers with cases, fewer than ${MIN_SERVERS}`);
  const noCalls = all.filter((c) => c.expected.tool === null).length;
  if (noCalls < MIN_NO_CALL_SHARE * all.length)
    problems.push(`${noCalls} of ${all.length} cases expect no call, fewer than ${MIN_NO_CALL_SHARE * 100} %`);
  const seen = new Set<string>();
  for (const c of all) {
    if (seen.has(c.id)) problems.push(`${c.id}: id used twice`);
    seen.add(c.id);
  }
  for (const { server, tools, cases } of sets) {
    for (const tool of tools) {
      const calls = cases.filter((c) => c.expected.tool === tool.name).length;
      if (calls < MIN_CALLS_PER_TOOL)
        problems.push(`${server}/${tool.name}: ${calls} cases expect a call to it, fewer than ${MIN_CALLS_PER_TOOL}`);
    }
    for (const c of cases) {
      if (c.domain !== server) problems.push(`${c.id}: domain ${c.domain} in the ${server} file`);
      const judged = c.expected.tool === null ? tools : tools.filter((t) => t.name === c.expected.tool);
      const said = new Set(c.messages.flatMap((m) => [...runsOf(m.content ?? '')]));
      for (const tool of judged)
        for (const text of toolTexts(tool))
          for (const run of runsOf(text))
            if (said.has(run)) problems.push(`${c.id}: shares "${run}" with ${server}/${tool.name}: "${text}"`);
    }
  }
  return problems;
}

describe('hand-written cases for public MCP servers (git, sqlite)', () => {
  const loaded: Array<CaseSet & { file: ToolsFile; catalog: Catalog; rows: RouterRow[]; text: string }> = [];
  before(async () => {
    for (const { name } of SERVERS) {
      const file = await readToolsFile(dumpPath(name));
      const catalog = buildCatalog(`hw-${name}`, [toolsFileSnapshot(name, file)]);
      const text = readFileSync(casesPath(name), 'utf8');
      const rows = handwrittenRowsOf(text, casesPath(name), catalog, dataset);
      const cases = parseJsonl(text, casesPath(name)).map(({ value }) => value as PlainCase);
      loaded.push({ server: name, file, catalog, rows, text, tools: catalog.tools, cases });
    }
  });

  it('each dump reads as a tools/list result, every tool kept', () => {
    for (const [i, { name, tools }] of SERVERS.entries()) {
      const { file, catalog } = loaded[i]!;
      assert.equal(file.format, 'mcp-tools-list', name);
      assert.equal(file.entries, tools, name);
      assert.equal(catalog.tools.length, tools, `${name}: ${catalog.quarantined.length} quarantined`);
      assert.deepEqual(
        catalog.servers.map((s) => s.name),
        [name],
      );
    }
  });

  it('every case loads against its dump (expected arguments valid for the schema) and renders a row', () => {
    for (const { server, rows, cases } of loaded) {
      assert.equal(rows.length, cases.length, server);
      for (const [i, row] of rows.entries()) {
        assert.equal(row.id, cases[i]!.id);
        assert.equal(row.domain, server);
        if (cases[i]!.expected.tool !== null) assert.ok(row.tools.includes(cases[i]!.expected.tool!), row.id);
      }
    }
  });

  it('the sets keep the rules: count, servers, tool coverage, no-call share, unique ids, no 4-word runs', () => {
    assert.deepEqual(ruleProblems(loaded), []);
  });

  it('the rules catch a planted bad case', () => {
    const planted = (f: (sets: CaseSet[]) => void) => {
      const sets: CaseSet[] = loaded.map((s) => ({ ...s, cases: structuredClone(s.cases) }));
      f(sets);
      return ruleProblems(sets);
    };
    const git = (sets: CaseSet[]) => sets.find((s) => s.server === 'git')!;
    // Words lifted from git_status's description.
    const parrot = planted((sets) =>
      git(sets).cases.push({
        id: 'hw-git-planted',
        domain: 'git',
        messages: [{ role: 'user', content: 'Shows the WORKING tree status of /home/user/projects/billing-api' }],
        expected: { tool: 'git_status', arguments: { repo_path: '/home/user/projects/billing-api' } },
      }),
    );
    assert.ok(
      parrot.some((p) => p.startsWith('hw-git-planted: shares "the working tree status"')),
      parrot.join('\n'),
    );
    // A no-call is judged against every tool of its server.
    const noCall = planted((sets) =>
      git(sets).cases.push({
        id: 'hw-git-planted',
        domain: 'git',
        messages: [{ role: 'user', content: 'push it, it records changes to the repository anyway' }],
        expected: { tool: null, verdict: 'abstain', code: 'no_tool' },
      }),
    );
    assert.ok(noCall.some((p) => p.includes('"records changes to the"') && p.includes('git/git_commit')));
    const dup = planted((sets) => git(sets).cases.push({ ...git(sets).cases[0]! }));
    assert.ok(dup.includes(`${git(loaded).cases[0]!.id}: id used twice`), dup.join('\n'));
    const uncovered = planted((sets) => {
      git(sets).cases = git(sets).cases.filter((c) => c.expected.tool !== 'git_reset');
    });
    assert.ok(uncovered.some((p) => p.startsWith('git/git_reset: 0 cases')));
    const allCalls = planted((sets) => sets.forEach((s) => (s.cases = s.cases.filter((c) => c.expected.tool))));
    assert.ok(allCalls.some((p) => p.includes('expect no call')));
    const oneServer = planted((sets) => (git(sets).cases = []));
    assert.ok(oneServer.some((p) => p.includes('servers with cases')));
    assert.ok(oneServer.some((p) => p.includes(`cases, fewer than ${MIN_CASES}`)));
  });

  it('the loader refuses a planted case whose arguments fail its tool schema', () => {
    const { server, catalog, text } = loaded.find((s) => s.server === 'git')!;
    const bad = JSON.stringify({
      id: 'hw-git-planted',
      domain: server,
      messages: [{ role: 'user', content: 'stage nothing' }],
      expected: { tool: 'git_add', arguments: { repo_path: '/home/user/projects/billing-api', files: [] } },
    });
    assert.throws(
      () => handwrittenRowsOf(`${text}${bad}\n`, 'git.jsonl', catalog, dataset),
      (err: Error) => err instanceof EvalInputError && /hw-git-planted.*fail git\/git_add's schema/.test(err.message),
    );
  });
});
