/**
 * The router gateway over real HTTP and a real SQLite registry: alias resolution on every request, pinned
 * versions, the escalation cascade, fallbacks, and the trace log feeding back into trace ingestion.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Catalog } from '../../core/catalog/types.js';
import { gatewaySchema, type GatewayConfig } from '../../core/config/schema.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { SYSTEM_PROMPT } from '../../core/dataset/render.js';
import { openRegistry, type AliasRegistry } from '../../core/deploy/registry.js';
import type { DeployedVersion } from '../../core/deploy/types.js';
import { traceFilesAt } from '../../core/traces/files.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import type { Trace } from '../../core/traces/types.js';
import { answerConfidence, decisionConfidence, toolConfidence } from '../../core/router/confidence.js';
import { createEscalator, escalationReason } from '../../gateway/escalate.js';
import { callerOf } from '../../gateway/trace-log.js';
import { routerAnswer } from '../../gateway/router-answer.js';
import { startGateway } from '../../gateway/server.js';
import {
  startBackendStandIn,
  startFrontierStandIn,
  type BackendStandIn,
  type ChatRequest,
  type FrontierStandIn,
  type Scripted,
} from '../helpers/backend-stand-in.js';
import { spawnListening, tempDir } from '../helpers/fixtures.js';

const KEY_ENV = 'FLYWHEEL_TEST_FRONTIER_KEY';
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_record',
      description: 'Read one record',
      parameters: {
        type: 'object',
        properties: { recordId: { type: 'string' } },
        required: ['recordId'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'delete_record',
      description: 'Delete one record',
      parameters: {
        type: 'object',
        properties: { recordId: { type: 'string' } },
        required: ['recordId'],
        additionalProperties: false,
      },
    },
  },
];
/** A hand-built catalog of the shape core/catalog/types.ts describes: one server, the two tools above. */
const CATALOG: Catalog = {
  name: 'gw',
  servers: [{ name: 'crm', tools: 2, quarantined: 0 }],
  tools: TOOLS.map((t) => ({
    id: `crm/${t.function.name}`,
    server: 'crm',
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters,
    scopes: t.function.name === 'get_record' ? ['crm.read'] : ['crm.delete'],
  })),
  quarantined: [],
};

/** What the small model answers, by user request. */
const SCRIPT: Record<string, Scripted> = {
  'show record 001': { call: 'get_record', arguments: { recordId: '001' }, confidence: 0.93 },
  'maybe record 002': { call: 'get_record', arguments: { recordId: '002' }, confidence: 0.2 },
  mumble: { raw: 'I would probably use get_record here.' },
  // Router JSON in content, as vLLM answers under the answer schema.
  'fetch record 005': { raw: '{"tool":"get_record","arguments":{"recordId":"005"}}' },
  'delete everything': {
    abstain: { verdict: 'violation', code: 'missing_scope', reason: 'caller lacks crm.delete' },
    confidence: 0.9,
  },
  'delete record 003': { call: 'delete_record', arguments: { recordId: '003' }, confidence: 0.95 },
  'archive record 004': { call: 'archive_record', arguments: { recordId: '004' }, confidence: 0.9 },
  'read record 007': { call: 'delete_record', arguments: { recordId: '007' }, confidence: 0.9 },
  crash: { status: 500, message: 'CUDA out of memory' },
  'bad request': { status: 400, message: 'messages: cannot apply the chat template' },
};

function ver(
  name: string,
  endpoint: string,
  overrides: Partial<DeployedVersion> = {},
): Omit<DeployedVersion, 'createdAt'> {
  const sha = Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64);
  return {
    name,
    alias: name.split('@')[0]!,
    adapterVersion: `adp-${sha.slice(0, 8)}`,
    adapter: { uri: `file:x/${sha}`, sha256: sha, kind: 'adapter', count: 2, bytes: 10 },
    target: 'local',
    endpoint,
    servedModel: name,
    adapterId: null,
    baseModel: 'tiny-base',
    runId: null,
    evalReport: null,
    probes: null,
    ...overrides,
  };
}

const system = (persona: string, scopes: string[]) => ({
  role: 'system',
  content: `${SYSTEM_PROMPT}\nCaller: ${persona}; scopes: ${scopes.join(', ')}.`,
});

describe('router gateway', () => {
  const dir = tempDir('flywheel-gateway-');
  const registryFile = join(dir, 'registry.sqlite');
  const tracesDir = join(dir, 'traces');
  let backend: BackendStandIn;
  let frontier: FrontierStandIn;
  let writer: AliasRegistry;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  const logs: string[] = [];
  let chats = 0;

  async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    if (res.status === 200) chats++;
    return {
      status: res.status,
      json,
      version: res.headers.get('x-flywheel-version'),
      escalated: res.headers.get('x-flywheel-escalated'),
    };
  }
  const ask = (request: string, extra: Record<string, unknown> = {}) =>
    chat({
      model: 'router',
      messages: [system('support-agent', ['crm.read']), { role: 'user', content: request }],
      tools: TOOLS,
      ...extra,
    });

  before(async () => {
    backend = await startBackendStandIn(
      (body: ChatRequest) => SCRIPT[body.messages.at(-1)!.content!] ?? { status: 400, message: 'unscripted request' },
    );
    frontier = await startFrontierStandIn('sk-frontier-test', () => ({
      tool_calls: [
        {
          id: 'call_frontier',
          type: 'function',
          function: { name: 'get_record', arguments: '{"recordId":"FRONTIER"}' },
        },
      ],
    }));
    writer = await openRegistry(registryFile); // the deploy worker's connection
    await writer.registerVersion(ver('router@v1', backend.url));
    await writer.registerVersion(ver('router@v2', backend.url));
    await writer.registerVersion(
      ver('lorax@v1', backend.url, { target: 'lorax', servedModel: 'tiny-base', adapterId: 'adapters/lorax-v1' }),
    );
    await writer.registerVersion(ver('dead@v1', 'http://127.0.0.1:9/v1'));
    await writer.repoint('router', 'router@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'r1' });
    await writer.repoint('lorax', 'lorax@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'l1' });
    await writer.repoint('dead', 'dead@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'd1' });
    const cfg: GatewayConfig = gatewaySchema.parse({
      port: 0,
      registry: registryFile,
      tracesDir,
      timeoutMs: 5000,
      escalation: {
        baseUrl: frontier.url,
        model: 'frontier-large',
        apiKeyEnv: KEY_ENV,
        minConfidence: 0.5,
        on: ['invalid'],
      },
    });
    gw = await startGateway(cfg, { log: (l) => logs.push(l), env: { [KEY_ENV]: 'sk-frontier-test' } });
  });
  after(async () => {
    await gw?.close();
    await writer?.close();
    await backend?.close();
    await frontier?.close();
  });

  it('resolves an alias to its current version and forwards to the backend with logprobs', async () => {
    const r = await ask('show record 001');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.model, 'router@v1');
    assert.equal(r.version, 'router@v1');
    assert.equal(r.escalated, 'false');
    assert.equal(r.json.choices[0].message.tool_calls[0].function.name, 'get_record');
    assert.equal(r.json.choices[0].logprobs, null, 'logprobs the caller did not ask for are stripped');
    const sent = backend.requests.at(-1)!;
    assert.equal(sent.model, 'router@v1');
    assert.equal(sent.logprobs, true);
    assert.equal(frontier.requests.length, 0, 'a confident decision does not escalate');
    const withLogprobs = await ask('show record 001', { logprobs: true });
    assert.ok(withLogprobs.json.choices[0].logprobs.content.length > 0, 'a caller asking for logprobs keeps them');
  });

  it('passes a call answered as router JSON in content (as vLLM does) to the agent as OpenAI tool_calls', async () => {
    const r = await ask('fetch record 005');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const choice = r.json.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    assert.equal(choice.message.tool_calls[0].function.name, 'get_record');
    assert.deepEqual(JSON.parse(choice.message.tool_calls[0].function.arguments), { recordId: '005' });
  });

  it('serves /v1/models (alias + current version) and /health', async () => {
    const models = (await (await fetch(`${gw.url}/models`)).json()) as { data: Array<{ id: string; version: string }> };
    assert.deepEqual(
      models.data.map((m) => [m.id, m.version]),
      [
        ['dead', 'dead@v1'],
        ['lorax', 'lorax@v1'],
        ['router', 'router@v1'],
      ],
    );
    const health = await fetch(gw.url.replace(/\/v1$/, '/health'));
    assert.equal(health.status, 200);
  });

  it('a repoint switches the very next request, without a restart; a pinned version stays pinned', async () => {
    await writer.repoint('router', 'router@v2', { action: 'deploy', actor: 'test', reason: 'second', requestId: 'r2' });
    const next = await ask('show record 001');
    assert.equal(next.json.model, 'router@v2');
    assert.equal(backend.requests.at(-1)!.model, 'router@v2');
    const pinned = await chat({
      model: 'router@v1',
      messages: [{ role: 'user', content: 'show record 001' }],
      tools: TOOLS,
    });
    assert.equal(pinned.status, 200);
    assert.equal(pinned.version, 'router@v1');
    assert.equal(backend.requests.at(-1)!.model, 'router@v1');
    await writer.repoint('router', 'router@v1', { action: 'rollback', actor: 'test', reason: 'back', requestId: 'r3' });
    assert.equal((await ask('show record 001')).version, 'router@v1');
  });

  it('sends lorax versions the base model and the adapter id', async () => {
    const r = await chat({ model: 'lorax', messages: [{ role: 'user', content: 'show record 001' }], tools: TOOLS });
    assert.equal(r.status, 200);
    assert.equal(r.json.model, 'lorax@v1');
    const sent = backend.requests.at(-1)!;
    assert.equal(sent.model, 'tiny-base');
    assert.equal(sent.adapter_id, 'adapters/lorax-v1');
  });

  it('answers OpenAI-style errors: unknown alias or version 404, stream 400, backend failures 502 with its message', async () => {
    const unknown = await chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.code, 'model_not_found');
    assert.match(
      unknown.json.error.message,
      /`nope` does not exist: it is not an alias this gateway serves \(serving: dead, lorax, router\)/,
    );
    assert.equal((await chat({ model: 'router@ghost', messages: [{ role: 'user', content: 'x' }] })).status, 404);
    const stream = await chat({ model: 'router', stream: true, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(stream.status, 400);
    assert.match(stream.json.error.message, /stream/);
    assert.equal((await chat({ model: 'router' })).status, 400);
    const crash = await ask('crash');
    assert.equal(crash.status, 502);
    assert.match(crash.json.error.message, /backend of router@v1: .* answered 500: CUDA out of memory/);
    const bad = await ask('bad request');
    assert.equal(bad.status, 400, "the caller's own mistake stays a 400");
    assert.match(bad.json.error.message, /cannot apply the chat template/);
    const dead = await chat({ model: 'dead', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(dead.status, 502);
    assert.match(dead.json.error.message, /backend of dead@v1/);
  });

  it('escalates a low-confidence decision: the caller gets the frontier answer', async () => {
    const before = frontier.requests.length;
    const r = await ask('maybe record 002', { metadata: { domain: 'crm' } });
    assert.equal(r.status, 200);
    assert.equal(r.escalated, 'true');
    assert.equal(r.json.model, 'router@v1');
    assert.equal(r.json.choices[0].message.tool_calls[0].function.arguments, '{"recordId":"FRONTIER"}');
    assert.equal(frontier.requests.length, before + 1);
    const sent = frontier.requests.at(-1)!;
    assert.equal(sent.model, 'frontier-large');
    assert.equal(frontier.authorizations.at(-1), 'Bearer sk-frontier-test');
    assert.deepEqual(sent.tools, TOOLS);
    assert.equal(sent.messages.at(-1)!.content, 'maybe record 002');
    assert.equal(sent.metadata, undefined, "the gateway's own metadata is not forwarded");
  });

  it('escalates invalid output under the "invalid" rule; an abstention stands when "abstain" is not a rule', async () => {
    const invalid = await ask('mumble');
    assert.equal(invalid.escalated, 'true');
    assert.equal(invalid.json.choices[0].message.tool_calls[0].function.name, 'get_record');
    const abstain = await ask('delete everything');
    assert.equal(abstain.escalated, 'false');
    assert.match(abstain.json.choices[0].message.content, /"tool":null/);
  });

  it("falls back to the small model's answer when the frontier fails", async () => {
    frontier.failing = true;
    try {
      const r = await ask('maybe record 002');
      assert.equal(r.status, 200);
      assert.equal(r.escalated, 'false');
      assert.equal(r.json.choices[0].message.tool_calls[0].function.arguments, '{"recordId":"002"}');
      assert.ok(
        logs.some((l) => /frontier frontier-large failed, answering with router@v1: .*500/.test(l)),
        logs.join('\n'),
      );
    } finally {
      frontier.failing = false;
    }
  });

  it('logs one trace line per answered request, with gateway metadata, that trace ingestion accepts', async () => {
    await ask('show record 001', { metadata: { domain: 'crm' } });
    await chat(
      {
        model: 'router',
        messages: [system('auditor', []), { role: 'user', content: 'delete everything' }],
        tools: TOOLS,
      },
      { 'x-flywheel-domain': 'crm' },
    );
    const files = await traceFilesAt(tracesDir);
    assert.ok(files.every((f) => /gateway-\d{4}-\d{2}-\d{2}\.jsonl$/.test(f)));
    const traces = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Trace),
    );
    assert.equal(traces.length, chats, 'one line per answered request, none for errors');

    const gatewayOf = (t: Trace) => t.metadata!.gateway as Record<string, unknown>;
    const confident = traces.at(-2)!;
    assert.deepEqual(
      {
        ...gatewayOf(confident),
        at: 'x',
        backendLatencyMs: 0,
        confidence: Math.round((gatewayOf(confident).confidence as number) * 100) / 100,
      },
      {
        alias: 'router',
        version: 'router@v1',
        key: null,
        escalated: false,
        confidence: 0.93,
        reason: null,
        backendLatencyMs: 0,
        frontierModel: null,
        frontierError: null,
        at: 'x',
      },
    );
    assert.equal(confident.metadata!.domain, 'crm');
    assert.equal(confident.metadata!.persona, 'support-agent');
    assert.deepEqual(confident.metadata!.scopes, ['crm.read']);
    assert.deepEqual(confident.tools, TOOLS);
    assert.deepEqual(confident.messages.at(-1), {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_standin1', type: 'function', function: { name: 'get_record', arguments: '{"recordId":"001"}' } },
      ],
    });

    const abstained = traces.at(-1)!;
    assert.equal(abstained.metadata!.domain, 'crm', 'domain from the x-flywheel-domain header');
    assert.deepEqual([abstained.metadata!.persona, abstained.metadata!.scopes], ['auditor', []]);
    assert.match(abstained.messages.at(-1)!.content!, /"tool":null/);

    const escalated = traces.find((t) => gatewayOf(t).escalated === true)!;
    assert.equal(gatewayOf(escalated).frontierModel, 'frontier-large');
    assert.match(gatewayOf(escalated).reason as string, /^confidence 0\.200 < 0\.5$/);
    assert.equal(
      escalated.messages.at(-1)!.tool_calls![0]!.function.arguments,
      '{"recordId":"FRONTIER"}',
      'the trace keeps the answer the caller got',
    );
    const failed = traces.find((t) => gatewayOf(t).frontierError)!;
    assert.equal(gatewayOf(failed).escalated, false);
    assert.match(gatewayOf(failed).frontierError as string, /answered 500/);

    // The frontier's answer feeds back: its trace unrolls into a training row. The router's own answers (the
    // confident call, the abstention, the failed escalation) are not labels: training on them confirms the router.
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, [confident, abstained, escalated, failed].map((t) => `${JSON.stringify(t)}\n`).join(''));
    const parsed = parseTraceFile(file, readFileSync(file, 'utf8'));
    const result = ingestTraces(parsed.traces, new CallValidator(CATALOG, async () => ({ ok: true })), {
      catalog: CATALOG,
    });
    assert.deepEqual([...parsed.rejections, ...result.rejections], []);
    assert.equal(result.rows.length, 1, 'the escalated call becomes a row');
    assert.equal(result.stats.droppedTurns.router_answer, 3);
    assert.deepEqual(result.rows[0]!.target, { tool: 'get_record', arguments: { recordId: 'FRONTIER' } });
    assert.deepEqual(result.rows[0]!.persona, {
      name: escalated.metadata!.persona,
      scopes: escalated.metadata!.scopes,
    });
    assert.deepEqual(
      result.rows[0]!.tools,
      escalated.tools!.map((t) => t.function.name),
    );
  });

  it("a gateway trace is one decision: its conversation's earlier calls are history, not labels", () => {
    const call = (id: string, recordId: string) => ({
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id, type: 'function' as const, function: { name: 'get_record', arguments: JSON.stringify({ recordId }) } },
      ],
    });
    const trace: Trace = {
      messages: [
        { role: 'user', content: 'show record 001' },
        call('c1', '001'), // answered by the router itself on an earlier request
        { role: 'tool', tool_call_id: 'c1', content: '{}' },
        { role: 'user', content: 'and record 002' },
        call('c2', '002'), // this request's decision, the frontier's
      ],
      tools: TOOLS,
      metadata: { domain: 'crm', gateway: { escalated: true } },
    };
    const result = ingestTraces(
      [{ file: 'g.jsonl', row: 1, trace }],
      new CallValidator(CATALOG, async () => ({ ok: true })),
      { catalog: CATALOG },
    );
    assert.deepEqual(
      result.rows.map((r) => r.target),
      [{ tool: 'get_record', arguments: { recordId: '002' } }],
    );
    assert.equal(result.stats.droppedTurns.gateway_history, 1);
  });

  it('a frontier that refuses the key: the error names the variable, never the value', async () => {
    const esc = gatewaySchema.parse({
      escalation: { baseUrl: frontier.url, model: 'frontier-large', apiKeyEnv: 'STALE_FRONTIER_KEY' },
    }).escalation!;
    const r = await createEscalator(esc, 5000, { STALE_FRONTIER_KEY: 'sk-stale-0123456789' }).ask({
      messages: [{ role: 'user', content: 'show record 001' }],
    });
    assert.equal(r.ok, false);
    const error = r.ok ? '' : r.error;
    assert.match(error, /^the frontier endpoint refused the API key in STALE_FRONTIER_KEY: .*answered 401/);
    assert.ok(!error.includes('sk-stale'), error);
  });

  it('refuses to start without the frontier key, naming the variable', async () => {
    const cfg = gatewaySchema.parse({
      port: 0,
      registry: registryFile,
      tracesDir,
      escalation: { baseUrl: frontier.url, model: 'm', apiKeyEnv: 'FLYWHEEL_TEST_NO_SUCH_KEY' },
    });
    await assert.rejects(startGateway(cfg, { env: {} }), /environment variable FLYWHEEL_TEST_NO_SUCH_KEY is not set/);
    const backendKeyed = gatewaySchema.parse({
      port: 0,
      registry: registryFile,
      tracesDir,
      backendApiKeyEnv: 'FLYWHEEL_TEST_NO_BACKEND_KEY',
    });
    await assert.rejects(
      startGateway(backendKeyed, { env: {} }),
      /FLYWHEEL_TEST_NO_BACKEND_KEY \(gateway.backendApiKeyEnv\) is not set/,
    );
  });

  it("refuses a call the prompt's caller lacks scopes for when it knows the tools' scopes; passes it for a caller who has them", async () => {
    const checking = await startGateway(
      gatewaySchema.parse({ port: 0, registry: registryFile, tracesDir: join(dir, 'traces-scopes'), timeoutMs: 5000 }),
      { toolScopes: { get_record: ['crm.read'], delete_record: ['crm.delete'] } },
    );
    try {
      const send = async (scopes: string[]) => {
        const res = await fetch(`${checking.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'router',
            messages: [system('support-agent', scopes), { role: 'user', content: 'delete record 003' }],
            tools: TOOLS,
          }),
        });
        return {
          refused: res.headers.get('x-flywheel-scope-refused'),
          message: ((await res.json()) as Record<string, any>).choices[0].message,
        };
      };
      const refused = await send(['crm.read']);
      assert.equal(refused.refused, 'delete_record');
      assert.equal(refused.message.tool_calls, undefined);
      assert.deepEqual(JSON.parse(refused.message.content), {
        tool: null,
        verdict: 'violation',
        code: 'missing_scope',
      });
      const allowed = await send(['crm.read', 'crm.delete']);
      assert.equal(allowed.refused, null);
      assert.equal(allowed.message.tool_calls[0].function.name, 'delete_record');
    } finally {
      await checking.close();
    }
    // Without the tools' scopes nothing is refused: the gateway above (no catalog) passes the call on.
    const r = await chat({
      model: 'router',
      messages: [system('support-agent', ['crm.read']), { role: 'user', content: 'delete record 003' }],
      tools: TOOLS,
    });
    assert.equal(r.json.choices[0].message.tool_calls[0].function.name, 'delete_record');
  });

  it('answers a call to a tool the request did not offer as tool_not_offered (the offer check), not as an invalid answer to escalate', async () => {
    const before = frontier.requests.length;
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'router',
        messages: [system('support-agent', ['crm.read']), { role: 'user', content: 'archive record 004' }],
        tools: TOOLS,
      }),
    });
    const message = ((await res.json()) as Record<string, any>).choices[0].message;
    assert.equal(res.headers.get('x-flywheel-not-offered'), 'archive_record');
    assert.equal(res.headers.get('x-flywheel-escalated'), 'false', 'escalation here is on invalid answers only');
    assert.equal(frontier.requests.length, before);
    assert.equal(message.tool_calls, undefined);
    assert.deepEqual(JSON.parse(message.content), { tool: null, verdict: 'abstain', code: 'tool_not_offered' });
    assert.deepEqual(message.flywheel, { decision: 'abstain', verdict: 'abstain', code: 'tool_not_offered' });
    // An offered tool passes as before.
    assert.equal((await ask('delete record 003')).json.choices[0].message.tool_calls[0].function.name, 'delete_record');
  });

  it('escalates a call the offer check refused under the default rules (rewritten)', async () => {
    const cfg = gatewaySchema.parse({
      port: 0,
      registry: registryFile,
      tracesDir: join(dir, 'rewritten-traces'),
      timeoutMs: 5000,
      escalation: { baseUrl: frontier.url, model: 'frontier-large', apiKeyEnv: KEY_ENV, minConfidence: 0 },
    });
    const gateway = await startGateway(cfg, { env: { [KEY_ENV]: 'sk-frontier-test' } });
    try {
      const before = frontier.requests.length;
      const res = await fetch(`${gateway.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'router',
          messages: [system('support-agent', ['crm.read']), { role: 'user', content: 'archive record 004' }],
          tools: TOOLS,
        }),
      });
      const message = ((await res.json()) as Record<string, any>).choices[0].message;
      assert.equal(res.headers.get('x-flywheel-not-offered'), 'archive_record');
      assert.equal(res.headers.get('x-flywheel-escalated'), 'true');
      assert.equal(frontier.requests.length, before + 1);
      assert.equal(message.tool_calls[0].function.arguments, '{"recordId":"FRONTIER"}');
      const [line] = readFileSync(join(dir, 'rewritten-traces', readdirSync(join(dir, 'rewritten-traces'))[0]!), 'utf8')
        .trim()
        .split('\n');
      const logged = JSON.parse(line!) as Trace;
      assert.equal((logged.metadata!.gateway as { reason: string }).reason, 'rewritten: archive_record not offered');
    } finally {
      await gateway.close();
    }
  });

  it('answers the router as the checks after it say, whatever the backend wrote', () => {
    const tools = [
      {
        function: { name: 'get_record', parameters: { type: 'object', properties: { recordId: { type: 'string' } } } },
      },
      {
        function: {
          name: 'delete_record',
          parameters: { type: 'object', properties: { recordId: { type: 'string' } }, required: ['recordId'] },
        },
      },
    ];
    const messages = [{ role: 'user', content: 'delete record 0031' }];
    const ctx = (shown: string[] | undefined, agent: string[] | undefined) => ({ shown, agent, tools, messages });
    const asJson = { role: 'assistant', content: '{"tool":"delete_record","arguments":{"recordId":"0031"}}' };
    const beyond = routerAnswer(asJson, ctx(['get_record'], ['get_record', 'delete_record']));
    assert.equal(beyond.beyondSlice, 'delete_record');
    assert.equal(beyond.finishReason, 'tool_calls');
    assert.equal(beyond.message.tool_calls![0]!.function!.name, 'delete_record', 'router JSON becomes tool_calls');
    const absent = routerAnswer(asJson, ctx(['get_record'], ['get_record']));
    assert.equal(absent.notOffered, 'delete_record');
    assert.deepEqual(JSON.parse(absent.message.content!), { tool: null, verdict: 'abstain', code: 'tool_not_offered' });
    const native = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_record', arguments: '{"recordId":"0031"}' } }],
    };
    assert.equal(
      routerAnswer(native, ctx(['get_record'], ['get_record'])).message,
      native,
      'a checked call stays as sent',
    );
    assert.equal(routerAnswer(native, ctx(undefined, undefined)).message, native, 'nothing known offered: no check');
    const madeUp = { role: 'assistant', content: '{"tool":"delete_record","arguments":{"recordId":"0099"}}' };
    const ungrounded = routerAnswer(madeUp, ctx(undefined, ['get_record', 'delete_record']));
    assert.deepEqual(ungrounded.ungrounded, ['recordId']);
    assert.deepEqual(JSON.parse(ungrounded.message.content!), {
      tool: null,
      verdict: 'abstain',
      code: 'missing_argument',
    });
    const numeric = { role: 'assistant', content: '{"tool":"delete_record","arguments":{"recordId":31}}' };
    const offSchema = routerAnswer(numeric, {
      ...ctx(undefined, undefined),
      messages: [{ role: 'user', content: 'delete record 31' }],
    });
    assert.equal(offSchema.offSchema, '/recordId must be string');
    assert.equal(offSchema.finishReason, 'stop');
    assert.deepEqual(JSON.parse(offSchema.message.content!), {
      tool: null,
      verdict: 'abstain',
      code: 'missing_argument',
    });
  });

  it('with render, a call to a tool the agent offered but the retriever left out of the slice is answered as that call', async () => {
    const rendering = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir: join(dir, 'traces-beyond'),
        timeoutMs: 5000,
        render: { sliceSize: 1, caller: { name: 'admin', scopes: ['crm.read', 'crm.delete'] } },
      }),
    );
    try {
      const send = async (request: string, tools: unknown[]) => {
        const res = await fetch(`${rendering.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'router', messages: [{ role: 'user', content: request }], tools }),
        });
        return { res, message: ((await res.json()) as Record<string, any>).choices[0].message };
      };
      const beyond = await send('read record 007', TOOLS);
      assert.deepEqual(
        backend.requests.at(-1)!.tools!.map((t) => t.function.name),
        ['get_record'],
        'precondition: the slice left delete_record out',
      );
      assert.equal(beyond.res.headers.get('x-flywheel-beyond-slice'), 'delete_record');
      assert.equal(beyond.message.tool_calls[0].function.name, 'delete_record');
      assert.deepEqual(JSON.parse(beyond.message.tool_calls[0].function.arguments), { recordId: '007' });
      // An agent that did not offer the tool gets tool_not_offered.
      const absent = await send(
        'read record 007',
        TOOLS.filter((t) => t.function.name !== 'delete_record'),
      );
      assert.equal(absent.res.headers.get('x-flywheel-not-offered'), 'delete_record');
      assert.deepEqual(JSON.parse(absent.message.content), {
        tool: null,
        verdict: 'abstain',
        code: 'tool_not_offered',
      });
    } finally {
      await rendering.close();
    }
  });

  it('flywheel gateway: prints its URL and aliases, serves, and stops cleanly on SIGTERM', async () => {
    const code = `import { gatewayCommand } from './scripts/commands/gateway.ts'; process.exitCode = await gatewayCommand.run(${JSON.stringify(['--port', '0', '--registry', registryFile, '--traces-dir', join(dir, 'cli-traces')])});`;
    const { match, proc, stop } = await spawnListening(
      ['--import', 'tsx', '--input-type=module', '-e', code],
      /listening on (http:\S+), serving (.*)\n/,
    );
    assert.match(match[2]!, /router \(router@v1\)/);
    const models = (await (await fetch(`${match[1]!}/models`)).json()) as { data: unknown[] };
    assert.equal(models.data.length, 3);
    const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    await stop();
    assert.equal(await exited, 0);
  });
});

describe('router decisions and confidence', () => {
  const tokens = (parts: Array<[string, number]>) => ({
    content: parts.map(([token, logprob]) => ({ token, logprob, top_logprobs: [] })),
  });

  it('confidence is exp(sum of logprobs) over the tokens overlapping the tool name', () => {
    // {"arguments":{"tool":"get_record"},"tool":"get_record"}: the top-level key (the last one) counts, not the argument.
    const lp = tokens([
      ['{"', -0.1],
      ['arguments', -0.1],
      ['":{"', -0.1],
      ['tool', -0.1],
      ['":"', -0.1],
      ['get', -5],
      ['_record', -5],
      ['"},"', -0.1],
      ['tool', -0.1],
      ['":"', -0.3],
      ['get', -0.2],
      ['_rec', -0.1],
      ['ord', -0.05],
      ['"}', -0.7],
    ]);
    assert.ok(Math.abs(toolConfidence(lp, 'get_record')! - Math.exp(-0.35)) < 1e-12);
    // A token straddling the span's edge counts.
    const straddle = tokens([
      ['{"tool":"g', -0.4],
      ['et_record"}', -0.6],
    ]);
    assert.ok(Math.abs(toolConfidence(straddle, 'get_record')! - Math.exp(-1)) < 1e-12);
  });

  it('for an abstention, the confidence is that of the null after "tool":, not of a quoted one inside a reason', () => {
    const lp = tokens([
      ['{"code":"x","reason":"', 0],
      ['\\"tool\\": ', -1],
      ['null', -9],
      ['","tool":', -0.1],
      ['null', -0.25],
      [',"verdict":"abstain"}', -0.1],
    ]);
    assert.ok(Math.abs(toolConfidence(lp, null)! - Math.exp(-0.25)) < 1e-12);
  });

  it('is null without logprobs or when the choice is not in them', () => {
    assert.equal(toolConfidence(null, 'get_record'), null);
    assert.equal(toolConfidence({ content: null }, 'get_record'), null);
    assert.equal(toolConfidence({ content: [] }, null), null);
    assert.equal(toolConfidence(tokens([['{"tool":"other"}', -0.1]]), 'get_record'), null);
  });

  it("the whole answer's confidence multiplies every token's probability; null where the tool's is", () => {
    const lp = tokens([
      ['{"tool":"', -0.1],
      ['get_record', -0.2],
      ['","arguments":{"recordId":"', 0],
      ['001', -1.5],
      ['"}}', -0.05],
    ]);
    assert.ok(Math.abs(answerConfidence(lp, 'get_record')! - Math.exp(-1.85)) < 1e-12);
    assert.ok(Math.abs(decisionConfidence('answer', lp, 'get_record')! - Math.exp(-1.85)) < 1e-12);
    assert.ok(Math.abs(decisionConfidence('tool', lp, 'get_record')! - Math.exp(-0.2)) < 1e-12, 'the name alone');
    assert.equal(answerConfidence(lp, 'delete_record'), null, 'not the decision its tokens spell (a rewritten one)');
    assert.equal(answerConfidence(null, 'get_record'), null);
    assert.equal(gatewaySchema.parse({}).confidence, 'tool', 'the default reads the tool name');
    assert.throws(() => gatewaySchema.parse({ confidence: 'words' }), /confidence/);
  });

  it('escalation rules: invalid / abstain when listed, confidence below the threshold', () => {
    const esc = { baseUrl: 'http://x/v1', model: 'm', apiKeyEnv: 'K', minConfidence: 0.5, on: ['invalid' as const] };
    const call = { kind: 'call' as const, tool: 't', arguments: {}, callId: null };
    const abstain = { kind: 'no-call' as const, verdict: 'abstain', code: 'no_tool', reason: null };
    assert.equal(escalationReason(call, 0.9, esc), null);
    assert.equal(escalationReason(call, null, esc), null, 'no logprobs: no confidence rule');
    assert.match(escalationReason(call, 0.49, esc)!, /^confidence 0\.490 < 0\.5$/);
    assert.match(escalationReason({ kind: 'invalid', code: null, detail: 'd' }, null, esc)!, /^invalid: d$/);
    assert.equal(escalationReason(abstain, 0.9, esc), null);
    assert.equal(escalationReason(abstain, 0.9, { ...esc, on: ['abstain'] }), 'abstain: no_tool');
    // A call the contract's checks refused is the router's mistake, whatever its confidence.
    const refused = { ...abstain, code: 'tool_not_offered' };
    assert.equal(escalationReason(refused, null, esc, 'x not offered'), null, 'not listed: kept');
    assert.equal(
      escalationReason(refused, null, { ...esc, on: ['invalid', 'rewritten'] }, 'x not offered'),
      'rewritten: x not offered',
    );
    assert.deepEqual(gatewaySchema.parse({ escalation: { baseUrl: 'http://x/v1', model: 'm' } }).escalation!.on, [
      'invalid',
      'rewritten',
    ]);
    assert.equal(
      escalationReason({ kind: 'invalid', code: null, detail: 'd' }, null, undefined),
      null,
      'no escalation section: nothing escalates',
    );
  });

  it('reads the caller line of a rendered prompt', () => {
    assert.deepEqual(
      callerOf([{ role: 'system', content: `${SYSTEM_PROMPT}\nCaller: ops lead; scopes: a.read, b.write.` }]),
      { persona: 'ops lead', scopes: ['a.read', 'b.write'] },
    );
    assert.equal(callerOf([{ role: 'user', content: 'Caller: x; scopes: a.' }]), null);
  });
});

describe('trace files at a path', () => {
  it("lists a directory's *.jsonl / *.json files sorted by name; a file is itself; empty or missing is an error", async () => {
    const d = join(tempDir(), 'traces');
    mkdirSync(join(d, 'sub.jsonl'), { recursive: true });
    for (const f of ['gateway-2026-01-02.jsonl', 'a.json', 'gateway-2026-01-01.jsonl', 'notes.txt'])
      writeFileSync(join(d, f), '');
    assert.deepEqual(
      await traceFilesAt(d),
      ['a.json', 'gateway-2026-01-01.jsonl', 'gateway-2026-01-02.jsonl'].map((f) => join(d, f)),
    );
    assert.deepEqual(await traceFilesAt(join(d, 'notes.txt')), [join(d, 'notes.txt')]);
    const empty = join(tempDir(), 'empty');
    mkdirSync(empty);
    await assert.rejects(traceFilesAt(empty), /empty: the directory holds no \*\.jsonl or \*\.json trace files/);
    await assert.rejects(traceFilesAt(join(d, 'missing')), /missing: no such trace file or directory/);
  });
});
