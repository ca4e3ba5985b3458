/**
 * What escalation may spend: frontier requests per minute and tokens per day, in total and per client
 * key. Counters are fixed windows (the minute, the UTC day) kept in the registry's database, next to the alias
 * table the gateway already reads: they survive a restart, and gateway replicas on a PostgreSQL registry share
 * one budget. A request over any cap is answered by the small model, marked not escalated, with the reason.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { inTransaction, postgresPool } from '../core/postgres.js';
import { parseDbLocation } from '../core/db-location.js';

export interface BudgetCaps {
  requestsPerMinute?: number;
  tokensPerDay?: number;
}

export interface BudgetConfig extends BudgetCaps {
  /** The same caps for each client key on its own. */
  perKey?: BudgetCaps;
}

interface Window {
  counter: string;
  limit: number;
  /** Requests are counted when taken; tokens are only checked then, and added when the answer says how many. */
  kind: 'requests' | 'tokens';
  /** Who it caps, in words: "all keys" or "key NAME". */
  who: string;
}

/** Counter rows are kept this long after they were last touched, then pruned: every window is over by then. */
const KEEP_MS = 2 * 24 * 3600_000;

/** Counters by name; `take` adds 1 to each only when all are under their limits, atomically. */
interface SpendStore {
  take(windows: Window[]): Promise<Window | null>;
  add(counters: string[], amount: number): Promise<void>;
  close(): Promise<void>;
}

export interface SpendBudget {
  /** Reserve one escalation for `key`; null when allowed, else why not. */
  acquire(key: string | null, now?: Date): Promise<string | null>;
  /** Charge the tokens an escalation used. */
  spend(key: string | null, tokens: number, now?: Date): Promise<void>;
  close(): Promise<void>;
}

export async function openSpendBudget(config: BudgetConfig, registryLocation: string): Promise<SpendBudget> {
  const where = parseDbLocation(registryLocation, 'gateway.registry');
  const store = where.kind === 'sqlite' ? sqliteSpend(where.path) : await postgresSpend(where.url);
  const scopes = (key: string | null): Array<{ scope: string; who: string; caps: BudgetCaps }> => [
    { scope: 'total', who: 'all keys', caps: config },
    ...(key && config.perKey ? [{ scope: `key:${key}`, who: `key ${key}`, caps: config.perKey }] : []),
  ];
  const minute = (now: Date) => now.toISOString().slice(0, 16);
  const day = (now: Date) => now.toISOString().slice(0, 10);
  return {
    async acquire(key, now = new Date()) {
      const windows: Window[] = [];
      for (const { scope, who, caps } of scopes(key)) {
        if (caps.requestsPerMinute !== undefined)
          windows.push({
            counter: `${scope}:requests:${minute(now)}`,
            limit: caps.requestsPerMinute,
            kind: 'requests',
            who,
          });
        // Tokens are charged after the answer (spend): a day already at its cap refuses the next escalation.
        if (caps.tokensPerDay !== undefined)
          windows.push({ counter: `${scope}:tokens:${day(now)}`, limit: caps.tokensPerDay, kind: 'tokens', who });
      }
      const over = await store.take(windows);
      if (!over) return null;
      return `escalation budget: ${over.limit} ${over.kind === 'requests' ? 'requests/minute' : 'tokens/day'} for ${over.who} spent`;
    },
    async spend(key, tokens, now = new Date()) {
      const counters = scopes(key)
        .filter(({ caps }) => caps.tokensPerDay !== undefined)
        .map(({ scope }) => `${scope}:tokens:${day(now)}`);
      if (counters.length && tokens > 0) await store.add(counters, tokens);
    },
    close: () => store.close(),
  };
}

function sqliteSpend(path: string): SpendStore {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // The busy handler first: switching to WAL takes a lock another process opening the file may hold.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS gateway_spend (counter TEXT PRIMARY KEY, amount REAL NOT NULL, touched_ms INTEGER NOT NULL)',
  );
  db.exec('CREATE INDEX IF NOT EXISTS gateway_spend_by_touch ON gateway_spend (touched_ms)');
  const get = db.prepare<[string], { amount: number }>('SELECT amount FROM gateway_spend WHERE counter = ?');
  const bumpRow = db.prepare(
    'INSERT INTO gateway_spend (counter, amount, touched_ms) VALUES (?, ?, ?) ON CONFLICT (counter) DO UPDATE SET amount = amount + excluded.amount, touched_ms = excluded.touched_ms',
  );
  const bump = (counter: string, amount: number) => bumpRow.run(counter, amount, Date.now());
  const prune = db.prepare('DELETE FROM gateway_spend WHERE touched_ms < ?');
  const take = db.transaction((windows: Window[]) => {
    prune.run(Date.now() - KEEP_MS);
    const over = windows.find((w) => (get.get(w.counter)?.amount ?? 0) >= w.limit);
    if (over) return over;
    for (const w of windows) if (w.kind === 'requests') bump(w.counter, 1);
    return null;
  });
  const add = db.transaction((counters: string[], amount: number) => {
    for (const c of counters) bump(c, amount);
  });
  return {
    take: async (windows) => take.immediate(windows),
    add: async (counters, amount) => void add.immediate(counters, amount),
    close: async () => void db.close(),
  };
}

async function postgresSpend(url: string): Promise<SpendStore> {
  const pool = postgresPool(url, 'escalation budget', 2);
  await pool.query(
    'CREATE TABLE IF NOT EXISTS flywheel_gateway_spend (counter TEXT PRIMARY KEY, amount DOUBLE PRECISION NOT NULL, touched_ms BIGINT NOT NULL)',
  );
  await pool.query('CREATE INDEX IF NOT EXISTS flywheel_gateway_spend_by_touch ON flywheel_gateway_spend (touched_ms)');
  return {
    take: (windows) =>
      inTransaction(pool, async (db) => {
        await db.query('DELETE FROM flywheel_gateway_spend WHERE touched_ms < $1', [Date.now() - KEEP_MS]);
        // Lock the counters (created at 0 when new) in a fixed order, so replicas never deadlock on them.
        const names = [...new Set(windows.map((w) => w.counter))].sort();
        for (const n of names)
          await db.query(
            'INSERT INTO flywheel_gateway_spend (counter, amount, touched_ms) VALUES ($1, 0, $2) ON CONFLICT (counter) DO NOTHING',
            [n, Date.now()],
          );
        const { rows } = await db.query<{ counter: string; amount: number }>(
          'SELECT counter, amount FROM flywheel_gateway_spend WHERE counter = ANY($1) ORDER BY counter FOR UPDATE',
          [names],
        );
        const amounts = new Map(rows.map((r) => [r.counter, Number(r.amount)]));
        const over = windows.find((w) => (amounts.get(w.counter) ?? 0) >= w.limit) ?? null;
        if (!over)
          for (const w of windows)
            if (w.kind === 'requests')
              await db.query(
                'UPDATE flywheel_gateway_spend SET amount = amount + 1, touched_ms = $2 WHERE counter = $1',
                [w.counter, Date.now()],
              );
        return over;
      }),
    async add(counters, amount) {
      for (const c of counters)
        await pool.query(
          'INSERT INTO flywheel_gateway_spend (counter, amount, touched_ms) VALUES ($1, $2, $3) ON CONFLICT (counter) DO UPDATE SET amount = flywheel_gateway_spend.amount + excluded.amount, touched_ms = excluded.touched_ms',
          [c, amount, Date.now()],
        );
    },
    close: () => pool.end(),
  };
}
