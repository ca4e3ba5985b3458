import pg from 'pg';

/**
 * A connection pool for one of our PostgreSQL stores. An idle connection the server drops (restart, failover) is
 * replaced on the next query; the listener keeps that from crashing the process, as pg-pool would otherwise do.
 */
export function postgresPool(url: string, what: string, max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', (err) => console.error(`${what}: idle PostgreSQL connection lost: ${err.message}`));
  return pool;
}

/** `fn` in one transaction on one connection: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    const out = await fn(db);
    await db.query('COMMIT');
    return out;
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    db.release();
  }
}
