/** Catalog ingestion against real MCP servers (the fixture server, official SDK) over stdio and HTTP. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { McpServerError, McpServerSetupError } from '../../core/mcp/connect.js';
import { InputError, TransientError } from '../../core/errors.js';
import { fixtureStdio, runCli, startFixtureHttp, tempDir } from '../helpers/fixtures.js';

describe('catalog ingestion over stdio', () => {
  it('follows nextCursor through every page and keeps every field', async () => {
    const log = join(tempDir(), 'calls.log');
    const snap = await listServerTools(fixtureStdio('crm', ['--tools', '5', '--page-size', '2', '--log', log]), {
      maxPages: 10,
    });
    assert.equal(snap.pages, 3);
    assert.equal(snap.tools.length, 5);
    assert.deepEqual(snap.serverInfo, { name: 'crm-fixture', version: '1.0.0' });
    assert.ok(snap.protocolVersion);
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), [
      'tools/list crm cursor=0',
      'tools/list crm cursor=2',
      'tools/list crm cursor=4',
    ]);
    const catalog = buildCatalog('p', [snap]);
    const t = catalog.tools[0]!;
    assert.equal(t.id, 'crm/crm_tool_0');
    assert.equal(t.title, 'Fixture tool 0');
    assert.deepEqual(t.scopes, ['crm.read']);
    assert.deepEqual(t.annotations, { readOnlyHint: true });
  });

  it('quarantines broken tools without failing the listing', async () => {
    const snap = await listServerTools(fixtureStdio('crm', ['--tools', '2', '--bad']), { maxPages: 10 });
    const catalog = buildCatalog('p', [snap]);
    assert.deepEqual(
      catalog.tools.map((t) => t.name),
      ['crm_tool_0', 'crm_tool_1'],
    );
    assert.deepEqual(catalog.quarantined.map((q) => `${q.name}:${q.code}`).sort(), [
      'crm_bad_output:output_schema_compile_error',
      'crm_bad_type:input_schema_compile_error',
      'crm_no_object:invalid_tool',
      'crm_tool_0:duplicate_name',
    ]);
  });

  it('stops at maxPages with an error naming the server', async () => {
    await assert.rejects(
      listServerTools(fixtureStdio('crm', ['--tools', '9', '--page-size', '1']), { maxPages: 3 }),
      /MCP server "crm": tools\/list did not finish within catalog.maxPages=3/,
    );
  });

  it('names the server when its command does not exist (not retryable)', async () => {
    const server = { name: 'ghost', stdio: { command: '/nonexistent/mcp-server', args: [], env: {} }, timeoutMs: 5000 };
    await assert.rejects(
      listServerTools(server, { maxPages: 1 }),
      (e: Error) =>
        e instanceof McpServerSetupError &&
        e instanceof InputError &&
        /MCP server "ghost": failed to start \(stdio: \/nonexistent\/mcp-server\)/.test(e.message),
    );
  });

  it('names the server and shows its stderr when it exits during startup', async () => {
    const server = {
      name: 'crashy',
      stdio: {
        command: process.execPath,
        args: ['-e', 'console.error("boom: missing DATABASE_URL"); process.exit(3)'],
        env: {},
      },
      timeoutMs: 5000,
    };
    await assert.rejects(
      listServerTools(server, { maxPages: 1 }),
      /MCP server "crashy": .*[\s\S]*boom: missing DATABASE_URL/,
    );
  });

  it('times out a server that never answers, naming it', async () => {
    const server = {
      name: 'silent',
      stdio: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} },
      timeoutMs: 500,
    };
    await assert.rejects(
      listServerTools(server, { maxPages: 1 }),
      (e: Error) =>
        e instanceof McpServerError &&
        e instanceof TransientError &&
        /MCP server "silent": timed out after 500 ms/.test(e.message),
    );
  });
});

describe('catalog ingestion over Streamable HTTP', () => {
  let http: Awaited<ReturnType<typeof startFixtureHttp>>;
  before(async () => {
    http = await startFixtureHttp(['--prefix', 'erp', '--tools', '3', '--page-size', '2', '--token', 's3cret']);
  });
  after(() => http.stop());

  it('lists every page with a bearer token taken from the environment', async () => {
    process.env.ERP_TOKEN = 's3cret';
    const snap = await listServerTools(
      { name: 'erp', http: { url: http.url, headers: {}, bearerTokenEnv: 'ERP_TOKEN' }, timeoutMs: 5000 },
      { maxPages: 10 },
    );
    assert.equal(snap.pages, 2);
    assert.equal(snap.tools.length, 3);
  });

  it('fails clearly without the token variable or with a wrong token', async () => {
    delete process.env.MISSING_TOKEN;
    await assert.rejects(
      listServerTools(
        { name: 'erp', http: { url: http.url, headers: {}, bearerTokenEnv: 'MISSING_TOKEN' }, timeoutMs: 5000 },
        { maxPages: 1 },
      ),
      (e: Error) =>
        e instanceof McpServerSetupError && /MCP server "erp": environment variable MISSING_TOKEN/.test(e.message),
    );
    await assert.rejects(
      listServerTools(
        { name: 'erp', http: { url: http.url, headers: { Authorization: 'Bearer wrong' } }, timeoutMs: 5000 },
        { maxPages: 1 },
      ),
      /MCP server "erp"/,
    );
  });

  it('names the server when nothing listens', async () => {
    await assert.rejects(
      listServerTools(
        { name: 'down', http: { url: 'http://127.0.0.1:9/mcp', headers: {} }, timeoutMs: 2000 },
        { maxPages: 1 },
      ),
      /MCP server "down"/,
    );
  });
});

describe('flywheel catalog ingest', () => {
  it('writes the catalog, then reports the diff on the next ingest', async () => {
    const out = join(tempDir(), 'catalog.json');
    const http = await startFixtureHttp(['--prefix', 'erp', '--tools', '3']);
    try {
      const first = await runCli(['catalog', 'ingest', '--server', `erp=${http.url}`, '--out', out, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const r1 = JSON.parse(first.stdout);
      assert.equal(r1.stats.tools, 3);
      assert.equal(r1.diff.from, null);
      assert.equal(JSON.parse(readFileSync(out, 'utf8')).tools.length, 3);
    } finally {
      await http.stop();
    }
    const changed = await startFixtureHttp(['--prefix', 'erp', '--tools', '2', '--change']);
    try {
      const second = await runCli(['catalog', 'ingest', '--server', `erp=${changed.url}`, '--out', out]);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /\+1 -1 ~1/);
      assert.match(second.stdout, /\+ erp\/erp_added/);
      assert.match(second.stdout, /- erp\/erp_tool_2/);
      assert.match(second.stdout, /~ erp\/erp_tool_0 \(description\)/);
    } finally {
      await changed.stop();
    }
  });

  it('exits 2 on a bad spec and on a server command that does not exist, naming the server', async () => {
    const out = join(tempDir(), 'c.json');
    const usage = await runCli(['catalog', 'ingest', '--server', 'ftp://x', '--out', out]);
    assert.equal(usage.code, 2);
    assert.match(
      usage.stderr,
      /must be stdio:<command line>, an http\(s\):\/\/ URL or tools:<file of tool definitions>/,
    );
    const fail = await runCli(['catalog', 'ingest', '--server', 'ghost=stdio:/nonexistent/server', '--out', out]);
    assert.equal(fail.code, 2, 'no retry can start a command that does not exist');
    assert.match(fail.stderr, /MCP server "ghost": failed to start/);
  });
});
