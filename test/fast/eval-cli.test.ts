/**
 * `flywheel eval` end to end: a rendered test set file, an OpenAI-compatible endpoint, the three report files.
 * The endpoint is a scripted stand-in for a model server (vLLM, a frontier API); the scoring, the CLI and the
 * report writing are the real ones.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EvalReport } from '../../core/eval/types.js';
import { main } from '../../scripts/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startBackendStandIn, type BackendStandIn } from '../helpers/backend-stand-in.js';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_invoice',
      description: 'Fetch an invoice',
      parameters: {
        type: 'object',
        properties: { number: { type: 'string' } },
        required: ['number'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_accounts',
      description: 'List accounts',
      parameters: {
        type: 'object',
        properties: { region: { type: 'string' } },
        required: ['region'],
        additionalProperties: false,
      },
    },
  },
];

function row(id: string, request: string, completion: unknown, domain = 'billing') {
  return {
    id,
    domain,
    prompt: [
      { role: 'system', content: 'route' },
      { role: 'user', content: request },
    ],
    completion: [{ role: 'assistant', content: JSON.stringify(completion) }],
    tools: TOOLS,
  };
}

describe('flywheel eval', () => {
  let dir: string;
  let endpoint: BackendStandIn;

  before(async () => {
    dir = tempDir('flywheel-eval-');
    writeFileSync(
      join(dir, 'test.jsonl'),
      [
        row('r1', 'invoice 1001', { arguments: { number: '1001' }, tool: 'get_invoice' }),
        row('r2', 'invoice 1002, not 1003', { arguments: { number: '1002' }, tool: 'get_invoice' }),
        row('r3', 'accounts in emea', { arguments: { region: 'emea' }, tool: 'list_accounts' }),
        row('r4', 'weather in Paris', { code: 'no_tool', reason: 'no tool', tool: null, verdict: 'abstain' }, 'other'),
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    // Right on r1 and r4, the wrong value on r2 (one the request holds: the grounding check lets it through), the
    // wrong tool on r3.
    endpoint = await startBackendStandIn((body) => {
      const request = body.messages.at(-1)?.content ?? '';
      if (request === 'invoice 1001') return { call: 'get_invoice', arguments: { number: '1001' }, confidence: 0.9 };
      if (request === 'invoice 1002, not 1003')
        return { call: 'get_invoice', arguments: { number: '1003' }, confidence: 0.9 };
      if (request === 'accounts in emea')
        return { call: 'get_invoice', arguments: { number: 'emea' }, confidence: 0.4 };
      return { abstain: { code: 'no_tool', reason: 'nothing fits' }, confidence: 0.8 };
    });
  });
  after(async () => {
    await endpoint?.close();
  });

  it('scores the endpoint and writes report.json, report.md and a self-contained report.html', async () => {
    const out = join(dir, 'report');
    const code = await main([
      'eval',
      '--endpoint',
      endpoint.url,
      '--model',
      'router',
      '--testset',
      join(dir, 'test.jsonl'),
      '--cost-tokens',
      '2.5,10',
      '--resamples',
      '200',
      '--out',
      out,
    ]);
    assert.equal(code, 0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvalReport;
    const m = report.results[0]!.metrics;
    assert.equal(m.n, 4);
    assert.equal(m.exactMatch.value, 0.5);
    assert.equal(m.toolAccuracy.value, 0.75);
    assert.equal(m.errors.value_error, 1);
    assert.equal(m.errors.wrong_tool, 1);
    assert.equal(m.abstention.f1.value, 1);
    assert.deepEqual(
      m.perDomain.map((d) => d.key),
      ['billing', 'other'],
    );
    assert.ok(m.costPer1K.dollars !== null && m.costPer1K.dollars > 0);
    assert.equal(
      endpoint.requests.every((r) => r.model === 'router' && (r.tools?.length ?? 0) === 2),
      true,
    );
    assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /exact match/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.match(html, /<svg/);
    assert.doesNotMatch(html, /<script|src=/);
  });

  it("--constraint json-schema asks for the router answer schema over the case's tools; another value exits 2", async () => {
    const args = ['eval', '--endpoint', endpoint.url, '--model', 'router', '--testset', join(dir, 'test.jsonl')];
    const before = endpoint.requests.length;
    assert.equal(await main([...args, '--constraint', 'json-schema', '--out', join(dir, 'constrained')]), 0);
    const sent = endpoint.requests.slice(before);
    assert.equal(sent.length, 4);
    for (const r of sent) {
      assert.equal(r.tool_choice, 'none');
      const format = r.response_format as {
        type: string;
        json_schema: { schema: { anyOf: Array<{ properties: { tool: unknown } }> } };
      };
      assert.equal(format.type, 'json_schema');
      const tools = format.json_schema.schema.anyOf.map((b) => b.properties.tool);
      assert.deepEqual(tools.slice(0, 2), [{ const: 'get_invoice' }, { const: 'list_accounts' }]);
      assert.deepEqual(tools.slice(2), [{ type: 'null' }, { type: 'null' }, { type: 'null' }], 'a no-call per verdict');
    }
    const original = console.error;
    console.error = () => undefined;
    try {
      assert.equal(await main([...args, '--constraint', 'grammar']), 2);
    } finally {
      console.error = original;
    }
  });

  it('a malformed test set exits 2 naming the file and line; a missing flag exits 2', async () => {
    writeFileSync(
      join(dir, 'bad.jsonl'),
      `${JSON.stringify(row('ok', 'invoice 1', { arguments: {}, tool: 'get_invoice' }))}\n{"id": "r2", "prompt": [], "completion": [{"role": "assistant", "content": "not json"}], "tools": []}\n`,
    );
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(' '));
    try {
      assert.equal(
        await main(['eval', '--endpoint', endpoint.url, '--model', 'router', '--testset', join(dir, 'bad.jsonl')]),
        2,
      );
      assert.match(errors.join('\n'), /bad\.jsonl row 2 \(r2\): completion/);
      assert.equal(await main(['eval', '--endpoint', endpoint.url, '--testset', join(dir, 'bad.jsonl')]), 2);
      // A file of rendered rows does not say who asked, so scopes cannot be checked on it; traces log their decisions.
      assert.equal(
        await main([
          'eval',
          '--endpoint',
          endpoint.url,
          '--model',
          'router',
          '--testset',
          join(dir, 'test.jsonl'),
          '--catalog',
          join(dir, 'test.jsonl'),
        ]),
        2,
      );
      assert.match(
        errors.join('\n'),
        /--catalog with --testset .*test\.jsonl: a file of rendered rows does not say who asked/,
      );
      assert.equal(
        await main([
          'eval',
          '--endpoint',
          endpoint.url,
          '--model',
          'router',
          '--traces',
          join(dir, 'test.jsonl'),
          '--catalog',
          'x',
        ]),
        2,
      );
      assert.match(errors.join('\n'), /--catalog applies to --cases and --testset/);
    } finally {
      console.error = original;
    }
  });

  it('--traces: production decisions as cases; what records no decision is skipped and counted', async () => {
    const tools = [TOOLS[0]];
    const user = (content: string) => ({ role: 'user', content });
    writeFileSync(
      join(dir, 'traces.jsonl'),
      [
        {
          messages: [
            user('invoice 1001'),
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'get_invoice', arguments: '{"number":"1001"}' } },
              ],
            },
          ],
          tools,
          metadata: { domain: 'billing', gateway: { escalated: true } },
        },
        {
          messages: [
            user('weather in Paris'),
            { role: 'assistant', content: '{"tool":null,"verdict":"abstain","code":"no_tool"}' },
          ],
          tools,
          metadata: { gateway: { escalated: false } },
        },
        { messages: [user('invoice 1002'), { role: 'assistant', content: 'Sure, here is your invoice.' }], tools },
        { messages: [user('hello'), { role: 'assistant', content: 'hi' }] },
      ]
        .map((t) => JSON.stringify(t))
        .join('\n') + '\n{not json\n',
    );
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(' '));
    try {
      const out = join(dir, 'traces-report');
      assert.equal(
        await main([
          'eval',
          '--endpoint',
          endpoint.url,
          '--model',
          'router',
          '--traces',
          join(dir, 'traces.jsonl'),
          '--resamples',
          '50',
          '--out',
          out,
        ]),
        0,
      );
      const m = (JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvalReport).results[0]!.metrics;
      assert.equal(m.n, 2, 'the call and the abstention');
      assert.equal(m.exactMatch.value, 1, 'the stand-in answers both as production did');
      assert.match(errors.join('\n'), /skipped 3 of 5 traces: no_decision 1, no_tools 1, invalid_json 1/);
      assert.match(errors.join('\n'), /traces\.jsonl:3: no_decision: the final message is not a decision/);

      assert.equal(
        await main([
          'eval',
          '--endpoint',
          endpoint.url,
          '--model',
          'router',
          '--traces',
          join(dir, 'traces.jsonl'),
          '--escalated-only',
          '--resamples',
          '50',
          '--out',
          join(dir, 'escalated'),
        ]),
        0,
      );
      assert.equal(
        (JSON.parse(readFileSync(join(dir, 'escalated', 'report.json'), 'utf8')) as EvalReport).results[0]!.metrics.n,
        1,
      );

      writeFileSync(
        join(dir, 'prose.jsonl'),
        JSON.stringify({ messages: [user('invoice 1'), { role: 'assistant', content: 'done' }], tools }),
      );
      assert.equal(
        await main(['eval', '--endpoint', endpoint.url, '--model', 'router', '--traces', join(dir, 'prose.jsonl')]),
        2,
      );
      assert.match(errors.join('\n'), /--traces .*prose\.jsonl: none of its 1 traces is a routing decision to score/);
      assert.equal(
        await main(['eval', '--endpoint', endpoint.url, '--model', 'router', '--traces', join(dir, 'nowhere')]),
        2,
      );
      assert.match(errors.join('\n'), /--traces .*nowhere: .*no such trace file or directory/);
    } finally {
      console.error = original;
    }
  });
});
