/** Guarantees both sandboxes share: deterministic data, dry-run never changes anything, transports, resets. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runPackProbes } from '../../core/probe/pack-probes.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';
import { buildDatabase, contentHash } from '../../sandboxes/common/db.js';
import { ERROR_CODES } from '../../sandboxes/common/errors.js';
import { oracleEbsModel } from '../../sandboxes/oracle-ebs/data.js';
import { salesforceModel } from '../../sandboxes/salesforce/data.js';
import { REPO, tempDir } from '../helpers/fixtures.js';
import {
  httpSandbox,
  listAllTools,
  sandboxMain,
  startHttpSandbox,
  stdioSandbox,
  type Sandbox,
  type SandboxName,
} from '../helpers/sandbox.js';
import { ORACLE_EBS_CODES, SALESFORCE_CODES } from '../helpers/sandbox-codes.js';
import { writeCalls } from '../helpers/write-calls.js';
import { spawnSync } from 'node:child_process';

const fileSha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
function dbHash(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return contentHash(db);
  } finally {
    db.close();
  }
}

describe('sandbox data', () => {
  for (const model of [salesforceModel, oracleEbsModel]) {
    it(`${model.name}: same seed gives a byte-identical database, another seed a different one`, () => {
      const dir = tempDir();
      buildDatabase(model, 7, join(dir, 'a.db'));
      buildDatabase(model, 7, join(dir, 'b.db'));
      buildDatabase(model, 8, join(dir, 'c.db'));
      assert.equal(fileSha(join(dir, 'a.db')), fileSha(join(dir, 'b.db')));
      assert.notEqual(dbHash(join(dir, 'a.db')), dbHash(join(dir, 'c.db')));
    });
  }

  it('realistic volume with consistent foreign keys', () => {
    const dir = tempDir();
    buildDatabase(salesforceModel, 1, join(dir, 'sf.db'));
    buildDatabase(oracleEbsModel, 1, join(dir, 'ebs.db'));
    const count = (file: string, table: string) => {
      const db = new Database(file, { readonly: true });
      try {
        assert.deepEqual(db.pragma('foreign_key_check'), [], `${file}: dangling foreign keys`);
        return (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    assert.equal(count(join(dir, 'sf.db'), 'Account'), 400);
    assert.ok(count(join(dir, 'sf.db'), 'Contact') > 800);
    assert.equal(count(join(dir, 'sf.db'), 'Opportunity'), 2600);
    assert.equal(count(join(dir, 'ebs.db'), 'HZ_CUST_ACCOUNTS'), 420);
    assert.equal(count(join(dir, 'ebs.db'), 'RA_CUSTOMER_TRX_ALL'), 4200);
    assert.ok(count(join(dir, 'ebs.db'), 'RA_CUSTOMER_TRX_LINES_ALL') > 8000);
  });

  it('the two sandboxes together cover every error code', () => {
    const covered = new Set([...SALESFORCE_CODES, ...ORACLE_EBS_CODES]);
    assert.deepEqual(
      Object.keys(ERROR_CODES).filter((c) => c !== 'INTERNAL_ERROR' && !covered.has(c)),
      [],
    );
  });
});

for (const name of ['salesforce', 'oracle-ebs'] as SandboxName[]) {
  describe(`${name}: dry-run under concurrency`, () => {
    let server: Awaited<ReturnType<typeof startHttpSandbox>>;
    const file = join(tempDir(), `${name}.db`);
    const clients: Sandbox[] = [];
    before(async () => {
      server = await startHttpSandbox(name, ['--db', file]);
      for (let i = 0; i < 4; i++) clients.push(await httpSandbox(server.url));
    });
    after(async () => {
      for (const c of clients) await c.close();
      await server?.stop();
    });

    it('thousands of dry-runs of every write tool, concurrently, leave the content hash unchanged', async () => {
      const calls = await writeCalls(clients[0]!, name);
      const writeTools = (await listAllTools(clients[0]!.client))
        .filter((t) => !t.annotations?.readOnlyHint)
        .map((t) => t.name)
        .sort();
      assert.deepEqual([...new Set(calls.map((c) => c.tool))].sort(), writeTools, 'every write tool is exercised');
      const baseline = dbHash(file);
      // Each call once first: each must succeed as a dry-run and report the rows it would change.
      for (const c of calls) {
        const r = await clients[0]!.call(c.tool, c.args, { dryRun: true });
        assert.equal(r.isError, false, `${c.tool} dry-run failed: ${JSON.stringify(r.error)}`);
        assert.equal(r.content.dryRun, true);
        assert.ok(r.content.wouldChange.length > 0, `${c.tool} reports its effect`);
      }
      const rounds = Math.ceil(2000 / calls.length);
      let done = 0;
      for (let round = 0; round < rounds; round++) {
        await Promise.all(
          calls.map(async (c, i) => {
            const r = await clients[(round + i) % clients.length]!.call(c.tool, c.args, { dryRun: true });
            assert.equal(r.isError, false, `${c.tool}: ${JSON.stringify(r.error)}`);
            done++;
          }),
        );
      }
      assert.ok(done >= 2000);
      assert.equal(dbHash(file), baseline, 'dry-runs changed the database');
      // The hash does see real writes: the same first call without dryRun changes it.
      const real = await clients[0]!.call(calls[0]!.tool, calls[0]!.args);
      assert.equal(real.isError, false);
      assert.notEqual(dbHash(file), baseline);
    });
  });
}

describe('sandbox transports and lifecycle', () => {
  it('HTTP binds to 127.0.0.1 and can require a bearer token', async () => {
    process.env.FLYWHEEL_TEST_SANDBOX_TOKEN = 'sekrit';
    const server = await startHttpSandbox('salesforce', ['--token-env', 'FLYWHEEL_TEST_SANDBOX_TOKEN']);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const denied = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      assert.equal(denied.status, 401);
      const sb = await httpSandbox(server.url, { Authorization: 'Bearer sekrit' });
      assert.deepEqual(sb.client.getServerVersion(), { name: 'salesforce-sandbox', version: '0.1.0+data.1' });
      assert.equal((await listAllTools(sb.client)).length, 19);
      await sb.close();
    } finally {
      await server.stop();
    }
  });

  it('--version reports the version; bad flags exit 2', () => {
    const v = spawnSync(process.execPath, ['--import', 'tsx', sandboxMain('oracle-ebs'), '--version'], {
      encoding: 'utf8',
    });
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^oracle-ebs-sandbox 0\.1\.0 \(data v\d+\)/);
    const bad = spawnSync(
      process.execPath,
      ['--import', 'tsx', sandboxMain('oracle-ebs'), '--transport', 'carrier-pigeon'],
      { encoding: 'utf8' },
    );
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--transport must be stdio or http/);
  });

  it('each process starts from a fresh copy; --db keeps state until --reset', async () => {
    const create = { name: 'Persistence Probe', billingCountry: 'Italy', currencyIsoCode: 'EUR' };
    const count = async (sb: Sandbox) =>
      (await sb.call('soql_query', { query: "SELECT COUNT() FROM Account WHERE Name = 'Persistence Probe'" })).result
        .totalSize;
    const a = await stdioSandbox('salesforce');
    await a.call('create_account', create);
    assert.equal(await count(a), 1);
    await a.close();
    const b = await stdioSandbox('salesforce');
    assert.equal(await count(b), 0, 'a new process gets a fresh database');
    await b.close();

    const file = join(tempDir(), 'kept.db');
    const c = await stdioSandbox('salesforce', ['--db', file]);
    await c.call('create_account', create);
    await c.close();
    const d = await stdioSandbox('salesforce', ['--db', file]);
    assert.equal(await count(d), 1, '--db keeps state');
    await d.close();
    const e = await stdioSandbox('salesforce', ['--db', file, '--reset']);
    assert.equal(await count(e), 0, '--reset starts from the pristine copy');
    await e.close();
  });

  it("each sandbox's domain pack samples entity values through its read tools", async () => {
    for (const name of ['salesforce', 'oracle-ebs'] as SandboxName[]) {
      const sb = await stdioSandbox(name);
      try {
        const pack = DOMAIN_PACKS.find((p) => p.server === sb.client.getServerVersion()?.name)!;
        const pools = await runPackProbes(sb.client, pack.probes(50));
        for (const [pool, rows] of Object.entries(pools)) assert.ok(rows.length > 0, `${name}: ${pool} pool is empty`);
        if (name === 'salesforce') {
          const acct = pools.account![0]!;
          assert.equal(
            (await sb.call('get_record', { objectName: 'Account', recordId: acct.Id })).result.Name,
            acct.Name,
          );
        } else {
          const inv = pools.invoice![0]!;
          assert.equal(
            (await sb.call('get_invoice', { customerTrxId: inv.CUSTOMER_TRX_ID })).result.header.TRX_NUMBER,
            inv.TRX_NUMBER,
          );
        }
      } finally {
        await sb.close();
      }
    }
  });
});

describe('sandbox docs', () => {
  it('docs/sandboxes.md documents every sandbox tool with its scopes', async () => {
    const readme = readFileSync(join(REPO, 'docs', 'sandboxes.md'), 'utf8');
    const { salesforceSandbox } = await import('../../sandboxes/salesforce/main.js');
    const { oracleEbsSandbox } = await import('../../sandboxes/oracle-ebs/main.js');
    for (const tool of [...salesforceSandbox.tools, ...oracleEbsSandbox.tools]) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${tool.name}\` |`));
      assert.ok(row, `docs/sandboxes.md has no row for ${tool.name}`);
      for (const scope of tool.scopes)
        assert.ok(row.includes(`\`${scope}\``), `docs/sandboxes.md row of ${tool.name} lacks scope ${scope}`);
    }
    for (const code of Object.keys(ERROR_CODES))
      assert.ok(readme.includes(`| \`${code}\` |`), `README lacks error code ${code}`);
  });
});
