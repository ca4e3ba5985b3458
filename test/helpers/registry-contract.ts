/**
 * What every alias-registry backend must do, written once and run against each (SQLite in test/fast/registry.test.ts,
 * PostgreSQL in test/integration/registry-postgres.test.ts): versions, idempotent registration and repoints,
 * history, a second connection (the gateway) beside a writer, concurrent moves of one alias, schema versions.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { openRegistry, RegistryConflict, type AliasRegistry } from '../../core/deploy/registry.js';
import type { DeployedVersion } from '../../core/deploy/types.js';

export const ref = (sha: string, kind = 'adapter'): ArtifactRef => ({
  uri: `file:.flywheel/artifacts/${sha}`,
  sha256: sha.padEnd(64, '0'),
  kind,
  count: 3,
  bytes: 1234,
});

export function version(
  name: string,
  sha = 'aa',
  overrides: Partial<DeployedVersion> = {},
): Omit<DeployedVersion, 'createdAt'> {
  const alias = name.split('@')[0]!;
  return {
    name,
    alias,
    adapterVersion: `adp-${sha}`,
    adapter: ref(sha),
    target: 'local',
    endpoint: 'http://127.0.0.1:8100/v1',
    servedModel: name,
    adapterId: null,
    baseModel: 'base',
    runId: 'run-1',
    evalReport: ref('ee', 'eval-report'),
    probes: ref('ff', 'smoke-probes'),
    ...overrides,
  };
}

export const move = (requestId: string, action: 'deploy' | 'rollback' = 'deploy') => ({
  action,
  actor: 'test',
  reason: `because ${requestId}`,
  requestId,
});

export interface RegistryBackend {
  /** A location no test has used yet. */
  fresh(): Promise<string>;
  /** Mark the registry at `location` as written by schema version `n` (as a newer flywheel would). */
  setSchemaVersion(location: string, n: number): Promise<void>;
}

export function registryContract(backend: RegistryBackend): void {
  const opened: AliasRegistry[] = [];
  const open = async (location: string) => {
    const r = await openRegistry(location);
    opened.push(r);
    return r;
  };
  const fresh = async () => open(await backend.fresh());
  after(async () => {
    for (const r of opened) await r.close().catch(() => undefined);
  });

  it('registers a version once: the same name and adapter again is a no-op, ArtifactRefs round-trip', async () => {
    const reg = await fresh();
    const first = await reg.registerVersion({ ...version('router@d1-j1'), createdAt: '2026-01-01T00:00:00.000Z' });
    const again = await reg.registerVersion(version('router@d1-j1'));
    assert.deepEqual(again, first);
    assert.equal(first.createdAt, '2026-01-01T00:00:00.000Z');
    assert.deepEqual((await reg.version('router@d1-j1'))!.adapter, ref('aa'));
    assert.deepEqual((await reg.version('router@d1-j1'))!.evalReport, ref('ee', 'eval-report'));
    assert.equal((await reg.versions('router')).length, 1);
    assert.equal(await reg.version('router@nope'), undefined);
  });

  it('never reuses a name for another adapter, and names must be alias@…', async () => {
    const reg = await fresh();
    await reg.registerVersion(version('router@d1-j1', 'aa'));
    await assert.rejects(
      reg.registerVersion(version('router@d1-j1', 'bb')),
      /router@d1-j1 is already registered .* names are never reused/,
    );
    await assert.rejects(reg.registerVersion({ ...version('router@x'), alias: 'other' }), /must be "other@<suffix>"/);
    await assert.rejects(reg.registerVersion(version('router@')), /must be "router@<suffix>"/);
  });

  it('lists versions newest first', async () => {
    const reg = await fresh();
    await reg.registerVersion({ ...version('router@a', 'a1'), createdAt: '2026-01-01T00:00:00.000Z' });
    await reg.registerVersion({ ...version('router@c', 'c1'), createdAt: '2026-03-01T00:00:00.000Z' });
    await reg.registerVersion({ ...version('router@b', 'b1'), createdAt: '2026-02-01T00:00:00.000Z' });
    await reg.registerVersion({ ...version('other@z', 'z1'), createdAt: '2026-04-01T00:00:00.000Z' });
    assert.deepEqual(
      (await reg.versions('router')).map((v) => v.name),
      ['router@c', 'router@b', 'router@a'],
    );
    assert.deepEqual(
      (await reg.allVersions()).map((v) => v.name),
      ['other@z', 'router@c', 'router@b', 'router@a'],
    );
  });

  it('repoints with history: previous is the old current, newest event first', async () => {
    const reg = await fresh();
    await reg.registerVersion(version('router@v1', 'a1'));
    await reg.registerVersion(version('router@v2', 'a2'));
    assert.equal(await reg.current('router'), undefined, 'registered but never pointed');
    assert.deepEqual(await reg.aliases(), []);
    const e1 = await reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    assert.equal(e1.previous, null);
    const e2 = await reg.repoint('router', 'router@v2', move('wf-2/deploy'));
    assert.equal(e2.previous, 'router@v1');
    const e3 = await reg.repoint('router', 'router@v1', move('wf-3/rollback', 'rollback'));
    assert.deepEqual(
      {
        version: e3.version,
        previous: e3.previous,
        action: e3.action,
        actor: e3.actor,
        reason: e3.reason,
        requestId: e3.requestId,
      },
      {
        version: 'router@v1',
        previous: 'router@v2',
        action: 'rollback',
        actor: 'test',
        reason: 'because wf-3/rollback',
        requestId: 'wf-3/rollback',
      },
    );
    assert.equal((await reg.current('router'))!.name, 'router@v1');
    assert.deepEqual(
      (await reg.history('router')).map((e) => [e.version, e.previous]),
      [
        ['router@v1', 'router@v2'],
        ['router@v2', 'router@v1'],
        ['router@v1', null],
      ],
    );
    assert.ok(e3.id > e2.id && e2.id > e1.id);
    assert.deepEqual(await reg.aliases(), [{ alias: 'router', version: 'router@v1' }]);
    assert.deepEqual(await reg.event('wf-2/deploy'), e2);
  });

  it('a repoint retried with the same requestId is a no-op that returns the first event', async () => {
    const reg = await fresh();
    await reg.registerVersion(version('router@v1', 'a1'));
    await reg.registerVersion(version('router@v2', 'a2'));
    const first = await reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    await reg.repoint('router', 'router@v2', move('wf-2/deploy'));
    const retried = await reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    assert.deepEqual(retried, first);
    assert.equal((await reg.history('router')).length, 2);
    assert.equal((await reg.current('router'))!.name, 'router@v2', 'the retry did not move the alias back');
    await assert.rejects(
      reg.repoint('router', 'router@v2', move('wf-1/deploy')),
      /requestId wf-1\/deploy already moved router to router@v1/,
    );
  });

  it('refuses a version of another alias, or one never registered', async () => {
    const reg = await fresh();
    await reg.registerVersion(version('router@v1', 'a1'));
    await reg.registerVersion(version('billing@v1', 'b1'));
    await assert.rejects(reg.repoint('router', 'billing@v1', move('x')), /that version belongs to alias billing/);
    await assert.rejects(reg.repoint('router', 'router@ghost', move('y')), /no such version is registered/);
    assert.deepEqual(await reg.history('router'), []);
  });

  it("a second connection (the gateway) sees a writer's repoint at once; the data survives reopening", async () => {
    const location = await backend.fresh();
    const reg = await open(location);
    await reg.registerVersion(version('router@v1', 'a1'));
    await reg.registerVersion(version('router@v2', 'a2'));
    await reg.repoint('router', 'router@v1', move('m1'));
    const reader = await open(location);
    assert.equal((await reader.current('router'))!.name, 'router@v1');
    await reg.repoint('router', 'router@v2', move('m2'));
    assert.equal((await reader.current('router'))!.name, 'router@v2');
    await reg.close();
    await reader.close();
    const again = await open(location);
    assert.equal((await again.history('router')).length, 2);
  });

  it('two writers moving one alias at once with compare-and-swap: exactly one wins, the history stays a chain', async () => {
    const location = await backend.fresh();
    const [a, b] = [await open(location), await open(location)];
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) await a.registerVersion(version(`router@v${n}`, `a${n}`));
    await a.repoint('router', 'router@v1', move('start'));
    // Eight deploys all gated against v1, half through each connection: one may move the alias, the rest must see it moved.
    const results = await Promise.allSettled(
      [2, 3, 4, 5, 6, 7, 8].map((n) =>
        (n % 2 ? a : b).repoint('router', `router@v${n}`, { ...move(`deploy-${n}`), expectedCurrent: 'router@v1' }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of results)
      if (r.status === 'rejected')
        assert.ok(r.reason instanceof RegistryConflict && /moved meanwhile/.test(r.reason.message), String(r.reason));
    const history = await b.history('router');
    assert.equal(history.length, 2);
    assert.equal(history[0]!.previous, 'router@v1');
  });

  it('refuses a registry written by a newer schema', async () => {
    const location = await backend.fresh();
    await (await open(location)).close();
    await backend.setSchemaVersion(location, 99);
    await assert.rejects(openRegistry(location), /schema version 99; this flywheel knows version 2/);
  });
}
