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
  const cached = pool.get(key);
  if (cached && !cached.closed) {
    // Claim it before the health check, so the idle timer cannot close it under us.
    if (cached.timer) clearTimeout(cached.timer);
    cached.users++;
    const conn = await cached.conn.catch(() => undefined);
    const alive = conn
      ? await conn.client.ping({ timeout: 2000 }).then(
          () => true,
          () => false,
        )
      : false;
    if (alive) return { conn: conn!, release: () => release(key, cached, conn!) };
    // A hung or crashed server: drop it for everyone and close it, so its process does not linger.
    cached.users--;
    drop(key, cached);
    await conn?.close().catch(() => undefined);
  }
  const entry: Pooled = { conn: connectServer(server), users: 1, closed: false };
  pool.set(key, entry);
  let conn: McpConnection;
  try {
    conn = await entry.conn;
  } catch (err) {
    drop(key, entry);
    throw err;
  }
  conn.client.onclose = () => drop(key, entry);
  return { conn, release: () => release(key, entry, conn) };
}

function drop(key: string, entry: Pooled): void {
  entry.closed = true;
  if (entry.timer) clearTimeout(entry.timer);
  if (pool.get(key) === entry) pool.delete(key);
}

function release(key: string, entry: Pooled, conn: McpConnection): void {
  entry.users--;
  if (entry.users > 0 || entry.closed) return;
  entry.timer = setTimeout(() => {
    drop(key, entry);
    void conn.close().catch(() => undefined);
  }, IDLE_MS);
  entry.timer.unref();
}

/**
 * Connections to every live server (opened in parallel, reused when already open) for the duration of fn. A
 * `tools` server is a file with no server behind it: it gets none, and its tools are checked by schema only.
 */
export async function withConnections<T>(
  servers: ServerConfig[],
  fn: (conns: Map<string, McpConnection>) => Promise<T>,
): Promise<T> {
  const live = servers.filter((s) => !s.tools);
  const leases = await Promise.allSettled(live.map(async (s) => [s.name, await acquire(s)] as const));
  const failed = leases.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  const held = leases
    .filter(
      (l): l is PromiseFulfilledResult<readonly [string, { conn: McpConnection; release: () => void }]> =>
        l.status === 'fulfilled',
    )
    .map((l) => l.value);
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
  await Promise.all(
    entries.map(async (e) => {
      e.closed = true;
      if (e.timer) clearTimeout(e.timer);
      await (await e.conn.catch(() => undefined))?.close().catch(() => undefined);
    }),
  );
}
