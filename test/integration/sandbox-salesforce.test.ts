/** The Salesforce sandbox through a real MCP client over stdio: every tool, every business-rule code, RBAC. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectations, listAllTools, stdioSandbox, type Sandbox } from '../helpers/sandbox.js';
import { SALESFORCE_CODES } from '../helpers/sandbox-codes.js';

let sf: Sandbox;
const seen = new Set<string>();

const { ok, err } = expectations(() => sf, seen);
async function one(query: string) {
  const rows = (await ok('soql_query', { query })).records;
  assert.ok(rows.length > 0, `no rows for ${query}`);
  return rows[0];
}

describe('salesforce sandbox', () => {
  before(async () => {
    sf = await stdioSandbox('salesforce');
  });
  after(() => sf?.close());

  it('lists 19 tools with scopes and honest annotations', async () => {
    const tools = await listAllTools(sf.client);
    assert.equal(tools.length, 19);
    assert.deepEqual(sf.client.getServerVersion(), { name: 'salesforce-sandbox', version: '0.1.0+data.1' });
    for (const t of tools) {
      const scopes = (t._meta as { scopes: string[] }).scopes;
      assert.ok(scopes.length > 0, `${t.name} declares scopes`);
      assert.equal(t.annotations?.openWorldHint, false);
      assert.equal((t.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get('soql_query')!.annotations!.readOnlyHint, true);
    assert.equal(byName.get('delete_record')!.annotations!.destructiveHint, true);
    assert.equal(byName.get('update_account')!.annotations!.readOnlyHint, false);
    assert.equal(byName.get('update_account')!.annotations!.idempotentHint, true);
    assert.deepEqual((byName.get('delete_record')!._meta as { scopes: string[] }).scopes, ['sf.admin']);
  });

  describe('read tools', () => {
    it('soql_query: fields, WHERE with AND/OR/IN/LIKE, ORDER BY, LIMIT, COUNT()', async () => {
      const r = await ok('soql_query', {
        query:
          "SELECT Id, Name, StageName, Amount FROM Opportunity WHERE (StageName IN ('Proposal', 'Negotiation') AND Amount > 100000) OR Name LIKE 'Pilot%' ORDER BY Amount DESC NULLS LAST LIMIT 5",
      });
      assert.equal(r.records.length, 5);
      assert.deepEqual(Object.keys(r.records[0]).sort(), ['Amount', 'Id', 'Name', 'StageName', 'attributes']);
      const amounts = r.records.map((x: { Amount: number }) => x.Amount);
      assert.deepEqual(
        amounts,
        [...amounts].sort((a, b) => b - a),
      );
      const count = await ok('soql_query', { query: 'SELECT COUNT() FROM Account' });
      assert.equal(count.totalSize, 400);
      const closed = await ok('soql_query', {
        query: 'SELECT Id, IsClosed FROM Opportunity WHERE IsClosed = TRUE LIMIT 1',
      });
      assert.equal(closed.records[0].IsClosed, true);
      const dates = await ok('soql_query', {
        query: 'SELECT Id FROM Opportunity WHERE CloseDate >= 2026-06-15 AND CloseDate < 2027-01-01 LIMIT 3',
      });
      assert.equal(dates.records.length, 3);
    });

    it('search_records finds by name across objects', async () => {
      const acct = await one('SELECT Id, Name FROM Account LIMIT 1');
      const r = await ok('search_records', { searchTerm: acct.Name.split(' ')[0], objects: ['Account'] });
      assert.ok(r.results.Account.some((a: { Id: string }) => a.Id === acct.Id));
    });

    it('describe_object, get_record, get_related_records, list_users', async () => {
      const d = await ok('describe_object', { objectName: 'Opportunity' });
      assert.ok(d.fields.find((f: { name: string }) => f.name === 'StageName').picklistValues.includes('Closed Won'));
      const acct = await one('SELECT Id, Name FROM Account LIMIT 1');
      assert.equal((await ok('get_record', { objectName: 'Account', recordId: acct.Id })).Name, acct.Name);
      assert.deepEqual(
        Object.keys(await ok('get_record', { objectName: 'Account', recordId: acct.Id, fields: ['Name'] })),
        ['Id', 'Name'],
      );
      const rel = await ok('get_related_records', { recordId: acct.Id, relationship: 'Contacts' });
      assert.ok(rel.records.length >= 1 && rel.records.every((c: { AccountId: string }) => c.AccountId === acct.Id));
      const queues = await ok('list_users', { role: 'Queue' });
      assert.deepEqual(
        queues.records.map((u: { Name: string }) => u.Name),
        ['Tier 1 Support', 'Tier 2 Support', 'Tier 3 Support'],
      );
    });
  });

  describe('write tools (happy paths)', () => {
    it('create and update account, contact', async () => {
      const a = await ok('create_account', {
        name: 'Flywheel Test Corp',
        billingCountry: 'Germany',
        currencyIsoCode: 'EUR',
        industry: 'Technology',
      });
      assert.match(a.Id, /^001/);
      assert.equal(
        (await ok('update_account', { accountId: a.Id, website: 'https://flywheel.example' })).Website,
        'https://flywheel.example',
      );
      const c = await ok('create_contact', { accountId: a.Id, lastName: 'Tester', email: 'tester@flywheel.example' });
      assert.equal((await ok('update_contact', { contactId: c.Id, title: 'CTO' })).Title, 'CTO');
    });

    it('create, update, move and close opportunities', async () => {
      const acct = await one("SELECT Id, CurrencyIsoCode FROM Account WHERE CurrencyIsoCode = 'USD' LIMIT 1");
      const o = await ok('create_opportunity', {
        accountId: acct.Id,
        name: 'Flywheel expansion',
        closeDate: '2026-12-31',
        amount: 250000,
        discountPercent: 10,
      });
      assert.equal(o.StageName, 'Prospecting');
      assert.equal(o.CurrencyIsoCode, 'USD');
      assert.equal((await ok('update_opportunity', { opportunityId: o.Id, amount: 300000 })).Amount, 300000);
      assert.equal(
        (await ok('change_opportunity_stage', { opportunityId: o.Id, stageName: 'Proposal' })).Probability,
        60,
      );
      const won = await ok('close_opportunity', { opportunityId: o.Id, outcome: 'won' });
      assert.equal(won.IsWon, true);
      const o2 = await ok('create_opportunity', {
        accountId: acct.Id,
        name: 'Flywheel pilot',
        closeDate: '2026-12-31',
      });
      assert.equal(
        (await ok('close_opportunity', { opportunityId: o2.Id, outcome: 'lost', lossReason: 'Price' })).LossReason,
        'Price',
      );
    });

    it('create, update, reassign, escalate cases; delete records', async () => {
      const contact = await one('SELECT Id, AccountId FROM Contact LIMIT 1');
      const c = await ok('create_case', {
        accountId: contact.AccountId,
        contactId: contact.Id,
        subject: 'Sync broken',
        priority: 'High',
      });
      assert.equal(c.Status, 'New');
      assert.equal((await ok('update_case', { caseId: c.Id, status: 'Working' })).Status, 'Working');
      const agent = (await ok('list_users', { role: 'Support Agent' })).records[0];
      assert.equal((await ok('reassign_case', { caseId: c.Id, ownerId: agent.Id })).OwnerId, agent.Id);
      const e = await ok('escalate_case', { caseId: c.Id, reason: 'customer down' });
      assert.equal(e.Tier, 2);
      assert.equal(e.Status, 'Escalated');
      const deleted = await ok('delete_record', { objectName: 'Case', recordId: c.Id });
      assert.equal(deleted.deleted, true);
      await err('get_record', { objectName: 'Case', recordId: c.Id }, 'NOT_FOUND');
      const a = await ok('create_account', {
        name: 'Short Lived Ltd',
        billingCountry: 'Ireland',
        currencyIsoCode: 'EUR',
      });
      await ok('create_contact', { accountId: a.Id, lastName: 'Gone' });
      const r = await sf.call('delete_record', { objectName: 'Account', recordId: a.Id });
      assert.equal(r.isError, false);
      assert.deepEqual(r.content.changes.map((ch: { table: string; op: string }) => `${ch.table}:${ch.op}`).sort(), [
        'Account:delete',
        'Contact:delete',
      ]);
    });
  });

  describe('business rules', () => {
    it('NOT_FOUND for unknown ids and foreign accounts', async () => {
      await err('get_record', { objectName: 'Account', recordId: '001000000000000AAA' }, 'NOT_FOUND');
      const [c1, c2] = (
        await ok('soql_query', { query: 'SELECT Id, AccountId FROM Contact ORDER BY Id LIMIT 200' })
      ).records.filter(
        (c: { AccountId: string }, _i: number, all: Array<{ AccountId: string }>) =>
          c.AccountId !== all[0]!.AccountId || c === all[0],
      );
      await err('create_case', { accountId: c2.AccountId, contactId: c1.Id, subject: 'x' }, 'NOT_FOUND');
      await err(
        'reassign_case',
        {
          caseId: (await one("SELECT Id FROM Case WHERE Status = 'Working' LIMIT 1")).Id,
          ownerId: '005000000000000AAA',
        },
        'NOT_FOUND',
      );
    });

    it('INVALID_STATUS_TRANSITION for stage and status moves', async () => {
      const neg = await one("SELECT Id FROM Opportunity WHERE StageName = 'Negotiation' LIMIT 1");
      await err(
        'change_opportunity_stage',
        { opportunityId: neg.Id, stageName: 'Qualification' },
        'INVALID_STATUS_TRANSITION',
      );
      await err(
        'change_opportunity_stage',
        { opportunityId: neg.Id, stageName: 'Closed Won' },
        'INVALID_STATUS_TRANSITION',
      );
      const closed = await one('SELECT Id FROM Opportunity WHERE IsClosed = TRUE LIMIT 1');
      await err('update_opportunity', { opportunityId: closed.Id, amount: 5 }, 'INVALID_STATUS_TRANSITION');
      await err('close_opportunity', { opportunityId: closed.Id, outcome: 'won' }, 'INVALID_STATUS_TRANSITION');
      const closedCase = await one("SELECT Id FROM Case WHERE Status = 'Closed' LIMIT 1");
      await err('update_case', { caseId: closedCase.Id, status: 'Working' }, 'INVALID_STATUS_TRANSITION');
      await err('escalate_case', { caseId: closedCase.Id, reason: 'x' }, 'INVALID_STATUS_TRANSITION');
      const tier3 = await one("SELECT Id FROM Case WHERE Tier = 3 AND Status = 'Escalated' LIMIT 1");
      await err('escalate_case', { caseId: tier3.Id, reason: 'again' }, 'INVALID_STATUS_TRANSITION');
      const working = await one("SELECT Id FROM Case WHERE Status = 'Working' LIMIT 1");
      await err('update_case', { caseId: working.Id, status: 'Escalated' }, 'INVALID_STATUS_TRANSITION');
    });

    it('REQUIRED_FIELD_MISSING, DUPLICATE_RECORD, POLICY_LIMIT_EXCEEDED, CURRENCY_MISMATCH, DEPENDENT_RECORDS_EXIST', async () => {
      const open = await one("SELECT Id, AccountId, Name FROM Opportunity WHERE StageName = 'Proposal' LIMIT 1");
      await err('close_opportunity', { opportunityId: open.Id, outcome: 'lost' }, 'REQUIRED_FIELD_MISSING');
      const acct = await one(
        "SELECT Id, Name, BillingCountry, CurrencyIsoCode FROM Account WHERE CurrencyIsoCode = 'EUR' LIMIT 1",
      );
      await err(
        'create_account',
        { name: acct.Name.toUpperCase(), billingCountry: acct.BillingCountry, currencyIsoCode: 'EUR' },
        'DUPLICATE_RECORD',
      );
      const contact = await one('SELECT Id, AccountId, Email FROM Contact WHERE Email != NULL LIMIT 1');
      await err(
        'create_contact',
        { accountId: contact.AccountId, lastName: 'Dup', email: contact.Email },
        'DUPLICATE_RECORD',
      );
      await err(
        'create_opportunity',
        { accountId: open.AccountId, name: open.Name, closeDate: '2026-12-01' },
        'DUPLICATE_RECORD',
      );
      await err('update_opportunity', { opportunityId: open.Id, discountPercent: 40 }, 'POLICY_LIMIT_EXCEEDED');
      await err(
        'create_opportunity',
        { accountId: acct.Id, name: 'Huge', closeDate: '2026-12-01', amount: 20_000_000 },
        'POLICY_LIMIT_EXCEEDED',
      );
      await err(
        'create_opportunity',
        { accountId: acct.Id, name: 'Wrong money', closeDate: '2026-12-01', currencyIsoCode: 'USD' },
        'CURRENCY_MISMATCH',
      );
      const busy = await one('SELECT AccountId FROM Opportunity WHERE IsClosed = FALSE LIMIT 1');
      await err('delete_record', { objectName: 'Account', recordId: busy.AccountId }, 'DEPENDENT_RECORDS_EXIST');
    });

    it('INVALID_QUERY for anything outside the SOQL subset, and nothing injected runs', async () => {
      await ok('create_account', { name: '100% Agile Ltd', billingCountry: 'Ireland', currencyIsoCode: 'EUR' });
      assert.equal(
        (await ok('soql_query', { query: "SELECT Id FROM Account WHERE Name LIKE '100\\% Agile%'" })).records.length,
        1,
        'escaped % is a literal percent sign',
      );
      assert.equal(
        (await ok('soql_query', { query: "SELECT Id FROM Account WHERE Name LIKE '1\\%%'" })).records.length,
        0,
        'and not a wildcard',
      );
      assert.ok((await ok('soql_query', { query: "SELECT Id FROM Account WHERE Name LIKE '1%'" })).records.length >= 1);
      const before = (await ok('soql_query', { query: 'SELECT COUNT() FROM Account' })).totalSize;
      for (const query of [
        "SELECT Id FROM Account WHERE Name = 'x'; DROP TABLE Account",
        'SELECT Id FROM Account UNION SELECT Id FROM User',
        'SELECT Account.Name FROM Contact',
        'SELECT Password FROM User',
        'SELECT Id FROM sqlite_master',
        'SELECT Id FROM Account LIMIT 99999',
        "SELECT Id FROM Account WHERE Name = 'unterminated",
        'DELETE FROM Account',
        'SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Contact)',
      ]) {
        await err('soql_query', { query }, 'INVALID_QUERY');
      }
      const quoted = await ok('soql_query', { query: "SELECT Id FROM Account WHERE Name = 'x\\' OR \\'1\\'=\\'1'" });
      assert.equal(quoted.records.length, 0, 'a quote inside a string literal stays data');
      const search = await ok('search_records', { searchTerm: "'; DROP TABLE Account; --" });
      assert.equal(search.results.Account.length, 0);
      assert.equal((await ok('soql_query', { query: 'SELECT COUNT() FROM Account' })).totalSize, before);
    });

    it('bad input gets a clean INVALID_ARGUMENTS or PAYLOAD_TOO_LARGE, and the server keeps serving', async () => {
      const acct = await one('SELECT Id FROM Account LIMIT 1');
      const e1 = await err(
        'create_opportunity',
        { accountId: acct.Id, name: 'x', closeDate: '2026-01-01', amount: '1000' },
        'INVALID_ARGUMENTS',
      );
      assert.match(e1.message, /\/amount must be number/);
      const e2 = await err('update_account', { accountId: acct.Id, name: 'x', color: 'red' }, 'INVALID_ARGUMENTS');
      assert.match(e2.message, /additional properties: color/);
      await err('get_record', { objectName: 'Account', recordId: "001' OR 1=1 --" }, 'INVALID_ARGUMENTS');
      await err('create_opportunity', { accountId: acct.Id, name: 'x', closeDate: 'next friday' }, 'INVALID_ARGUMENTS');
      await err('update_account', { accountId: acct.Id }, 'INVALID_ARGUMENTS');
      await err(
        'create_case',
        { accountId: acct.Id, subject: 'x', description: 'y'.repeat(100_000) },
        'PAYLOAD_TOO_LARGE',
      );
      await err('no_such_tool', {}, 'UNKNOWN_TOOL');
      assert.equal((await ok('soql_query', { query: 'SELECT COUNT() FROM User' })).totalSize > 0, true);
    });
  });

  describe('RBAC', () => {
    it('refuses a write when the call narrows scopes to read-only, and allows it with the right scope', async () => {
      const acct = await one('SELECT Id FROM Account LIMIT 1');
      const e = await err('update_account', { accountId: acct.Id, phone: '+1 555 000 0000' }, 'INSUFFICIENT_SCOPE', {
        scopes: ['sf.read'],
      });
      assert.deepEqual(e.details.missing, ['sf.account.write']);
      await ok(
        'update_account',
        { accountId: acct.Id, phone: '+1 555 000 0000' },
        { scopes: ['sf.read', 'sf.account.write'] },
      );
      await err('delete_record', { objectName: 'Account', recordId: acct.Id }, 'INSUFFICIENT_SCOPE', {
        scopes: ['sf.read', 'sf.account.write'],
      });
    });

    it('a server started with --scopes cannot be widened by the call', async () => {
      const narrow = await stdioSandbox('salesforce', ['--scopes', 'sf.read']);
      try {
        const acct = (await narrow.call('soql_query', { query: 'SELECT Id FROM Account LIMIT 1' })).result.records[0];
        const r = await narrow.call(
          'update_account',
          { accountId: acct.Id, phone: '1' },
          { scopes: ['sf.read', 'sf.account.write', '*'] },
        );
        assert.equal(r.error?.code, 'INSUFFICIENT_SCOPE');
      } finally {
        await narrow.close();
      }
    });
  });

  it('exercises every error code this sandbox can return', () => {
    assert.deepEqual([...seen].sort(), [...SALESFORCE_CODES].sort());
  });
});
