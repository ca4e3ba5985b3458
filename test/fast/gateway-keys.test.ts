/**
 * Gateway client keys over real HTTP, a real SQLite registry and a local stand-in for the serving backend
 * (helpers/backend-stand-in.ts, in place of vLLM): 401s, the key's name in the decision log, rotation without a
 * restart, keys from the environment, and no anonymous gateway beyond loopback unless asked for.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gatewaySchema } from '../../core/config/schema.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { traceFilesAt } from '../../core/traces/files.js';
import type { Trace } from '../../core/traces/types.js';
import { ClientKeysError, createClientKey, GATEWAY_KEYS_ENV, loadClientKeys } from '../../gateway/client-keys.js';
import { startGateway } from '../../gateway/server.js';
import { startBackendStandIn, type BackendStandIn } from '../helpers/backend-stand-in.js';
import { tempDir } from '../helpers/fixtures.js';

describe('gateway client keys', () => {
  const dir = tempDir('flywheel-gateway-keys-');
  const registryFile = join(dir, 'registry.sqlite');
  const keysFile = join(dir, 'keys');
  const tracesDir = join(dir, 'traces');
  let backend: BackendStandIn;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let alice = '';

  const ask = async (key?: string) => {
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model: 'router', messages: [{ role: 'user', content: 'show record 001' }] }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: { message: string; type: string; code: string } },
    };
  };

  before(async () => {
    backend = await startBackendStandIn(() => ({
      call: 'get_record',
      arguments: { recordId: '001' },
      confidence: 0.95,
    }));
    const registry = await openRegistry(registryFile);
    const sha = '1'.repeat(64);
    await registry.registerVersion({
      name: 'router@v1',
      alias: 'router',
      adapterVersion: 'adp-1',
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
    await registry.repoint('router', 'router@v1', {
      action: 'deploy',
      actor: 'test',
      reason: 'first',
      requestId: 'd1',
    });
    await registry.close();
    alice = createClientKey(keysFile, 'alice');
    gw = await startGateway(gatewaySchema.parse({ port: 0, registry: registryFile, tracesDir, keysFile }), {
      env: { [GATEWAY_KEYS_ENV]: 'ci-runner=ci-key-1' },
    });
  });
  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it('creates a key once: only its hash is kept, the file is private, a name is not reused', () => {
    assert.match(alice, /^fwk_[A-Za-z0-9_-]{43}$/);
    const text = readFileSync(keysFile, 'utf8');
    assert.match(text, /^alice:[0-9a-f]{64}\n$/);
    assert.ok(!text.includes(alice), 'the key itself is never stored');
    assert.equal(statSync(keysFile).mode & 0o777, 0o600);
    assert.throws(() => createClientKey(keysFile, 'alice'), /already has a key named alice/);
  });

  it('no key, or a wrong one: an OpenAI-shaped 401; a right one: the answer, and its name in the decision log', async () => {
    for (const key of [undefined, 'fwk_wrong', `${alice}x`]) {
      const { status, body } = await ask(key);
      assert.equal(status, 401);
      assert.deepEqual([body.error?.type, body.error?.code], ['invalid_request_error', 'invalid_api_key']);
    }
    assert.equal((await fetch(`${gw.url}/models`)).status, 401);
    assert.equal((await ask(alice)).status, 200);
    assert.equal((await ask('ci-key-1')).status, 200, 'a key from the environment');
    const traces = (await traceFilesAt(tracesDir)).flatMap((f) =>
      readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Trace & { metadata: { gateway: { key: string } } }),
    );
    assert.deepEqual(
      traces.map((t) => t.metadata.gateway.key),
      ['alice', 'ci-runner'],
    );
    assert.ok(
      !readFileSync((await traceFilesAt(tracesDir))[0]!, 'utf8').includes(alice),
      'the key itself is not logged',
    );
  });

  it('rotation without a restart: a new key works as soon as it is added, the old one stops when its line goes', async () => {
    const bob = createClientKey(keysFile, 'alice-2026-12');
    assert.equal((await ask(bob)).status, 200);
    assert.equal((await ask(alice)).status, 200, 'both valid while callers move over');
    writeFileSync(
      keysFile,
      readFileSync(keysFile, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('alice:'))
        .join('\n'),
    );
    assert.equal((await ask(alice)).status, 401);
    assert.equal((await ask(bob)).status, 200);
    // Emptying the file revokes its keys; it never opens the gateway to requests without one.
    const before = readFileSync(keysFile, 'utf8');
    writeFileSync(keysFile, '');
    assert.deepEqual([(await ask(bob)).status, (await ask()).status, (await ask('ci-key-1')).status], [401, 401, 200]);
    writeFileSync(keysFile, before);
  });

  it('beyond loopback: no keys is refused unless allowAnonymous; bad key settings name the variable, never the value', async () => {
    await assert.rejects(
      startGateway(gatewaySchema.parse({ host: '0.0.0.0', port: 0, registry: registryFile, tracesDir }), { env: {} }),
      (e: Error) => e instanceof ClientKeysError && /allowAnonymous/.test(e.message),
    );
    const open = await startGateway(
      gatewaySchema.parse({ host: '0.0.0.0', port: 0, registry: registryFile, tracesDir, allowAnonymous: true }),
      { env: {} },
    );
    await open.close();
    assert.throws(
      () => loadClientKeys({ env: { [GATEWAY_KEYS_ENV]: 'ci-runner=secret-value,broken' } }),
      (e: Error) =>
        e.message.includes(GATEWAY_KEYS_ENV) && e.message.includes('entry 2') && !e.message.includes('secret-value'),
    );
    assert.throws(() => loadClientKeys({ keysFile: join(dir, 'missing') }), /does not exist/);
  });
});
