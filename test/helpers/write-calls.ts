import assert from 'node:assert/strict';
import type { Sandbox, SandboxName } from './sandbox.js';

export interface Call {
  tool: string;
  args: Record<string, unknown>;
}

async function result(sb: Sandbox, tool: string, args: unknown): Promise<any> {
  const r = await sb.call(tool, args);
  assert.equal(r.isError, false, `${tool}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/**
 * One valid call per write tool (destructive ones included), built from live data. Some need a state the
 * seed data does not have (an open period with no unposted journals, an invoice with no receipts): this
 * sets that up with real writes first, so call it before taking a baseline.
 */
export async function writeCalls(sb: Sandbox, name: SandboxName): Promise<Call[]> {
  if (name === 'salesforce') {
    const q = async (query: string) => (await result(sb, 'soql_query', { query })).records[0];
    const acct = await q("SELECT Id, CurrencyIsoCode FROM Account WHERE CurrencyIsoCode = 'USD' LIMIT 1");
    const contact = await q('SELECT Id, AccountId FROM Contact LIMIT 1');
    const opp = await q("SELECT Id FROM Opportunity WHERE StageName = 'Qualification' LIMIT 1");
    const fresh = await q("SELECT Id FROM Case WHERE Status = 'New' AND Tier = 1 LIMIT 1");
    const agent = (await result(sb, 'list_users', { role: 'Support Agent' })).records[0];
    return [
      { tool: 'create_account', args: { name: 'Dry Run Industries', billingCountry: 'Spain', currencyIsoCode: 'EUR' } },
      { tool: 'update_account', args: { accountId: acct.Id, industry: 'Energy' } },
      { tool: 'create_contact', args: { accountId: acct.Id, lastName: 'Dryrun', email: 'dry@run.example' } },
      { tool: 'update_contact', args: { contactId: contact.Id, title: 'Head of Dry Runs' } },
      {
        tool: 'create_opportunity',
        args: { accountId: acct.Id, name: 'Dry run deal', closeDate: '2026-11-30', amount: 1000 },
      },
      { tool: 'update_opportunity', args: { opportunityId: opp.Id, amount: 4242 } },
      { tool: 'change_opportunity_stage', args: { opportunityId: opp.Id, stageName: 'Proposal' } },
      { tool: 'close_opportunity', args: { opportunityId: opp.Id, outcome: 'lost', lossReason: 'Timing' } },
      { tool: 'create_case', args: { accountId: contact.AccountId, contactId: contact.Id, subject: 'Dry run case' } },
      { tool: 'update_case', args: { caseId: fresh.Id, status: 'Working' } },
      { tool: 'reassign_case', args: { caseId: fresh.Id, ownerId: agent.Id } },
      { tool: 'escalate_case', args: { caseId: fresh.Id, reason: 'dry run' } },
      { tool: 'delete_record', args: { objectName: 'Case', recordId: fresh.Id } },
    ];
  }
  await result(sb, 'open_period', { periodName: 'SEP-26' });
  const customer = (await result(sb, 'find_customers', { country: 'United States', limit: 50 })).customers.find(
    (c: { STATUS: string }) => c.STATUS === 'A',
  );
  const fresh = await result(sb, 'create_invoice', {
    custAccountId: customer.CUST_ACCOUNT_ID,
    trxDate: '2026-06-12',
    currencyCode: 'USD',
    lines: [{ description: 'setup', quantity: 1, unitPrice: 1 }],
  });
  const open = (await result(sb, 'search_invoices', { status: 'OP', limit: 1 })).invoices[0];
  const ccs = (await result(sb, 'list_code_combinations', { company: '01' })).codeCombinations;
  const [cash, revenue] = [
    ccs.find((c: { SEGMENT3: string }) => c.SEGMENT3 === '1110').CODE_COMBINATION_ID,
    ccs.find((c: { SEGMENT3: string }) => c.SEGMENT3 === '4100').CODE_COMBINATION_ID,
  ];
  const posted = (await result(sb, 'search_journals', { status: 'P', periodName: 'JUN-26', limit: 50 })).journals.find(
    (j: { ACCRUAL_REV_JE_HEADER_ID: number | null; REVERSED_JE_HEADER_ID: number | null }) =>
      j.ACCRUAL_REV_JE_HEADER_ID === null && j.REVERSED_JE_HEADER_ID === null,
  );
  const unposted = await result(sb, 'create_journal', {
    periodName: 'JUN-26',
    name: 'setup unposted',
    category: 'Adjustment',
    currencyCode: 'USD',
    lines: [
      { codeCombinationId: cash, debit: 5 },
      { codeCombinationId: revenue, credit: 5 },
    ],
  });
  return [
    {
      tool: 'create_invoice',
      args: {
        custAccountId: customer.CUST_ACCOUNT_ID,
        trxDate: '2026-06-12',
        currencyCode: 'USD',
        lines: [{ description: 'Dry run', quantity: 2, unitPrice: 10 }],
      },
    },
    {
      tool: 'apply_receipt',
      args: {
        customerTrxId: open.CUSTOMER_TRX_ID,
        receiptNumber: 'DRY-1',
        amount: 1,
        currencyCode: open.INVOICE_CURRENCY_CODE,
        receiptDate: '2026-06-14',
      },
    },
    {
      tool: 'create_journal',
      args: {
        periodName: 'JUN-26',
        name: 'Dry run journal',
        category: 'Adjustment',
        currencyCode: 'USD',
        lines: [
          { codeCombinationId: cash, debit: 10 },
          { codeCombinationId: revenue, credit: 10 },
        ],
      },
    },
    { tool: 'post_journal', args: { jeHeaderId: unposted.JE_HEADER_ID } },
    { tool: 'reverse_journal', args: { jeHeaderId: posted.JE_HEADER_ID, reversalPeriodName: 'JUN-26' } },
    { tool: 'open_period', args: { periodName: 'OCT-26' } },
    { tool: 'close_period', args: { periodName: 'SEP-26' } },
    { tool: 'update_credit_limit', args: { custAccountId: customer.CUST_ACCOUNT_ID, creditLimit: 123_456 } },
    { tool: 'void_invoice', args: { customerTrxId: fresh.customerTrxId, reason: 'dry run' } },
  ];
}
