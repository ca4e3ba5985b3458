/**
 * The alias table in PostgreSQL, for workers and gateways on many hosts: the SQLite backend's schema (tables
 * prefixed `flywheel_`) and the same rules (registry.ts). A repoint holds a transaction-scoped advisory lock on its
 * alias, so two deploys moving one alias at once are serialised exactly as SQLite's write lock does; readers
 * never wait.
 */
import type pg from 'pg';
import { inTransaction, postgresPool } from '../postgres.js';
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

const SCHEMA_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS flywheel_registry_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS flywheel_versions (
  seq BIGSERIAL UNIQUE,
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
CREATE INDEX IF NOT EXISTS flywheel_versions_by_alias ON flywheel_versions (alias, created_at);
CREATE TABLE IF NOT EXISTS flywheel_alias_events (
  id BIGSERIAL PRIMARY KEY,
  alias TEXT NOT NULL,
  version TEXT NOT NULL REFERENCES flywheel_versions (name),
  previous TEXT,
  action TEXT NOT NULL CHECK (action IN ('deploy', 'rollback')),
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  request_id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flywheel_alias_events_by_alias ON flywheel_alias_events (alias, id);
`;

/** Upgrades from each older schema version, in order (none yet: PostgreSQL support began at version 2). */
const MIGRATIONS: Record<number, string> = {};

const VERSION_COLUMNS =
  'name, alias, adapter_version, adapter, adapter_sha, target, endpoint, served_model, adapter_id, base_model, run_id, eval_report, probes, created_at';
const CURRENT = `SELECT v.* FROM flywheel_alias_events e JOIN flywheel_versions v ON v.name = e.version WHERE e.alias = $1 ORDER BY e.id DESC LIMIT 1`;

export class PostgresRegistry implements AliasRegistry {
  private constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
  ) {}

  /** Connect, and create or upgrade the tables (under a lock, so two workers starting together agree). */
  static async open(url: string): Promise<PostgresRegistry> {
    const pool = postgresPool(url, `registry ${url}`);
    const registry = new PostgresRegistry(pool, url);
    try {
      await registry.transaction(async (db) => {
        await db.query("SELECT pg_advisory_xact_lock(hashtext('flywheel-registry-schema'))");
        await db.query(DDL);
        const { rows } = await db.query<{ version: number }>('SELECT version FROM flywheel_registry_schema');
        if (!rows[0])
          return void (await db.query('INSERT INTO flywheel_registry_schema (version) VALUES ($1)', [SCHEMA_VERSION]));
        checkSchemaVersion(rows[0].version, SCHEMA_VERSION, url);
        for (let v = rows[0].version; v < SCHEMA_VERSION; v++) await db.query(MIGRATIONS[v]!);
        await db.query('UPDATE flywheel_registry_schema SET version = $1', [SCHEMA_VERSION]);
      });
    } catch (err) {
      await pool.end();
      throw err;
    }
    return registry;
  }

  async registerVersion(v: NewVersion): Promise<DeployedVersion> {
    const row = versionRow(v);
    const values = VERSION_COLUMNS.split(', ').map((c) => row[c as keyof VersionRow]);
    const inserted = await this.pool.query<VersionRow>(
      `INSERT INTO flywheel_versions (${VERSION_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (name) DO NOTHING RETURNING ${VERSION_COLUMNS}`,
      values,
    );
    if (inserted.rows[0]) return toVersion(inserted.rows[0]);
    const existing = (await this.row(v.name))!;
    checkReregistration(existing, v);
    return toVersion(existing);
  }

  async version(name: string): Promise<DeployedVersion | undefined> {
    const r = await this.row(name);
    return r && toVersion(r);
  }

  async versions(alias: string): Promise<DeployedVersion[]> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM flywheel_versions WHERE alias = $1 ORDER BY created_at DESC, seq DESC`,
      [alias],
    );
    return rows.map(toVersion);
  }

  async allVersions(): Promise<DeployedVersion[]> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM flywheel_versions ORDER BY created_at DESC, seq DESC`,
    );
    return rows.map(toVersion);
  }

  async current(alias: string): Promise<DeployedVersion | undefined> {
    const { rows } = await this.pool.query<VersionRow>(CURRENT, [alias]);
    return rows[0] && toVersion(rows[0]);
  }

  async repoint(alias: string, versionName: string, opts: RepointOptions): Promise<AliasEvent> {
    return this.transaction(async (db) => {
      await db.query("SELECT pg_advisory_xact_lock(hashtext('flywheel-alias:' || $1))", [alias]);
      const done = (
        await db.query<EventRow>('SELECT * FROM flywheel_alias_events WHERE request_id = $1', [opts.requestId])
      ).rows[0];
      const target = (await db.query<VersionRow>('SELECT * FROM flywheel_versions WHERE name = $1', [versionName]))
        .rows[0];
      const previous = (await db.query<VersionRow>(CURRENT, [alias])).rows[0]?.name ?? null;
      const already = checkRepoint(alias, versionName, opts, { done, target, previous });
      if (already) return toEvent(already);
      const { rows } = await db.query<EventRow>(
        `INSERT INTO flywheel_alias_events (alias, version, previous, action, actor, reason, request_id, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [alias, versionName, previous, opts.action, opts.actor, opts.reason, opts.requestId, new Date().toISOString()],
      );
      return toEvent(rows[0]!);
    });
  }

  async event(requestId: string): Promise<AliasEvent | undefined> {
    const { rows } = await this.pool.query<EventRow>('SELECT * FROM flywheel_alias_events WHERE request_id = $1', [
      requestId,
    ]);
    return rows[0] && toEvent(rows[0]);
  }

  async history(alias: string): Promise<AliasEvent[]> {
    const { rows } = await this.pool.query<EventRow>(
      'SELECT * FROM flywheel_alias_events WHERE alias = $1 ORDER BY id DESC',
      [alias],
    );
    return rows.map(toEvent);
  }

  async aliases(): Promise<Array<{ alias: string; version: string }>> {
    const { rows } = await this.pool.query<{ alias: string; version: string }>(
      `SELECT e.alias AS alias, e.version AS version FROM flywheel_alias_events e
       WHERE e.id = (SELECT MAX(id) FROM flywheel_alias_events WHERE alias = e.alias) ORDER BY e.alias`,
    );
    return rows;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async row(name: string): Promise<VersionRow | undefined> {
    return (
      await this.pool.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM flywheel_versions WHERE name = $1`, [name])
    ).rows[0];
  }

  private transaction<T>(fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }
}
