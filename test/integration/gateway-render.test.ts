/**
 * Serving parity (gateway.render): a real agent's request, sent with the official `openai` client with every
 * tool of both sandboxes (listed from the real servers over stdio) and a multi-turn conversation, reaches the
 * backend as the training renderer would render the same case, byte for byte; the answer is an OpenAI
 * tool_calls message or a documented abstention; bad tool lists are OpenAI-shaped 400s naming the tool.
 * The backend is a stand-in for `flywheel serve` / vLLM (helpers/backend-stand-in.ts); the trainer's serve
 * is tested for real elsewhere.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { CatalogTool } from '../../core/catalog/types.js';
import { gatewaySchema } from '../../core/config/schema.js';
import { renderRow } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { traceFilesAt } from '../../core/traces/files.js';
import type { EvalReport } from '../../core/eval/types.js';
import { startGateway } from '../../gateway/server.js';
import { main } from '../../scripts/cli.js';
import {
  type BackendStandIn,
  type ChatRequest,
  startBackendStandIn,
  startFrontierStandIn,
} from '../helpers/backend-stand-in.js';
import { tempDir } from '../helpers/fixtures.js';
import { listAllTools, stdioSandbox } from '../helpers/sandbox.js';

const CALLER = { name: 'ar-clerk', scopes: ['ebs.ar.read', 'ebs.ar.write'] };

describe('gateway renders agent requests as training did', () => {
  const dir = tempDir('flywheel-gateway-render-');
  const registryFile = join(dir, 'registry.sqlite');
  const tracesDir = join(dir, 'traces');
  let backend: BackendStandIn;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let client: OpenAI;
  const agentTools: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = [];
  const catalogTools: CatalogTool[] = [];
  /** Each tool's required scopes as the sandboxes declare them (`_meta.scopes`), as ingest reads them. */
  const declaredScopes: Record<string, string[]> = {};

  before(async () => {
    for (const name of ['salesforce', 'oracle-ebs'] as const) {
      const sandbox = await stdioSandbox(name);
      for (const t of await listAllTools(sandbox.client)) {
        declaredScopes[t.name] = Array.isArray(t._meta?.scopes) ? (t._meta.scopes as string[]) : [];
        catalogTools.push({
          id: `agent/${t.name}`,
          server: 'agent',
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
          scopes: [],
        });
        agentTools.push({
          type: 'function',
          function: {
            name: t.name,
            ...(t.description ? { description: t.description } : {}),
            parameters: t.inputSchema as Record<string, unknown>,
          },
        });
      }
      await sandbox.close();
    }
    backend = await startBackendStandIn((body: ChatRequest) => {
      const last = body.messages.at(-1)!.content ?? '';
      if (last.includes('weather')) return { abstain: { code: 'no_tool', reason: '' }, confidence: 0.9 };
      if (last.startsWith('unsure:')) return { call: 'get_invoice', arguments: { customerTrxId: 1 }, confidence: 0.1 };
      return { call: 'get_invoice', arguments: { customerTrxId: 104073 }, confidence: 0.9 };
    });
    const writer = await openRegistry(registryFile);
    const sha = 'a'.repeat(64);
    await writer.registerVersion({
      name: 'router@v1',
      alias: 'router',
      adapterVersion: 'adp-aaaaaaaa',
      adapter: { uri: `file:x/${sha}`, sha256: sha, kind: 'adapter', count: 2, bytes: 10 },
      target: 'local',
      endpoint: backend.url,
      servedModel: 'router@v1',
      adapterId: null,
      baseModel: 'tiny-base',
      runId: null,
      evalReport: null,
      probes: null,
    });
    await writer.repoint('router', 'router@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'r1' });
    await writer.close();
    gw = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir,
        timeoutMs: 5000,
        render: { sliceSize: 6, caller: CALLER },
      }),
    );
    client = new OpenAI({ baseURL: gw.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it("the prompt the backend gets is the training renderer's, byte for byte, for a 37-tool multi-turn request", async () => {
    assert.equal(agentTools.length, 37, 'every tool of both sandboxes');
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: "You are the finance team's assistant. Caller: admin; scopes: everything." },
      { role: 'user', content: 'which customers do we have in Japan?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'find_customers', arguments: '{"country":"JP"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: '{"customers":[{"customerId":1042,"name":"Nakamura Trading"}]}',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'ok, show me invoice 104073 for ' },
          { type: 'text', text: 'Nakamura' },
        ],
      },
    ];
    const before = backend.requests.length;
    const answer = await client.chat.completions.create({ model: 'router', messages, tools: agentTools });
    const sent = backend.requests[before]!;

    // The same case as a training row: the configured caller, the conversation, the slice the gateway chose.
    const slice = sent.tools!.map((t) => t.function.name);
    assert.equal(slice.length, 6);
    assert.deepEqual(slice, [...slice].sort(), 'offered in name order, as training renders them');
    assert.ok(slice.includes('get_invoice'), `the retriever's slice holds the asked-for tool: ${slice.join(', ')}`);
    const row: RouterRow = {
      id: 'parity',
      domain: 'agent',
      entities: [],
      request: '',
      persona: CALLER,
      tools: slice,
      messages: [
        { role: 'system', content: "You are the finance team's assistant. Caller: admin; scopes: everything." },
        { role: 'user', content: 'which customers do we have in Japan?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'find_customers', arguments: '{"country":"JP"}' } },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: '{"customers":[{"customerId":1042,"name":"Nakamura Trading"}]}',
        },
        { role: 'user', content: 'ok, show me invoice 104073 for Nakamura' },
      ],
      target: { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' },
      provenance: { source: 'handwritten' },
    };
    const training = renderRow(row, new Map(catalogTools.map((t) => [t.id, t])));
    assert.equal(JSON.stringify(sent.messages), JSON.stringify(training.prompt), 'messages, byte for byte');
    assert.equal(JSON.stringify(sent.tools), JSON.stringify(training.tools), 'tools, byte for byte');
    assert.ok(
      sent.messages[0]!.content!.endsWith(`\nCaller: ar-clerk; scopes: ebs.ar.read, ebs.ar.write.`),
      'the caller and scopes come from the config',
    );
    assert.ok(!JSON.stringify(sent.messages).includes('scopes: everything'), 'never from the request');

    const message = answer.choices[0]!.message;
    assert.equal(answer.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(message.tool_calls?.[0]?.type === 'function' && message.tool_calls[0].function.name, 'get_invoice');
  });

  it('an abstention comes back as router JSON content plus message.flywheel {decision, verdict, code}', async () => {
    const answer = await client.chat.completions.create({
      model: 'router',
      messages: [{ role: 'user', content: 'what is the weather in Osaka?' }],
      tools: agentTools,
    });
    const message = answer.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & {
      flywheel?: unknown;
    };
    assert.deepEqual(message.flywheel, { decision: 'abstain', verdict: 'abstain', code: 'no_tool' });
    assert.equal(JSON.parse(message.content!).tool, null);
  });

  it('refuses a call its caller lacks scopes for: missing_scope in content and message.flywheel, a header, the trace', async () => {
    assert.ok(declaredScopes.get_invoice?.length, "precondition: the Oracle EBS sandbox declares get_invoice's scopes");
    const traces = join(dir, 'traces-scopes');
    const sales = { name: 'sales-rep', scopes: ['sf.opportunity.read'] };
    const checking = (caller: typeof CALLER) =>
      startGateway(
        gatewaySchema.parse({
          port: 0,
          registry: registryFile,
          tracesDir: traces,
          timeoutMs: 5000,
          render: { sliceSize: 6, caller },
        }),
        { toolScopes: declaredScopes },
      );
    const refusing = await checking(sales);
    try {
      const res = await fetch(`${refusing.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'router',
          messages: [{ role: 'user', content: 'show me invoice 104073' }],
          tools: agentTools,
        }),
      });
      const body = (await res.json()) as {
        choices: Array<{ message: { content: string; tool_calls?: unknown[]; flywheel?: unknown } }>;
      };
      assert.equal(res.status, 200);
      assert.equal(
        backend.requests.at(-1)!.messages[0]!.content!.includes('Caller: sales-rep'),
        true,
        'the router was asked, as the configured caller',
      );
      const message = body.choices[0]!.message;
      assert.equal(message.tool_calls, undefined, 'the call is not passed on');
      assert.deepEqual(JSON.parse(message.content), { tool: null, verdict: 'violation', code: 'missing_scope' });
      assert.deepEqual(message.flywheel, { decision: 'abstain', verdict: 'violation', code: 'missing_scope' });
      assert.equal(res.headers.get('x-flywheel-scope-refused'), 'get_invoice');
      const [file] = await traceFilesAt(traces);
      const logged = JSON.parse(readFileSync(file!, 'utf8').trim().split('\n').at(-1)!);
      assert.equal(
        logged.metadata.gateway.scopeRefused,
        `called get_invoice; the caller lacks ${declaredScopes.get_invoice!.filter((x) => !sales.scopes.includes(x)).join(', ')}`,
      );
      assert.match(logged.messages.at(-1).content, /missing_scope/, 'the trace records the answer the agent got');
    } finally {
      await refusing.close();
    }
    // A caller holding the scopes gets the call.
    const allowed = await checking({ name: 'ar-clerk', scopes: declaredScopes.get_invoice! });
    try {
      const answer = await new OpenAI({
        baseURL: allowed.url,
        apiKey: 'unused',
        maxRetries: 0,
      }).chat.completions.create({
        model: 'router',
        messages: [{ role: 'user', content: 'show me invoice 104073' }],
        tools: agentTools,
      });
      assert.equal(
        (answer.choices[0]!.message.tool_calls![0] as { function: { name: string } }).function.name,
        'get_invoice',
      );
    } finally {
      await allowed.close();
    }
  });

  it('logs what the router was shown: the rendered prompt, its hash, the slice and how many tools were offered', async () => {
    const files = await traceFilesAt(tracesDir);
    const traces = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    assert.ok(traces.length >= 2);
    for (const t of traces) {
      const r = t.metadata.gateway.rendered;
      assert.match(r.promptSha256, /^[0-9a-f]{64}$/);
      assert.equal(r.offered, 37);
      assert.equal(r.caller, CALLER.name);
      assert.deepEqual(
        t.tools.map((x: { function: { name: string } }) => x.function.name),
        r.slice,
      );
      assert.deepEqual(
        { persona: t.metadata.persona, scopes: t.metadata.scopes },
        { persona: CALLER.name, scopes: CALLER.scopes },
      );
    }
  });

  it('cuts a conversation too long for the model from its oldest turns, a call with its results, and records it', async () => {
    const small = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir: join(dir, 'traces-small'),
        timeoutMs: 5000,
        render: { sliceSize: 6, caller: CALLER, maxPromptTokens: 2000 },
      }),
    );
    try {
      const filler = 'Earlier we talked through the quarter close checklist at length. '.repeat(12);
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: 'user', content: `first: ${filler}` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'find_customers', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: filler },
        { role: 'user', content: `second: ${filler}` },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'show me invoice 104073' },
      ];
      const before = backend.requests.length;
      const { response } = await new OpenAI({ baseURL: small.url, apiKey: 'unused', maxRetries: 0 }).chat.completions
        .create({ model: 'router', messages, tools: agentTools })
        .withResponse();
      const sent = backend.requests[before]!.messages;
      const dropped = Number(response.headers.get('x-flywheel-truncated-turns'));
      assert.ok(dropped >= 3, `the first user turn, the call and its result go together: dropped ${dropped}`);
      assert.equal(sent.length, 1 + messages.length - dropped, 'the router prompt plus the turns kept');
      assert.equal(sent.at(-1)!.content, 'show me invoice 104073', 'the deciding turn is always kept');
      assert.notEqual(sent[1]!.role, 'tool', 'no tool result without its call');
      const [file] = await traceFilesAt(join(dir, 'traces-small'));
      assert.equal(
        JSON.parse(readFileSync(file!, 'utf8').trim().split('\n').at(-1)!).metadata.gateway.rendered.truncatedTurns,
        dropped,
      );

      // A last turn that alone does not fit is refused, not cut.
      await assert.rejects(
        new OpenAI({ baseURL: small.url, apiKey: 'unused', maxRetries: 0 }).chat.completions.create({
          model: 'router',
          messages: [{ role: 'user', content: filler.repeat(10) }],
          tools: agentTools,
        }),
        (err: unknown) =>
          err instanceof OpenAI.BadRequestError &&
          /last user turn alone .* over gateway.render.maxPromptTokens \(2000\)/.test(err.message),
      );
    } finally {
      await small.close();
    }
  });

  it("records whether the frontier's tool was in the slice, and `flywheel eval --traces` replays the escalated decisions through a gateway", async () => {
    // The frontier (a stand-in for e.g. OpenAI) sees the agent's whole tool list, so its call is the target.
    const frontier = await startFrontierStandIn('sk-frontier', (body) => {
      const name = (body.messages.at(-1)!.content ?? '').includes('show me invoice')
        ? 'get_invoice'
        : 'close_opportunity';
      return {
        tool_calls: [
          {
            id: 'call_f',
            type: 'function',
            function: {
              name,
              arguments: name === 'get_invoice' ? '{"customerTrxId":104073}' : '{"opportunityId":"006X"}',
            },
          },
        ],
      };
    });
    const traces = join(dir, 'traces-escalating');
    const escalating = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir: traces,
        timeoutMs: 5000,
        render: { sliceSize: 6, caller: CALLER },
        escalation: { baseUrl: frontier.url, model: 'frontier', apiKeyEnv: 'FRONTIER_KEY' },
      }),
      { env: { FRONTIER_KEY: 'sk-frontier' } },
    );
    try {
      const agent = new OpenAI({ baseURL: escalating.url, apiKey: 'unused', maxRetries: 0 });
      for (const content of [
        'unsure: show me invoice 104073',
        'unsure: print the quarterly aging report',
        'show me invoice 104073',
      ]) {
        await agent.chat.completions.create({
          model: 'router',
          messages: [{ role: 'user', content }],
          tools: agentTools,
        });
      }
      const [file] = await traceFilesAt(traces);
      const logged = readFileSync(file!, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).metadata.gateway);
      assert.deepEqual(
        logged.map((g) => g.escalated),
        [true, true, false],
      );
      assert.equal(logged[0].rendered.targetInSlice, true, `get_invoice is in the slice ${logged[0].rendered.slice}`);
      assert.ok(
        !logged[1].rendered.slice.includes('close_opportunity'),
        'precondition: an aging report request does not retrieve close_opportunity',
      );
      assert.equal(logged[1].rendered.targetInSlice, false);
      assert.equal(logged[2].rendered.targetInSlice, null, 'not escalated: the target is not known');

      // Replayed through a gateway that forwards the logged prompts as they are (no `render`: they were rendered
      // already) to the same alias, so the router sees what it saw in production.
      const replaying = await startGateway(
        gatewaySchema.parse({
          port: 0,
          registry: registryFile,
          tracesDir: join(dir, 'traces-replay'),
          timeoutMs: 5000,
        }),
      );
      const out = join(dir, 'trace-eval');
      const before = backend.requests.length;
      try {
        assert.equal(
          await main([
            'eval',
            '--endpoint',
            replaying.url,
            '--model',
            'router',
            '--traces',
            traces,
            '--escalated-only',
            '--concurrency',
            '1',
            '--resamples',
            '50',
            '--out',
            out,
          ]),
          0,
        );
      } finally {
        await replaying.close();
      }
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvalReport;
      const m = report.results[0]!.metrics;
      assert.equal(m.n, 2, 'the two escalated decisions');
      assert.equal(m.exactMatch.value, 0, "the router's get_invoice(1) matches neither frontier call");
      assert.equal(m.toolAccuracy.value, 0.5);
      const replayed = backend.requests.slice(before);
      assert.equal(replayed.length, 2);
      const sentFirst = readFileSync(file!, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))[0];
      assert.equal(
        JSON.stringify(replayed[0]!.messages),
        JSON.stringify(sentFirst.messages.slice(0, -1)),
        'the logged prompt, unchanged',
      );
    } finally {
      await escalating.close();
      await frontier.close();
    }
  });

  it('refuses no tools, a tool offered twice and a tool with an invalid schema with OpenAI 400s naming it', async () => {
    const ask = (tools: unknown[]) =>
      client.chat.completions.create({
        model: 'router',
        messages: [{ role: 'user', content: 'hi' }],
        tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[],
      });
    const refused = async (tools: unknown[], pattern: RegExp, param: string) => {
      await assert.rejects(ask(tools), (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError, String(err));
        assert.match(err.message, pattern);
        assert.equal((err.error as { param?: string }).param, param);
        return true;
      });
    };
    const before = backend.requests.length;
    await refused([], /offers none/, 'tools');
    await refused(
      [agentTools[0], agentTools[1], agentTools[0]],
      new RegExp(`tool ${agentTools[0]!.function.name} is offered twice`),
      'tools[2].function.name',
    );
    const broken = {
      type: 'function',
      function: { name: 'broken_tool', parameters: { type: 'object', properties: { n: { type: 'integr' } } } },
    };
    await refused(
      [agentTools[0], broken],
      /tool broken_tool: parameters is not a valid JSON Schema/,
      'tools[1].function.parameters',
    );
    assert.equal(backend.requests.length, before, 'nothing bad reaches the backend');
  });
});
