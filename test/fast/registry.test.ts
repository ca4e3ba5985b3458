/** The alias table on SQLite: the backend contract (helpers/registry-contract.ts), WAL, and upgrading old files. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openRegistry } from '../../core/deploy/registry.js';
import { tempDir } from '../helpers/fixtures.js';
import { ref, registryContract, version } from '../helpers/registry-contract.js';

describe('registry (SQLite)', () => {
  registryContract({
    fresh: async () => join(tempDir(), 'nested', 'registry.sqlite'),
    setSchemaVersion: async (path, n) => {
      const db = new Database(path);
      db.prepare('UPDATE schema_version SET version = ?').run(n);
      db.close();
    },
  });

  it('the file is in WAL mode, so the gateway reads while a deploy writes', async () => {
    const path = join(tempDir(), 'registry.sqlite');
    await (await openRegistry(path)).close();
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();
  });
});

describe('registry schema', () => {
  it('upgrades a version-1 file (no probes column) in place, keeping its versions and history', async () => {
    const path = join(tempDir('flywheel-registry-v1-'), 'registry.sqlite');
    const db = new Database(path);
    db.exec(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);
      CREATE TABLE versions (name TEXT PRIMARY KEY, alias TEXT NOT NULL, adapter_version TEXT NOT NULL, adapter TEXT NOT NULL, adapter_sha TEXT NOT NULL,
        target TEXT NOT NULL, endpoint TEXT NOT NULL, served_model TEXT NOT NULL, adapter_id TEXT, base_model TEXT NOT NULL, run_id TEXT, eval_report TEXT, created_at TEXT NOT NULL);
      CREATE TABLE alias_events (id INTEGER PRIMARY KEY AUTOINCREMENT, alias TEXT NOT NULL, version TEXT NOT NULL, previous TEXT, action TEXT NOT NULL,
        actor TEXT NOT NULL, reason TEXT NOT NULL, request_id TEXT NOT NULL UNIQUE, at TEXT NOT NULL);`);
    db.prepare(
      `INSERT INTO versions VALUES ('r@old', 'r', 'adp-1', ?, ?, 'local', 'http://x/v1', 'r@old', NULL, 'base', NULL, NULL, '2026-01-01T00:00:00Z')`,
    ).run(JSON.stringify(ref('aa')), ref('aa').sha256);
    db.prepare(
      `INSERT INTO alias_events (alias, version, previous, action, actor, reason, request_id, at) VALUES ('r', 'r@old', NULL, 'deploy', 'a', 'b', 'q1', '2026-01-01T00:00:00Z')`,
    ).run();
    db.close();
    const registry = await openRegistry(path);
    try {
      assert.equal((await registry.current('r'))?.name, 'r@old');
      assert.equal((await registry.current('r'))?.probes, null);
      await registry.registerVersion(version('r@new', 'bb'));
      assert.deepEqual((await registry.version('r@new'))?.probes, ref('ff', 'smoke-probes'));
    } finally {
      await registry.close();
    }
  });
});
