/**
 * The escalation budget over real HTTP with a real SQLite registry, and local stand-ins for the serving backend
 * (in place of vLLM) and the frontier endpoint (in place of OpenAI), which counts what escalation really sent:
 * per-key and total caps in requests per minute and tokens per day; over a cap the small model answers, marked not
 * escalated with the reason; the counters survive a restart.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gatewaySchema } from '../../core/config/schema.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { GATEWAY_KEYS_ENV } from '../../gateway/client-keys.js';
import { startGateway } from '../../gateway/server.js';
import { openSpendBudget } from '../../gateway/spend-budget.js';
import {
  startBackendStandIn,
  startFrontierStandIn,
  type BackendStandIn,
  type FrontierStandIn,
} from '../helpers/backend-stand-in.js';
import { tempDir } from '../helpers/fixtures.js';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_record',
      description: 'Read one record',
      parameters: { type: 'object', properties: { recordId: { type: 'string' } }, required: ['recordId'] },
    },
  },
];
const ENV = { [GATEWAY_KEYS_ENV]: 'alice=key-a,bob=key-b', FRONTIER_KEY: 'sk-frontier' };

describe('escalation budget', () => {
  const dir = tempDir('flywheel-gateway-budget-');
  let backend: BackendStandIn;
  let frontier: FrontierStandIn;

  const registry = async (name: string) => {
    const file = join(dir, `${name}.sqlite`);
    const r = await openRegistry(file);
    const sha = '2'.repeat(64);
    await r.registerVersion({
      name: 'router@v1',
      alias: 'router',
      adapterVersion: 'adp-2',
      adapter: { uri: `file:x/${sha}`, sha256: sha, kind: 'adapter', count: 1, bytes: 1 },
      target: 'local',
      endpoint: backend.url,
      servedModel: 'router@v1',
      adapterId: null,
      baseModel: 'b',
      runId: null,
      evalReport: null,
      probes: null,
    });
    await r.repoint('router', 'router@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'd1' });
    await r.close();
    return file;
  };
  const gateway = (registryFile: string, budget: Record<string, unknown>) =>
    startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir: join(dir, 'traces'),
        escalation: {
          baseUrl: frontier.url,
          model: 'frontier-x',
          apiKeyEnv: 'FRONTIER_KEY',
          minConfidence: 0.5,
          budget,
        },
      }),
      { env: ENV },
    );
  const ask = async (gw: { url: string }, key: string) => {
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model: 'router',
        messages: [{ role: 'user', content: 'maybe record 002' }],
        tools: TOOLS,
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as {
      choices: Array<{ message: { tool_calls?: Array<{ function: { arguments: string } }> } }>;
    };
    return {
      escalated: res.headers.get('x-flywheel-escalated'),
      skipped: res.headers.get('x-flywheel-escalation-skipped'),
      args: body.choices[0]!.message.tool_calls?.[0]?.function.arguments,
    };
  };

  before(async () => {
    // The small model is unsure (confidence 0.2 < minConfidence 0.5), so every request asks to escalate.
    backend = await startBackendStandIn(() => ({
      call: 'get_record',
      arguments: { recordId: 'SMALL' },
      confidence: 0.2,
    }));
    frontier = await startFrontierStandIn('sk-frontier', () => ({
      tool_calls: [
        { id: 'call_f', type: 'function', function: { name: 'get_record', arguments: '{"recordId":"FRONTIER"}' } },
      ],
    }));
  });
  after(async () => {
    await backend?.close();
    await frontier?.close();
  });

  it('requests per minute, per key and in total: over a cap the small model answers, not escalated, with the reason', async () => {
    // Stay inside one minute window: start early in a minute.
    while (new Date().getUTCSeconds() > 45) await new Promise((r) => setTimeout(r, 1000));
    const gw = await gateway(await registry('rpm'), { requestsPerMinute: 3, perKey: { requestsPerMinute: 2 } });
    const sent = frontier.requests.length;
    try {
      const a = [await ask(gw, 'key-a'), await ask(gw, 'key-a'), await ask(gw, 'key-a')];
      assert.deepEqual(
        a.map((r) => r.escalated),
        ['true', 'true', 'false'],
      );
      assert.equal(a[2]!.skipped, 'escalation budget: 2 requests/minute for key alice spent');
      assert.equal(a[2]!.args, '{"recordId":"SMALL"}', "the small model's decision");
      const b = [await ask(gw, 'key-b'), await ask(gw, 'key-b')];
      assert.deepEqual(
        b.map((r) => r.escalated),
        ['true', 'false'],
      );
      assert.equal(b[1]!.skipped, 'escalation budget: 3 requests/minute for all keys spent');
      assert.equal(frontier.requests.length - sent, 3, 'the frontier saw exactly the budgeted requests');
    } finally {
      await gw.close();
    }
  });

  it("tokens per day, charged from the frontier's usage; the counters survive a restart", async () => {
    const file = await registry('tpd');
    // Each frontier answer reports 2 tokens: two escalations fill a 4-token day.
    const first = await gateway(file, { tokensPerDay: 4 });
    const sent = frontier.requests.length;
    try {
      assert.deepEqual(
        [(await ask(first, 'key-a')).escalated, (await ask(first, 'key-b')).escalated],
        ['true', 'true'],
      );
      const over = await ask(first, 'key-a');
      assert.deepEqual([over.escalated, over.skipped], ['false', 'escalation budget: 4 tokens/day for all keys spent']);
    } finally {
      await first.close();
    }
    const restarted = await gateway(file, { tokensPerDay: 4 });
    try {
      assert.equal(
        (await ask(restarted, 'key-b')).skipped,
        'escalation budget: 4 tokens/day for all keys spent',
        'spent is spent after a restart',
      );
      assert.equal(frontier.requests.length - sent, 2);
    } finally {
      await restarted.close();
    }
  });

  it('windows roll over: a new minute and a new day start from zero', async () => {
    const budget = await openSpendBudget({ requestsPerMinute: 1, tokensPerDay: 10 }, join(dir, 'windows.sqlite'));
    const t = new Date('2026-12-01T10:00:30Z');
    assert.equal(await budget.acquire(null, t), null);
    assert.match((await budget.acquire(null, t))!, /1 requests\/minute/);
    assert.equal(await budget.acquire(null, new Date('2026-12-01T10:01:00Z')), null);
    await budget.spend(null, 10, t);
    assert.match((await budget.acquire(null, new Date('2026-12-01T11:00:00Z')))!, /10 tokens\/day/);
    assert.equal(await budget.acquire(null, new Date('2026-12-02T00:00:01Z')), null);
    await budget.close();
    // A key's name is only a name: one called "requests" has its tokens counted as tokens.
    const perKey = await openSpendBudget({ perKey: { tokensPerDay: 5 } }, join(dir, 'names.sqlite'));
    assert.equal(await perKey.acquire('requests', t), null);
    await perKey.spend('requests', 5, t);
    assert.equal(await perKey.acquire('requests', t), 'escalation budget: 5 tokens/day for key requests spent');
    assert.equal(await perKey.acquire('tokens', t), null);
    await perKey.close();
  });
});
