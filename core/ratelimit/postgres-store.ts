import { postgresPool } from '../postgres.js';
import type { LimitStore } from './store.js';

const DDL = 'CREATE TABLE IF NOT EXISTS flywheel_rate_buckets (key TEXT PRIMARY KEY, tat_ms DOUBLE PRECISION NOT NULL)';
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::double precision';

/**
 * Buckets in PostgreSQL: each operation is one upsert, atomic on the bucket's row, and "now" is the server's
 * clock, so workers on many hosts agree without synchronised clocks. The same GCRA as gcra.ts, in SQL.
 */
export async function postgresLimitStore(url: string): Promise<LimitStore> {
  const pool = postgresPool(url, 'rate-limit store');
  await pool.query(DDL);
  return {
    async reserve(key, costMs, burstMs) {
      const { rows } = await pool.query<{ wait: number }>(
        `WITH now AS (SELECT ${NOW_MS} AS ms)
         INSERT INTO flywheel_rate_buckets AS b (key, tat_ms) SELECT $1, now.ms + $2 FROM now
         ON CONFLICT (key) DO UPDATE SET tat_ms = GREATEST(b.tat_ms, (SELECT ms FROM now)) + $2
         RETURNING GREATEST(0, b.tat_ms - $3 - (SELECT ms FROM now)) AS wait`,
        [key, costMs, burstMs],
      );
      return Number(rows[0]!.wait);
    },
    async adjust(key, deltaMs) {
      await pool.query('UPDATE flywheel_rate_buckets SET tat_ms = tat_ms + $2 WHERE key = $1', [key, deltaMs]);
    },
    async holdFor(key, ms) {
      await pool.query(
        `INSERT INTO flywheel_rate_buckets AS b (key, tat_ms) VALUES ($1, ${NOW_MS} + $2)
         ON CONFLICT (key) DO UPDATE SET tat_ms = GREATEST(b.tat_ms, excluded.tat_ms)`,
        [key, ms],
      );
    },
    close: () => pool.end(),
  };
}
