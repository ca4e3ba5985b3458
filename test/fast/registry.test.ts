/** The alias table: versions, idempotent registration and repoints, history, readers beside a writer. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { Registry } from '../../core/deploy/registry.js';
import type { DeployedVersion } from '../../core/deploy/types.js';
import { tempDir } from '../helpers/fixtures.js';

const ref = (sha: string, kind = 'adapter'): ArtifactRef => ({ uri: `file:.flywheel/artifacts/${sha}`, sha256: sha.padEnd(64, '0'), kind, count: 3, bytes: 1234 });

function version(name: string, sha = 'aa', overrides: Partial<DeployedVersion> = {}): Omit<DeployedVersion, 'createdAt'> {
  const alias = name.split('@')[0]!;
  return { name, alias, adapterVersion: `adp-${sha}`, adapter: ref(sha), target: 'local', endpoint: 'http://127.0.0.1:8100/v1', servedModel: name, adapterId: null, baseModel: 'base', runId: 'run-1', evalReport: ref('ee', 'eval-report'), probes: ref('ff', 'smoke-probes'), ...overrides };
}

const move = (requestId: string, action: 'deploy' | 'rollback' = 'deploy') => ({ action, actor: 'test', reason: `because ${requestId}`, requestId });

describe('registry', () => {
  let file: string;
  let reg: Registry;
  const open: Registry[] = [];
  beforeEach(() => {
    file = join(tempDir(), 'nested', 'registry.sqlite');
    reg = Registry.open(file);
    open.push(reg);
  });
  after(() => open.forEach((r) => r.close()));

  it('registers a version once: the same name and adapter again is a no-op, ArtifactRefs round-trip', () => {
    const first = reg.registerVersion({ ...version('router@d1-j1'), createdAt: '2026-01-01T00:00:00.000Z' });
    const again = reg.registerVersion(version('router@d1-j1'));
    assert.deepEqual(again, first);
    assert.equal(first.createdAt, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(reg.version('router@d1-j1')!.adapter, ref('aa'));
    assert.deepEqual(reg.version('router@d1-j1')!.evalReport, ref('ee', 'eval-report'));
    assert.equal(reg.versions('router').length, 1);
    assert.equal(reg.version('router@nope'), undefined);
  });

  it('never reuses a name for another adapter, and names must be alias@…', () => {
    reg.registerVersion(version('router@d1-j1', 'aa'));
    assert.throws(() => reg.registerVersion(version('router@d1-j1', 'bb')), /router@d1-j1 is already registered .* names are never reused/);
    assert.throws(() => reg.registerVersion({ ...version('router@x'), alias: 'other' }), /must be "other@<suffix>"/);
    assert.throws(() => reg.registerVersion(version('router@')), /must be "router@<suffix>"/);
  });

  it('lists versions newest first', () => {
    reg.registerVersion({ ...version('router@a', 'a1'), createdAt: '2026-01-01T00:00:00.000Z' });
    reg.registerVersion({ ...version('router@c', 'c1'), createdAt: '2026-03-01T00:00:00.000Z' });
    reg.registerVersion({ ...version('router@b', 'b1'), createdAt: '2026-02-01T00:00:00.000Z' });
    reg.registerVersion({ ...version('other@z', 'z1'), createdAt: '2026-04-01T00:00:00.000Z' });
    assert.deepEqual(reg.versions('router').map((v) => v.name), ['router@c', 'router@b', 'router@a']);
  });

  it('repoints with history: previous is the old current, newest event first', () => {
    reg.registerVersion(version('router@v1', 'a1'));
    reg.registerVersion(version('router@v2', 'a2'));
    assert.equal(reg.current('router'), undefined, 'registered but never pointed');
    assert.deepEqual(reg.aliases(), []);
    const e1 = reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    assert.equal(e1.previous, null);
    const e2 = reg.repoint('router', 'router@v2', move('wf-2/deploy'));
    assert.equal(e2.previous, 'router@v1');
    const e3 = reg.repoint('router', 'router@v1', move('wf-3/rollback', 'rollback'));
    assert.deepEqual({ version: e3.version, previous: e3.previous, action: e3.action, actor: e3.actor, reason: e3.reason, requestId: e3.requestId }, { version: 'router@v1', previous: 'router@v2', action: 'rollback', actor: 'test', reason: 'because wf-3/rollback', requestId: 'wf-3/rollback' });
    assert.equal(reg.current('router')!.name, 'router@v1');
    assert.deepEqual(reg.history('router').map((e) => [e.version, e.previous]), [['router@v1', 'router@v2'], ['router@v2', 'router@v1'], ['router@v1', null]]);
    assert.ok(e3.id > e2.id && e2.id > e1.id);
    assert.deepEqual(reg.aliases(), [{ alias: 'router', version: 'router@v1' }]);
  });

  it('a repoint retried with the same requestId is a no-op that returns the first event', () => {
    reg.registerVersion(version('router@v1', 'a1'));
    reg.registerVersion(version('router@v2', 'a2'));
    const first = reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    reg.repoint('router', 'router@v2', move('wf-2/deploy'));
    const retried = reg.repoint('router', 'router@v1', move('wf-1/deploy'));
    assert.deepEqual(retried, first);
    assert.equal(reg.history('router').length, 2);
    assert.equal(reg.current('router')!.name, 'router@v2', 'the retry did not move the alias back');
    assert.throws(() => reg.repoint('router', 'router@v2', move('wf-1/deploy')), /requestId wf-1\/deploy already moved router to router@v1/);
  });

  it('refuses a version of another alias, or one never registered', () => {
    reg.registerVersion(version('router@v1', 'a1'));
    reg.registerVersion(version('billing@v1', 'b1'));
    assert.throws(() => reg.repoint('router', 'billing@v1', move('x')), /that version belongs to alias billing/);
    assert.throws(() => reg.repoint('router', 'router@ghost', move('y')), /no such version is registered/);
    assert.deepEqual(reg.history('router'), []);
  });

  it('a second connection (the gateway) sees a writer\'s repoint at once; the data survives reopening', () => {
    reg.registerVersion(version('router@v1', 'a1'));
    reg.registerVersion(version('router@v2', 'a2'));
    reg.repoint('router', 'router@v1', move('m1'));
    const reader = Registry.open(file);
    open.push(reader);
    assert.equal(reader.current('router')!.name, 'router@v1');
    reg.repoint('router', 'router@v2', move('m2'));
    assert.equal(reader.current('router')!.name, 'router@v2');
    reg.close();
    reader.close();
    const again = Registry.open(file);
    open.push(again);
    assert.equal(again.history('router').length, 2);
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();
  });

  it('refuses a registry written by a newer schema', () => {
    reg.close();
    const db = new Database(file);
    db.prepare('UPDATE schema_version SET version = 99').run();
    db.close();
    assert.throws(() => Registry.open(file), /schema version 99; this flywheel knows version 2/);
  });
});

describe('registry schema', () => {
  it('upgrades a version-1 file (no probes column) in place, keeping its versions and history', () => {
    const path = join(tempDir('flywheel-registry-v1-'), 'registry.sqlite');
    const db = new Database(path);
    db.exec(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);
      CREATE TABLE versions (name TEXT PRIMARY KEY, alias TEXT NOT NULL, adapter_version TEXT NOT NULL, adapter TEXT NOT NULL, adapter_sha TEXT NOT NULL,
        target TEXT NOT NULL, endpoint TEXT NOT NULL, served_model TEXT NOT NULL, adapter_id TEXT, base_model TEXT NOT NULL, run_id TEXT, eval_report TEXT, created_at TEXT NOT NULL);
      CREATE TABLE alias_events (id INTEGER PRIMARY KEY AUTOINCREMENT, alias TEXT NOT NULL, version TEXT NOT NULL, previous TEXT, action TEXT NOT NULL,
        actor TEXT NOT NULL, reason TEXT NOT NULL, request_id TEXT NOT NULL UNIQUE, at TEXT NOT NULL);`);
    db.prepare(`INSERT INTO versions VALUES ('r@old', 'r', 'adp-1', ?, ?, 'local', 'http://x/v1', 'r@old', NULL, 'base', NULL, NULL, '2026-01-01T00:00:00Z')`).run(JSON.stringify(ref('aa')), ref('aa').sha256);
    db.prepare(`INSERT INTO alias_events (alias, version, previous, action, actor, reason, request_id, at) VALUES ('r', 'r@old', NULL, 'deploy', 'a', 'b', 'q1', '2026-01-01T00:00:00Z')`).run();
    db.close();
    const registry = Registry.open(path);
    try {
      assert.equal(registry.current('r')?.name, 'r@old');
      assert.equal(registry.current('r')?.probes, null);
      registry.registerVersion(version('r@new', 'bb'));
      assert.deepEqual(registry.version('r@new')?.probes, ref('ff', 'smoke-probes'));
    } finally {
      registry.close();
    }
  });
});
