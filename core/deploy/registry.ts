/**
 * The alias table: every deployed version and every move of every alias, in one SQLite file.
 * Deploy activities write it; the gateway reads it on every request (WAL, so readers never wait on a writer).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ArtifactRef } from '../artifacts/types.js';
import type { AliasAction, AliasEvent, DeployedVersion, DeployTarget } from './types.js';
import { InputError } from '../errors.js';

/** 2: versions.probes (the smoke-probes artifact), added to version-1 files on open. */
const SCHEMA_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
  name TEXT PRIMARY KEY,
  alias TEXT NOT NULL,
  adapter_version TEXT NOT NULL,
  adapter TEXT NOT NULL,
  adapter_sha TEXT NOT NULL,
  target TEXT NOT NULL CHECK (target IN ('local', 'vllm', 'lorax')),
  endpoint TEXT NOT NULL,
  served_model TEXT NOT NULL,
  adapter_id TEXT,
  base_model TEXT NOT NULL,
  run_id TEXT,
  eval_report TEXT,
  probes TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS versions_by_alias ON versions (alias, created_at);
CREATE TABLE IF NOT EXISTS alias_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  alias TEXT NOT NULL,
  version TEXT NOT NULL REFERENCES versions (name),
  previous TEXT,
  action TEXT NOT NULL CHECK (action IN ('deploy', 'rollback')),
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  request_id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alias_events_by_alias ON alias_events (alias, id);
`;

interface VersionRow {
  name: string;
  alias: string;
  adapter_version: string;
  adapter: string;
  adapter_sha: string;
  target: DeployTarget;
  endpoint: string;
  served_model: string;
  adapter_id: string | null;
  base_model: string;
  run_id: string | null;
  eval_report: string | null;
  probes: string | null;
  created_at: string;
}

interface EventRow {
  id: number;
  alias: string;
  version: string;
  previous: string | null;
  action: AliasAction;
  actor: string;
  reason: string;
  request_id: string;
  at: string;
}

function toVersion(r: VersionRow): DeployedVersion {
  return {
    name: r.name,
    alias: r.alias,
    adapterVersion: r.adapter_version,
    adapter: JSON.parse(r.adapter) as ArtifactRef,
    target: r.target,
    endpoint: r.endpoint,
    servedModel: r.served_model,
    adapterId: r.adapter_id,
    baseModel: r.base_model,
    runId: r.run_id,
    evalReport: r.eval_report === null ? null : (JSON.parse(r.eval_report) as ArtifactRef),
    probes: r.probes === null ? null : (JSON.parse(r.probes) as ArtifactRef),
    createdAt: r.created_at,
  };
}

function toEvent(r: EventRow): AliasEvent {
  return { id: r.id, alias: r.alias, version: r.version, previous: r.previous, action: r.action, actor: r.actor, reason: r.reason, requestId: r.request_id, at: r.at };
}

export interface RepointOptions {
  action: AliasAction;
  actor: string;
  reason: string;
  /** Idempotency key: a second repoint with the same key returns the first event and changes nothing. */
  requestId: string;
  /** Compare-and-swap: move only if the alias serves exactly this version now (null: no version yet). */
  expectedCurrent?: string | null;
}

/** A move or registration that contradicts the registry (a reused name, a moved alias): retrying cannot help. */
export class RegistryConflict extends InputError {
  override name = 'RegistryConflict';
}

export class Registry {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {}

  /** Open (creating the file, its directory and the schema if needed). */
  static open(path: string): Registry {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    try {
      // The gateway reads while a deploy worker writes: WAL lets them, busy_timeout rides out the brief write locks.
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.transaction(() => {
        db.exec(DDL);
        const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
        if (!row) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
        else if (row.version > SCHEMA_VERSION) throw new Error(`registry ${path} has schema version ${row.version}; this flywheel knows version ${SCHEMA_VERSION} (upgrade it)`);
        else if (row.version < 2) {
          db.exec('ALTER TABLE versions ADD COLUMN probes TEXT');
          db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);
        }
      }).immediate();
    } catch (err) {
      db.close();
      throw err;
    }
    return new Registry(db, path);
  }

  /** Open, run fn, close: for callers that need the table for one operation. */
  static async using<T>(path: string, fn: (r: Registry) => Promise<T> | T): Promise<T> {
    const registry = Registry.open(path);
    try {
      return await fn(registry);
    } finally {
      registry.close();
    }
  }

  /** Record a version. Registering the same name with the same adapter again is a no-op; names are never reused. */
  registerVersion(v: Omit<DeployedVersion, 'createdAt'> & { createdAt?: string }): DeployedVersion {
    if (!v.name.startsWith(`${v.alias}@`) || v.name.length === v.alias.length + 1) {
      throw new RegistryConflict(`version name ${v.name} must be "${v.alias}@<suffix>" (the gateway resolves pinned names by that prefix)`);
    }
    return this.db.transaction((): DeployedVersion => {
      const existing = this.row(v.name);
      if (existing) {
        if (existing.adapter_sha !== v.adapter.sha256 || existing.alias !== v.alias) {
          throw new RegistryConflict(`version ${v.name} is already registered for alias ${existing.alias} with adapter ${existing.adapter_sha.slice(0, 12)}; names are never reused (got alias ${v.alias}, adapter ${v.adapter.sha256.slice(0, 12)})`);
        }
        return toVersion(existing);
      }
      this.db
        .prepare(
          `INSERT INTO versions (name, alias, adapter_version, adapter, adapter_sha, target, endpoint, served_model, adapter_id, base_model, run_id, eval_report, probes, created_at)
           VALUES (@name, @alias, @adapterVersion, @adapter, @adapterSha, @target, @endpoint, @servedModel, @adapterId, @baseModel, @runId, @evalReport, @probes, @createdAt)`,
        )
        .run({
          name: v.name,
          alias: v.alias,
          adapterVersion: v.adapterVersion,
          adapter: JSON.stringify(v.adapter),
          adapterSha: v.adapter.sha256,
          target: v.target,
          endpoint: v.endpoint,
          servedModel: v.servedModel,
          adapterId: v.adapterId,
          baseModel: v.baseModel,
          runId: v.runId,
          evalReport: v.evalReport === null ? null : JSON.stringify(v.evalReport),
          probes: v.probes === null ? null : JSON.stringify(v.probes),
          createdAt: v.createdAt ?? new Date().toISOString(),
        });
      return toVersion(this.row(v.name)!);
    }).immediate();
  }

  version(name: string): DeployedVersion | undefined {
    const r = this.row(name);
    return r && toVersion(r);
  }

  /** Every version of an alias, newest first. */
  versions(alias: string): DeployedVersion[] {
    return (this.db.prepare('SELECT * FROM versions WHERE alias = ? ORDER BY created_at DESC, rowid DESC').all(alias) as VersionRow[]).map(toVersion);
  }

  /** The version the alias points at now (its latest event), or undefined if it was never pointed. */
  current(alias: string): DeployedVersion | undefined {
    const r = this.db
      .prepare('SELECT v.* FROM alias_events e JOIN versions v ON v.name = e.version WHERE e.alias = ? ORDER BY e.id DESC LIMIT 1')
      .get(alias) as VersionRow | undefined;
    return r && toVersion(r);
  }

  /** Point the alias at a version of its own, appending an event. Retried with the same requestId: returns the first event. */
  repoint(alias: string, versionName: string, opts: RepointOptions): AliasEvent {
    return this.db.transaction((): AliasEvent => {
      const done = this.db.prepare('SELECT * FROM alias_events WHERE request_id = ?').get(opts.requestId) as EventRow | undefined;
      if (done) {
        if (done.alias !== alias || done.version !== versionName) {
          throw new RegistryConflict(`requestId ${opts.requestId} already moved ${done.alias} to ${done.version}; it cannot also move ${alias} to ${versionName}`);
        }
        return toEvent(done);
      }
      const v = this.row(versionName);
      if (!v) throw new RegistryConflict(`cannot point ${alias} at ${versionName}: no such version is registered`);
      if (v.alias !== alias) throw new RegistryConflict(`cannot point ${alias} at ${versionName}: that version belongs to alias ${v.alias}`);
      const previous = this.current(alias)?.name ?? null;
      if (opts.expectedCurrent !== undefined && opts.expectedCurrent !== previous) {
        throw new RegistryConflict(`alias ${alias} now serves ${previous ?? 'nothing'}, not ${opts.expectedCurrent ?? 'nothing'} as expected: it moved meanwhile; nothing changed`);
      }
      const info = this.db
        .prepare('INSERT INTO alias_events (alias, version, previous, action, actor, reason, request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(alias, versionName, previous, opts.action, opts.actor, opts.reason, opts.requestId, new Date().toISOString());
      return toEvent(this.db.prepare('SELECT * FROM alias_events WHERE id = ?').get(info.lastInsertRowid) as EventRow);
    }).immediate();
  }

  /** The move made under an idempotency key, if any. */
  event(requestId: string): AliasEvent | undefined {
    const r = this.db.prepare('SELECT * FROM alias_events WHERE request_id = ?').get(requestId) as EventRow | undefined;
    return r && toEvent(r);
  }

  /** Every move of the alias, newest first. */
  history(alias: string): AliasEvent[] {
    return (this.db.prepare('SELECT * FROM alias_events WHERE alias = ? ORDER BY id DESC').all(alias) as EventRow[]).map(toEvent);
  }

  /** Every alias that points somewhere, with its current version. */
  aliases(): Array<{ alias: string; version: string }> {
    return this.db
      .prepare(
        `SELECT e.alias AS alias, e.version AS version FROM alias_events e
         WHERE e.id = (SELECT MAX(id) FROM alias_events WHERE alias = e.alias) ORDER BY e.alias`,
      )
      .all() as Array<{ alias: string; version: string }>;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private row(name: string): VersionRow | undefined {
    return this.db.prepare('SELECT * FROM versions WHERE name = ?').get(name) as VersionRow | undefined;
  }
}
