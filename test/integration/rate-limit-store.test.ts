/**
 * The shared rate-limit store on a real PostgreSQL server (started by the test from Debian's `postgresql` package)
 * and on SQLite: many reservations at once from two clients, as from two worker hosts, are each counted exactly once.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postgresLimitStore } from '../../core/ratelimit/postgres-store.js';
import { sqliteLimitStore } from '../../core/ratelimit/sqlite-store.js';
import type { LimitStore } from '../../core/ratelimit/store.js';
import { tempDir } from '../helpers/fixtures.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

const COST_MS = 10;

/** 200 reservations, half through each client, all at once; then one more, whose wait shows what the bucket holds. */
async function checkNoLostReservations(a: LimitStore, b: LimitStore) {
  const t0 = Date.now();
  const waits = await Promise.all(
    Array.from({ length: 200 }, (_, i) => (i % 2 ? b : a).reserve('teacher:x#requests', COST_MS, COST_MS)),
  );
  const elapsed = Date.now() - t0;
  const next = await a.reserve('teacher:x#requests', COST_MS, COST_MS);
  // 201 turns, 10 ms each, the first at once: the next caller goes ~2000 ms after the first, less the time spent asking.
  assert.ok(
    Math.abs(next - (200 * COST_MS - elapsed)) <= 60,
    `next wait ${next} ms after ${elapsed} ms (a lost reservation would make it shorter)`,
  );
  assert.equal(new Set(waits.map((w) => Math.round(w))).size > 150, true, 'reservations got distinct turns');
  // A hold moves everyone's next turn; adjust gives back.
  await b.holdFor('teacher:y#requests', 3000);
  const held = await a.reserve('teacher:y#requests', COST_MS, COST_MS);
  assert.ok(held > 2900 && held <= 3000, `held ${held}`);
  await b.adjust('teacher:y#requests', -1000);
  const after = await a.reserve('teacher:y#requests', COST_MS, COST_MS);
  assert.ok(after > 1900 && after <= 2000 + COST_MS, `after giving back ${after}`); // the held turn, less 1000, plus its own
}

describe('rate-limit store', () => {
  let pg: Postgres;
  before(async () => {
    pg = await startPostgres();
  });
  after(() => pg?.stop());

  it('PostgreSQL: two clients, every reservation counted once, on the server clock', async () => {
    const [a, b] = [await postgresLimitStore(pg.url), await postgresLimitStore(pg.url)];
    try {
      await checkNoLostReservations(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('SQLite: two handles on one file, every reservation counted once', async () => {
    const path = join(tempDir(), 'limits.sqlite');
    const [a, b] = [sqliteLimitStore(path), sqliteLimitStore(path)];
    try {
      await checkNoLostReservations(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
