/**
 * The alias table on a real PostgreSQL server that the test starts (Debian's `postgresql` package): the same
 * contract as SQLite (helpers/registry-contract.ts), each test in a database of its own.
 */
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { registryContract } from '../helpers/registry-contract.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

describe('registry (PostgreSQL)', () => {
  let server: Postgres;
  let n = 0;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  const withAdmin = async <T>(url: string, fn: (c: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };

  registryContract({
    fresh: async () => {
      const db = `registry_${++n}`;
      await withAdmin(server.url, (c) => c.query(`CREATE DATABASE ${db}`));
      return server.url.replace(/\/postgres$/, `/${db}`);
    },
    setSchemaVersion: (url, version) =>
      withAdmin(url, async (c) => void (await c.query('UPDATE flywheel_registry_schema SET version = $1', [version]))),
  });
});
