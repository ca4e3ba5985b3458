import type { ServerConfig } from '../core/config/schema.js';
import { hashOf } from '../core/hash.js';
import { connectServer, type McpConnection } from '../core/mcp/connect.js';

/**
 * MCP connections kept open across activities of one worker process, so consecutive stages (intents,
 * validate, corrupt) do not each spawn the sandboxes again. Stages only read and dry-run, so sharing a
 * session changes nothing. A connection idle for IDLE_MS is closed; a dead one is replaced on next use.
 */
const IDLE_MS = 5 * 60_000;

interface Pooled {
  conn: Promise<McpConnection>;
  users: number;
  timer?: NodeJS.Timeout;
  closed: boolean;
}

const pool = new Map<string, Pooled>();

async function acquire(server: ServerConfig): Promise<{ conn: McpConnection; release: () => void }> {
  const key = hashOf(server);
  let p = pool.get(key);
  if (p && !p.closed) {
    // A cached connection whose transport died (server crashed) is dropped and reopened.
    const alive = await p.conn.then((c) => c.client.ping({ timeout: 2000 }).then(() => true, () => false), () => false);
    if (!alive) {
      pool.delete(key);
      p.closed = true;
      p = undefined;
    }
  }
  if (!p || p.closed) {
    const entry: Pooled = { conn: connectServer(server), users: 0, closed: false };
    entry.conn.then((c) => {
      c.client.onclose = () => {
        entry.closed = true;
        if (pool.get(key) === entry) pool.delete(key);
      };
    }, () => pool.delete(key));
    pool.set(key, entry);
    p = entry;
  }
  const entry = p;
  if (entry.timer) clearTimeout(entry.timer);
  entry.users++;
  const conn = await entry.conn;
  return {
    conn,
    release: () => {
      entry.users--;
      if (entry.users === 0) {
        entry.timer = setTimeout(() => {
          pool.delete(key);
          entry.closed = true;
          void conn.close().catch(() => undefined);
        }, IDLE_MS);
        entry.timer.unref();
      }
    },
  };
}

/** Connections to every server (opened in parallel, reused when already open) for the duration of fn. */
export async function withConnections<T>(servers: ServerConfig[], fn: (conns: Map<string, McpConnection>) => Promise<T>): Promise<T> {
  const leases = await Promise.allSettled(servers.map(async (s) => [s.name, await acquire(s)] as const));
  const failed = leases.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  const held = leases.filter((l): l is PromiseFulfilledResult<readonly [string, { conn: McpConnection; release: () => void }]> => l.status === 'fulfilled').map((l) => l.value);
  try {
    if (failed) throw failed.reason;
    return await fn(new Map(held.map(([name, lease]) => [name, lease.conn])));
  } finally {
    for (const [, lease] of held) lease.release();
  }
}

/** Close every pooled connection now (worker shutdown, tests). */
export async function closeAllConnections(): Promise<void> {
  const entries = [...pool.values()];
  pool.clear();
  await Promise.all(entries.map(async (e) => {
    e.closed = true;
    if (e.timer) clearTimeout(e.timer);
    await (await e.conn.catch(() => undefined))?.close().catch(() => undefined);
  }));
}
