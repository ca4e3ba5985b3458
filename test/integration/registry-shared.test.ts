/**
 * One alias table for many hosts: two gateway processes read a PostgreSQL registry (a real server the test starts)
 * while a deploy, on a third connection as from a worker on another machine, moves the alias under traffic. Every
 * request is answered by one of the two versions, and once the move has returned, both gateways route to the new
 * one on their very next request. The backend is a local stand-in for a serving backend (vLLM).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRegistry } from '../../core/deploy/registry.js';
import { openSpendBudget } from '../../gateway/spend-budget.js';
import type { DeployedVersion } from '../../core/deploy/types.js';
import { startBackendStandIn, type BackendStandIn } from '../helpers/backend-stand-in.js';
import { REPO, spawnListening, tempDir } from '../helpers/fixtures.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

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

function ver(name: string, endpoint: string): Omit<DeployedVersion, 'createdAt'> {
  const sha = Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64);
  return {
    name,
    alias: 'router',
    adapterVersion: `adp-${sha.slice(0, 8)}`,
    adapter: { uri: `file:x/${sha}`, sha256: sha, kind: 'adapter', count: 2, bytes: 10 },
    target: 'local',
    endpoint,
    servedModel: name,
    adapterId: null,
    baseModel: 'base',
    runId: null,
    evalReport: null,
    probes: null,
  };
}

describe('a registry shared by many hosts (PostgreSQL)', () => {
  let server: Postgres;
  let backend: BackendStandIn;
  const gateways: Array<Awaited<ReturnType<typeof spawnListening>>> = [];
  before(async () => {
    server = await startPostgres();
    backend = await startBackendStandIn(() => ({
      call: 'get_record',
      arguments: { recordId: '001' },
      confidence: 0.95,
    }));
  });
  after(async () => {
    for (const g of gateways) await g.stop();
    await backend?.close();
    server?.stop();
  });

  it('two gateways follow a deploy that moves the alias under traffic, without a lost or misrouted request', async () => {
    const deploy = await openRegistry(server.url); // the deploy worker's connection
    await deploy.registerVersion(ver('router@v1', backend.url));
    await deploy.repoint('router', 'router@v1', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'd1' });
    for (const name of ['a', 'b']) {
      gateways.push(
        await spawnListening(
          [
            join(REPO, 'bin', 'flywheel.js'),
            'gateway',
            '--registry',
            server.url,
            '--port',
            '0',
            '--traces-dir',
            join(tempDir(), name),
          ],
          /listening on (http:\/\/\S+\/v1)/,
        ),
      );
    }
    const urls = gateways.map((g) => g.match[1]!.replace(/,$/, ''));
    const ask = async (url: string) => {
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'router',
          messages: [{ role: 'user', content: 'show record 001' }],
          tools: TOOLS,
        }),
      });
      assert.equal(res.status, 200, await res.text());
      return res.headers.get('x-flywheel-version');
    };
    assert.deepEqual(await Promise.all(urls.map(ask)), ['router@v1', 'router@v1']);

    // Traffic on both gateways while the deploy registers v2 and moves the alias.
    let moved = false;
    const afterMove: string[] = [];
    const seen = new Set<string>();
    let sent = 0;
    const traffic = urls.map(async (url) => {
      for (let i = 0; i < 40; i++) {
        const movedBefore = moved;
        const v = (await ask(url))!;
        sent++;
        seen.add(v);
        if (movedBefore) afterMove.push(v);
      }
    });
    await new Promise((r) => setTimeout(r, 100));
    await deploy.registerVersion(ver('router@v2', backend.url));
    await deploy.repoint('router', 'router@v2', {
      action: 'deploy',
      actor: 'test',
      reason: 'second',
      requestId: 'd2',
      expectedCurrent: 'router@v1',
    });
    moved = true;
    await Promise.all(traffic);
    await deploy.close();

    assert.equal(sent, 80, 'every request answered');
    assert.ok(
      [...seen].every((v) => v === 'router@v1' || v === 'router@v2'),
      [...seen].join(', '),
    );
    assert.ok(afterMove.length > 0, 'requests were sent after the move');
    assert.deepEqual([...new Set(afterMove)], ['router@v2'], 'no gateway routed to the old version after the move');
    assert.deepEqual(await Promise.all(urls.map(ask)), ['router@v2', 'router@v2']);
  });

  it('the escalation budget on the PostgreSQL registry: one budget for every replica, windows as on SQLite', async () => {
    const [a, b] = [
      await openSpendBudget({ requestsPerMinute: 3, tokensPerDay: 10, perKey: { requestsPerMinute: 2 } }, server.url),
      await openSpendBudget({ requestsPerMinute: 3, tokensPerDay: 10, perKey: { requestsPerMinute: 2 } }, server.url),
    ];
    try {
      const t = new Date('2026-12-01T10:00:30Z');
      // Two replicas, one budget: alice's two, then bob's one fill the total of three.
      assert.deepEqual([await a.acquire('alice', t), await b.acquire('alice', t)], [null, null]);
      assert.match((await a.acquire('alice', t))!, /2 requests\/minute for key alice/);
      assert.equal(await b.acquire('bob', t), null);
      assert.match((await a.acquire('bob', t))!, /3 requests\/minute for all keys/);
      assert.equal(await b.acquire('bob', new Date('2026-12-01T10:01:00Z')), null, 'a new minute');
      await a.spend('alice', 10, t);
      assert.match((await b.acquire('carol', new Date('2026-12-01T10:02:00Z')))!, /10 tokens\/day for all keys/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
