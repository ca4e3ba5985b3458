/** The alias table in one SQLite file (WAL, so the gateway's reads never wait on a deploy's write). */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  checkRepoint,
  checkReregistration,
  checkSchemaVersion,
  toEvent,
  toVersion,
  versionRow,
  type AliasRegistry,
  type EventRow,
  type NewVersion,
  type RepointOptions,
  type VersionRow,
} from './registry-rules.js';
import type { AliasEvent, DeployedVersion } from './types.js';

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

/** Upgrades from each older schema version, in order. */
const MIGRATIONS: Record<number, string> = { 1: 'ALTER TABLE versions ADD COLUMN probes TEXT' };

export class SqliteRegistry implements AliasRegistry {
  private constructor(
    private readonly db: Database.Database,
    readonly location: string,
  ) {}

  /** Open (creating the file, its directory and the schema if needed, upgrading an older file). */
  static open(path: string): SqliteRegistry {
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
        if (!row) return void db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
        checkSchemaVersion(row.version, SCHEMA_VERSION, path);
        for (let v = row.version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
        db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);
      }).immediate();
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteRegistry(db, path);
  }

  async registerVersion(v: NewVersion): Promise<DeployedVersion> {
    const row = versionRow(v);
    return this.db
      .transaction((): DeployedVersion => {
        const existing = this.row(v.name);
        if (existing) {
          checkReregistration(existing, v);
          return toVersion(existing);
        }
        this.db
          .prepare(
            `INSERT INTO versions (name, alias, adapter_version, adapter, adapter_sha, target, endpoint, served_model, adapter_id, base_model, run_id, eval_report, probes, created_at)
           VALUES (@name, @alias, @adapter_version, @adapter, @adapter_sha, @target, @endpoint, @served_model, @adapter_id, @base_model, @run_id, @eval_report, @probes, @created_at)`,
          )
          .run(row);
        return toVersion(this.row(v.name)!);
      })
      .immediate();
  }

  async version(name: string): Promise<DeployedVersion | undefined> {
    const r = this.row(name);
    return r && toVersion(r);
  }

  async versions(alias: string): Promise<DeployedVersion[]> {
    return (
      this.db
        .prepare('SELECT * FROM versions WHERE alias = ? ORDER BY created_at DESC, rowid DESC')
        .all(alias) as VersionRow[]
    ).map(toVersion);
  }

  async allVersions(): Promise<DeployedVersion[]> {
    return (this.db.prepare('SELECT * FROM versions ORDER BY created_at DESC, rowid DESC').all() as VersionRow[]).map(
      toVersion,
    );
  }

  async current(alias: string): Promise<DeployedVersion | undefined> {
    const r = this.currentRow(alias);
    return r && toVersion(r);
  }

  async repoint(alias: string, versionName: string, opts: RepointOptions): Promise<AliasEvent> {
    return this.db
      .transaction((): AliasEvent => {
        const done = this.db.prepare('SELECT * FROM alias_events WHERE request_id = ?').get(opts.requestId) as
          EventRow | undefined;
        const previous = this.currentRow(alias)?.name ?? null;
        const already = checkRepoint(alias, versionName, opts, { done, target: this.row(versionName), previous });
        if (already) return toEvent(already);
        const info = this.db
          .prepare(
            'INSERT INTO alias_events (alias, version, previous, action, actor, reason, request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            alias,
            versionName,
            previous,
            opts.action,
            opts.actor,
            opts.reason,
            opts.requestId,
            new Date().toISOString(),
          );
        return toEvent(
          this.db.prepare('SELECT * FROM alias_events WHERE id = ?').get(info.lastInsertRowid) as EventRow,
        );
      })
      .immediate();
  }

  async event(requestId: string): Promise<AliasEvent | undefined> {
    const r = this.db.prepare('SELECT * FROM alias_events WHERE request_id = ?').get(requestId) as EventRow | undefined;
    return r && toEvent(r);
  }

  async history(alias: string): Promise<AliasEvent[]> {
    return (
      this.db.prepare('SELECT * FROM alias_events WHERE alias = ? ORDER BY id DESC').all(alias) as EventRow[]
    ).map(toEvent);
  }

  async aliases(): Promise<Array<{ alias: string; version: string }>> {
    return this.db
      .prepare(
        `SELECT e.alias AS alias, e.version AS version FROM alias_events e
         WHERE e.id = (SELECT MAX(id) FROM alias_events WHERE alias = e.alias) ORDER BY e.alias`,
      )
      .all() as Array<{ alias: string; version: string }>;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private row(name: string): VersionRow | undefined {
    return this.db.prepare('SELECT * FROM versions WHERE name = ?').get(name) as VersionRow | undefined;
  }

  private currentRow(alias: string): VersionRow | undefined {
    return this.db
      .prepare(
        'SELECT v.* FROM alias_events e JOIN versions v ON v.name = e.version WHERE e.alias = ? ORDER BY e.id DESC LIMIT 1',
      )
      .get(alias) as VersionRow | undefined;
  }
}
