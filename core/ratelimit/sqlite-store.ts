import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { reserve } from './gcra.js';
import type { LimitStore } from './store.js';

const DDL = 'CREATE TABLE IF NOT EXISTS rate_buckets (key TEXT PRIMARY KEY, tat_ms REAL NOT NULL)';

/**
 * Buckets in a SQLite file. Each operation is one IMMEDIATE transaction (the write lock is taken before the
 * read), so processes sharing the file never both read the same TAT. The clock is the caller's: fine on one host.
 */
export function sqliteLimitStore(path: string, now: () => number = Date.now): LimitStore {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // The busy handler first: switching to WAL takes a lock another process opening the file may hold.
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.exec(DDL);
  const get = db.prepare<[string], { tat_ms: number }>('SELECT tat_ms FROM rate_buckets WHERE key = ?');
  const put = db.prepare(
    'INSERT INTO rate_buckets (key, tat_ms) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET tat_ms = excluded.tat_ms',
  );
  const tatOf = (key: string) => get.get(key)?.tat_ms;
  const reserveTx = db.transaction((key: string, costMs: number, burstMs: number) => {
    const r = reserve(tatOf(key), now(), costMs, burstMs);
    put.run(key, r.tat);
    return r.waitMs;
  });
  const adjustTx = db.transaction((key: string, deltaMs: number) => {
    const tat = tatOf(key);
    if (tat !== undefined) put.run(key, tat + deltaMs);
  });
  const holdTx = db.transaction((key: string, ms: number) => put.run(key, Math.max(tatOf(key) ?? 0, now() + ms)));
  return {
    reserve: async (key, costMs, burstMs) => reserveTx.immediate(key, costMs, burstMs),
    adjust: async (key, deltaMs) => void adjustTx.immediate(key, deltaMs),
    holdFor: async (key, ms) => void holdTx.immediate(key, ms),
    close: async () => void db.close(),
  };
}
