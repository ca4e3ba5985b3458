/** Trace ingestion: pairing checks, failed results, PII redaction, unrolling, dedupe, validation, rejections. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog, ServerSnapshot } from '../../core/catalog/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { canonicalJson } from '../../core/hash.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import { Redactor } from '../../core/traces/redact.js';
import { REPO, runCli, tempDir } from '../helpers/fixtures.js';
import { sandboxMain } from '../helpers/sandbox.js';

const dir = join(REPO, 'test', 'fixtures', 'traces');
let catalog: Catalog;

function ingest(file: string) {
  const parsed = parseTraceFile(file, readFileSync(join(dir, file), 'utf8'));
  const result = ingestTraces(parsed.traces, new CallValidator(catalog, async () => ({ ok: true })), { catalog });
  return { ...result, rejections: [...parsed.rejections, ...result.rejections] };
}

describe('trace ingestion', () => {
  before(async () => {
    catalog = buildCatalog('t', [
      await listServerTools(
        {
          name: 'salesforce',
          stdio: {
            command: process.execPath,
            args: ['--import', 'tsx', sandboxMain('salesforce')],
            env: {},
            cwd: REPO,
          },
          timeoutMs: 20_000,
        },
        { maxPages: 10 },
      ),
    ]);
  });

  it('unrolls one row per single-call assistant turn, drops reasoning, failed results, parallel calls and duplicates', () => {
    const r = ingest('good.jsonl');
    assert.deepEqual(r.rejections, []);
    assert.deepEqual(
      r.rows.map((x) => x.target.tool),
      ['get_record', 'create_contact', 'change_opportunity_stage'],
    );
    assert.deepEqual(
      r.stats.droppedTurns,
      { failed_result: 2, parallel_calls: 1 },
      'the duplicate trace repeats the failed turn',
    );
    assert.equal(r.stats.duplicates, 1);
    const second = r.rows[1]!;
    assert.deepEqual(
      second.messages!.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool'],
      'the second turn sees the first call and its result',
    );
    assert.ok(
      second.messages!.every((m) => !('reasoning_content' in m)),
      'earlier reasoning is dropped',
    );
    assert.equal(
      (r.rows[2]!.target as unknown as { arguments: { stageName: string } }).arguments.stageName,
      'Proposal',
      'the failed attempt is not a target',
    );
    assert.equal(second.provenance.source, 'trace');
    assert.match(second.provenance.trace!, /good\.jsonl:1$/);
  });

  it('redacts PII consistently in text and arguments, and never leaks it', () => {
    const r = ingest('good.jsonl');
    const all = canonicalJson(r.rows);
    for (const secret of [
      'jane.doe@acme-corp.com',
      'bo.okoro@brightline.example',
      '415 555 0134',
      '4111 1111 1111 1111',
      'sk-abcdefghijklmnopqrstuvwx',
    ])
      assert.ok(!all.includes(secret), `${secret} leaked`);
    const create = r.rows.find((x) => x.target.tool === 'create_contact')!;
    const email = (create.target as unknown as { arguments: { email: string } }).arguments.email;
    assert.match(email, /^user\d+@example\.com$/);
    assert.ok(create.request.includes(email), 'the argument and the text carry the same placeholder');
    assert.ok(all.includes('[CARD_1]') && all.includes('[TOKEN_1]') && all.includes('[PHONE_1]'));
  });

  it('rejects malformed traces with the file, row and reason', () => {
    const r = ingest('bad.jsonl');
    assert.deepEqual(r.rows, []);
    assert.deepEqual(
      r.rejections.map((x) => [x.file, x.row, x.reason]).sort((a, b) => Number(a[1]) - Number(b[1])),
      [
        ['bad.jsonl', 1, 'invalid_json'],
        ['bad.jsonl', 2, 'orphan_tool_result'],
        ['bad.jsonl', 3, 'unanswered_tool_call'],
        ['bad.jsonl', 4, 'unknown_tool'],
        ['bad.jsonl', 5, 'schema_invalid'],
        ['bad.jsonl', 6, 'missing_scope'],
        ['bad.jsonl', 7, 'unknown_domain'],
        ['bad.jsonl', 8, 'invalid_shape'],
      ],
    );
  });

  it('redacts numbers inside arguments without breaking their JSON, and reads a pretty-printed single trace', () => {
    const trace = {
      metadata: { domain: 'salesforce', scopes: ['sf.read', 'sf.contact.write'] },
      messages: [
        { role: 'user', content: 'Add contact Ann Lee, ann.lee@corp.example, to account 0018d0000000001QAA.' },
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: {
                name: 'create_contact',
                arguments: JSON.stringify({
                  accountId: '0018d0000000001QAA',
                  lastName: 'Lee',
                  email: 'ann.lee@corp.example',
                  phone: 4111111111111111,
                }),
              },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"result":{}}' },
      ],
    };
    const parsed = parseTraceFile('one.json', JSON.stringify(trace, null, 2));
    assert.deepEqual(parsed.rejections, []);
    assert.equal(parsed.traces.length, 1);
    const r = ingestTraces(parsed.traces, new CallValidator(catalog, async () => ({ ok: true })), { catalog });
    assert.equal(r.rows.length, 0, 'phone as a number is a schema error, not a JSON error');
    assert.deepEqual(
      r.rejections.map((x) => x.reason),
      ['schema_invalid'],
    );
    const fixed = {
      ...trace,
      messages: trace.messages.map((m, i) =>
        i === 1
          ? {
              ...m,
              tool_calls: [
                {
                  id: 'c1',
                  type: 'function',
                  function: {
                    name: 'create_contact',
                    arguments: JSON.stringify({
                      accountId: '0018d0000000001QAA',
                      lastName: 'Lee',
                      email: 'ann.lee@corp.example',
                    }),
                  },
                },
              ],
            }
          : m,
      ),
    };
    const ok = ingestTraces(
      parseTraceFile('one.json', JSON.stringify(fixed, null, 2)).traces,
      new CallValidator(catalog, async () => ({ ok: true })),
      { catalog },
    );
    assert.equal(ok.rows.length, 1);
    assert.equal(
      (ok.rows[0]!.target as unknown as { arguments: { email: string } }).arguments.email,
      'user1@example.com',
    );
  });

  it('redaction: Luhn-valid cards only, numbers that are not phones stay', () => {
    const red = new Redactor();
    assert.equal(red.text('card 4111 1111 1111 1112 and 4111111111111111'), 'card 4111 1111 1111 1112 and [CARD_1]');
    assert.equal(red.text('invoice 300042 due 2026-06-15, qty 12'), 'invoice 300042 due 2026-06-15, qty 12');
    assert.equal(red.text('Bearer abcdefghijklmnopqrstuvwxyz0123'), '[TOKEN_1]');
  });

  it('flywheel traces ingest prints FILE:ROW reasons, writes rows, and --strict fails on rejections', async () => {
    const catFile = join(tempDir(), 'catalog.json');
    writeFileSync(catFile, JSON.stringify(catalog));
    const out = join(tempDir(), 'rows.jsonl');
    const ok = await runCli(['traces', 'ingest', join(dir, 'good.jsonl'), '--catalog', catFile, '--out', out]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /4 traces -> 3 rows \(1 duplicates dropped\), 0 rejected/);
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 3);
    const bad = await runCli(['traces', 'ingest', join(dir, 'bad.jsonl'), '--catalog', catFile, '--strict']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /bad\.jsonl:1 invalid_json: /);
    assert.match(
      bad.stdout,
      /bad\.jsonl:2 orphan_tool_result: messages\[1\]\.tool_call_id nope answers no earlier tool call/,
    );
    const usage = await runCli(['traces', 'ingest', join(dir, 'good.jsonl')]);
    assert.equal(usage.code, 2);
  });
});

describe('trace ingestion: attributing traces without metadata.domain by the tools they call', () => {
  const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  const snap = (server: string, names: string[]): ServerSnapshot => ({
    server,
    pages: 1,
    tools: names.map((name) => ({ name, inputSchema: schema })),
  });
  const shared = buildCatalog('shared', [snap('crm', ['search', 'get_account']), snap('wiki', ['search', 'get_page'])]);
  const call = (name: string, id: string) => [
    { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name, arguments: '{"id":"1"}' } }] },
    { role: 'tool', tool_call_id: id, content: '{"result":{}}' },
  ];
  const trace = (names: string[], extra: Record<string, unknown> = {}) => ({
    messages: [{ role: 'user', content: 'look it up' }, ...names.flatMap((n, i) => call(n, `c${i}`))],
    ...extra,
  });
  const offered = (...names: string[]) => ({ tools: names.map((name) => ({ type: 'function', function: { name } })) });
  const run = (t: unknown, defaultDomain?: string) =>
    ingestTraces([{ file: 'x.jsonl', row: 1, trace: t }], new CallValidator(shared, async () => ({ ok: true })), {
      catalog: shared,
      ...(defaultDomain ? { defaultDomain } : {}),
    });

  it('attributes a trace to the one server that offers the tool it calls', () => {
    const r = run(trace(['get_account']));
    assert.deepEqual(r.rejections, []);
    assert.deepEqual(
      r.rows.map((x) => [x.domain, x.target.tool]),
      [['crm', 'get_account']],
    );
    assert.deepEqual(
      r.rows[0]!.tools,
      ['get_account', 'search'],
      "without a tools array the row offers the attributed server's tools",
    );
    assert.ok(r.rows[0]!.entities.every((e) => e.startsWith('crm:')));
    assert.deepEqual(
      run(trace(['get_account', 'search'])).rows.map((x) => x.domain),
      ['crm', 'crm'],
      'a shared name agrees with a unique one',
    );
  });

  it('rejects a call to a name two servers share as ambiguous_domain, naming both', () => {
    const r = run(trace(['search']));
    assert.deepEqual(r.rows, []);
    assert.deepEqual(r.rejections, [
      {
        file: 'x.jsonl',
        row: 1,
        reason: 'ambiguous_domain',
        detail: 'tool "search" is offered by servers crm, wiki; set metadata.domain or the trace source\'s domain',
      },
    ]);
    assert.equal(r.stats.rejectedTraces, 1);
  });

  it('rejects calls that span two servers as ambiguous_domain, even with a tools array', () => {
    for (const t of [
      trace(['get_account', 'get_page']),
      trace(['get_account', 'get_page'], offered('get_account', 'get_page')),
    ]) {
      const r = run(t);
      assert.deepEqual(r.rows, []);
      assert.equal(r.rejections.length, 1);
      assert.equal(r.rejections[0]!.reason, 'ambiguous_domain');
      assert.match(r.rejections[0]!.detail, /"get_account" \(crm\), "get_page" \(wiki\)/);
    }
  });

  it("breaks a tie between servers with the trace's tools array, only when it narrows to one", () => {
    const r = run(trace(['search'], offered('search', 'get_page')));
    assert.deepEqual(r.rejections, []);
    assert.deepEqual(
      r.rows.map((x) => [x.domain, x.target.tool]),
      [['wiki', 'search']],
    );
    assert.deepEqual(r.rows[0]!.tools, ['search', 'get_page']);
    assert.deepEqual(
      run(trace(['search'], offered('search'))).rejections.map((x) => x.reason),
      ['ambiguous_domain'],
      'offering only the shared name decides nothing',
    );
    assert.deepEqual(
      run(trace(['search'], offered('search', 'get_page', 'get_account'))).rejections.map((x) => x.reason),
      ['ambiguous_domain'],
      "offering both servers' tools decides nothing",
    );
  });

  it('lets an explicit metadata.domain or defaultDomain win over the calls', () => {
    assert.deepEqual(
      run(trace(['search'], { metadata: { domain: 'wiki' } })).rows.map((x) => x.domain),
      ['wiki'],
    );
    assert.deepEqual(
      run(trace(['search']), 'crm').rows.map((x) => x.domain),
      ['crm'],
    );
    const r = run(trace(['get_account'], { metadata: { domain: 'wiki' } }));
    assert.deepEqual(
      r.rejections.map((x) => x.reason),
      ['unknown_tool'],
      'the call is checked against the stated server (which has no get_account), not re-attributed',
    );
    const bad = run(trace(['get_account'], { metadata: { domain: 'mainframe' } }));
    assert.deepEqual(
      bad.rejections.map((x) => x.reason),
      ['unknown_domain'],
      'a stated domain that is not a server is not overridden by the calls',
    );
  });

  it('keeps unknown_domain for traces that call no known tool, saying what was called', () => {
    const r = run(trace(['nope', 'nada']));
    assert.deepEqual(
      r.rejections.map((x) => x.reason),
      ['unknown_domain'],
    );
    assert.match(r.rejections[0]!.detail, /calls "nope", "nada", which match no server of the catalog \(crm, wiki\)/);
    const none = run(trace([]));
    assert.deepEqual(
      none.rejections.map((x) => x.reason),
      ['unknown_domain'],
    );
    assert.match(none.rejections[0]!.detail, /calls no tools/);
  });
});
