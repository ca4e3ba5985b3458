/** The Oracle EBS sandbox through a real MCP client over stdio: every tool, every business-rule code, RBAC. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectations, listAllTools, stdioSandbox, type Sandbox } from '../helpers/sandbox.js';
import { ORACLE_EBS_CODES } from '../helpers/sandbox-codes.js';

let ebs: Sandbox;
const seen = new Set<string>();

const { ok, err } = expectations(() => ebs, seen);

/** A USD customer with enough credit headroom for small invoices. */
async function usdCustomer(offset = 0) {
  const customers = (await ok('find_customers', { country: 'United States', limit: 200 })).customers.filter(
    (c: { STATUS: string }) => c.STATUS === 'A',
  );
  for (const c of customers.slice(offset)) {
    const full = await ok('get_customer', { custAccountId: c.CUST_ACCOUNT_ID });
    if (full.PARTY_STATUS === 'A' && full.CREDIT_LIMIT - full.OPEN_BALANCE > 50_000) return full;
  }
  throw new Error('no USD customer with credit headroom');
}
const cc = async (account: string) =>
  (await ok('list_code_combinations', { company: '01', account })).codeCombinations[0].CODE_COMBINATION_ID as number;

describe('oracle-ebs sandbox', () => {
  before(async () => {
    ebs = await stdioSandbox('oracle-ebs');
  });
  after(() => ebs?.close());

  it('lists 18 tools with scopes and honest annotations', async () => {
    const tools = await listAllTools(ebs.client);
    assert.equal(tools.length, 18);
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get('get_ar_aging')!.annotations!.readOnlyHint, true);
    assert.equal(byName.get('void_invoice')!.annotations!.destructiveHint, true);
    assert.deepEqual((byName.get('post_journal')!._meta as { scopes: string[] }).scopes, ['gl.post']);
    assert.deepEqual((byName.get('open_period')!._meta as { scopes: string[] }).scopes, ['ebs.admin']);
  });

  describe('read tools', () => {
    it('customers, invoices, aging, periods, code combinations, journals', async () => {
      const c = await usdCustomer();
      assert.equal(c.CURRENCY_CODE, 'USD');
      const found = await ok('find_customers', { accountNumber: c.ACCOUNT_NUMBER });
      assert.equal(found.customers[0].CUST_ACCOUNT_ID, c.CUST_ACCOUNT_ID);
      const invs = await ok('search_invoices', { custAccountId: c.CUST_ACCOUNT_ID, limit: 5 });
      assert.ok(invs.invoices.length > 0);
      const inv = await ok('get_invoice', { trxNumber: invs.invoices[0].TRX_NUMBER });
      assert.equal(inv.header.CUSTOMER_TRX_ID, invs.invoices[0].CUSTOMER_TRX_ID);
      const linesTotal =
        inv.lines.reduce((s: number, l: { EXTENDED_AMOUNT: number }) => s + Math.round(l.EXTENDED_AMOUNT * 100), 0) /
        100;
      assert.equal(linesTotal, inv.paymentSchedule[0].AMOUNT_DUE_ORIGINAL);
      const aging = await ok('get_ar_aging', { currencyCode: 'USD' });
      const usd = aging.byCurrency.USD;
      const sum = ['Current', '1-30', '31-60', '61-90', '91+'].reduce((s, b) => s + Math.round(usd[b] * 100), 0) / 100;
      assert.equal(sum, usd.Total);
      assert.ok(usd['91+'] > 0, 'there are long overdue items');
      const june = await ok('get_period_status', { periodName: 'JUN-26' });
      assert.equal(june.periods[0].STATUS_MEANING, 'Open');
      assert.equal((await ok('get_period_status', { year: 2025 })).periods.length, 12);
      assert.ok((await ok('list_code_combinations', { accountType: 'R' })).codeCombinations.length > 0);
      const posted = (
        await ok('get_journal', {
          jeHeaderId: (await ok('search_journals', { status: 'P', limit: 1 })).journals[0].JE_HEADER_ID,
        })
      ).header;
      assert.equal(posted.RUNNING_TOTAL_DR, posted.RUNNING_TOTAL_CR);
    });
  });

  describe('write tools (happy paths)', () => {
    it('create an invoice, pay it in two receipts, and void another', async () => {
      const c = await usdCustomer();
      const inv = await ok('create_invoice', {
        custAccountId: c.CUST_ACCOUNT_ID,
        trxDate: '2026-06-10',
        currencyCode: 'USD',
        lines: [
          { description: 'Support renewal', quantity: 2, unitPrice: 1250.5 },
          { description: 'Training days', quantity: 1, unitPrice: 999.99 },
        ],
        purchaseOrder: 'PO-FLY-1',
      });
      assert.equal(inv.total, 3500.99);
      const r1 = await ok('apply_receipt', {
        customerTrxId: inv.customerTrxId,
        receiptNumber: 'R-FLY-1',
        amount: 1500,
        currencyCode: 'USD',
        receiptDate: '2026-06-12',
      });
      assert.equal(r1.remaining, 2000.99);
      const r2 = await ok('apply_receipt', {
        customerTrxId: inv.customerTrxId,
        receiptNumber: 'R-FLY-2',
        amount: 2000.99,
        currencyCode: 'USD',
        receiptDate: '2026-06-14',
      });
      assert.equal(r2.invoiceStatus, 'CL');
      const other = await ok('create_invoice', {
        custAccountId: c.CUST_ACCOUNT_ID,
        trxDate: '2026-06-11',
        currencyCode: 'USD',
        lines: [{ description: 'Freight', quantity: 1, unitPrice: 100 }],
      });
      assert.equal(
        (await ok('void_invoice', { customerTrxId: other.customerTrxId, reason: 'entered twice' })).STATUS_TRX,
        'VD',
      );
    });

    it('create, post and reverse a journal; open and close periods; update a credit limit', async () => {
      const [cash, revenue] = [await cc('1110'), await cc('4100')];
      const je = await ok('create_journal', {
        periodName: 'JUN-26',
        name: 'Flywheel accrual',
        category: 'Accrual',
        currencyCode: 'USD',
        lines: [
          { codeCombinationId: cash, debit: 1234.56 },
          { codeCombinationId: revenue, credit: 1234.56 },
        ],
      });
      assert.equal(je.STATUS, 'U');
      assert.equal((await ok('post_journal', { jeHeaderId: je.JE_HEADER_ID })).STATUS, 'P');
      const rev = await ok('reverse_journal', { jeHeaderId: je.JE_HEADER_ID, reversalPeriodName: 'JUL-26' });
      assert.equal(rev.REVERSED_JE_HEADER_ID, je.JE_HEADER_ID);
      const lines = (await ok('get_journal', { jeHeaderId: rev.JE_HEADER_ID })).lines;
      assert.deepEqual(
        lines.map((l: { ENTERED_DR: number | null; ENTERED_CR: number | null }) => [l.ENTERED_DR, l.ENTERED_CR]),
        [
          [null, 1234.56],
          [1234.56, null],
        ],
      );
      assert.equal((await ok('open_period', { periodName: 'AUG-26' })).CLOSING_STATUS, 'O');
      assert.equal((await ok('close_period', { periodName: 'AUG-26' })).CLOSING_STATUS, 'C');
      const c = await usdCustomer(3);
      assert.equal(
        (await ok('update_credit_limit', { custAccountId: c.CUST_ACCOUNT_ID, creditLimit: 750_000 })).CREDIT_LIMIT,
        750_000,
      );
    });
  });

  describe('business rules', () => {
    it('PERIOD_CLOSED, CURRENCY_MISMATCH, POLICY_LIMIT_EXCEEDED, DUPLICATE_RECORD on invoices', async () => {
      const c = await usdCustomer(1);
      const line = [{ description: 'x', quantity: 1, unitPrice: 10 }];
      await err(
        'create_invoice',
        { custAccountId: c.CUST_ACCOUNT_ID, trxDate: '2026-03-10', currencyCode: 'USD', lines: line },
        'PERIOD_CLOSED',
      );
      await err(
        'create_invoice',
        { custAccountId: c.CUST_ACCOUNT_ID, trxDate: '2026-07-10', currencyCode: 'USD', lines: line },
        'PERIOD_CLOSED',
      );
      await err(
        'create_invoice',
        { custAccountId: c.CUST_ACCOUNT_ID, trxDate: '2026-06-10', currencyCode: 'EUR', lines: line },
        'CURRENCY_MISMATCH',
      );
      await err(
        'create_invoice',
        {
          custAccountId: c.CUST_ACCOUNT_ID,
          trxDate: '2026-06-10',
          currencyCode: 'USD',
          lines: [{ description: 'x', quantity: 1000, unitPrice: 2000 }],
        },
        'POLICY_LIMIT_EXCEEDED',
      );
      await err(
        'create_invoice',
        {
          custAccountId: c.CUST_ACCOUNT_ID,
          trxDate: '2026-06-10',
          currencyCode: 'USD',
          lines: [{ description: 'x', quantity: 1, unitPrice: c.CREDIT_LIMIT }],
        },
        'POLICY_LIMIT_EXCEEDED',
      );
      await ok('create_invoice', {
        custAccountId: c.CUST_ACCOUNT_ID,
        trxDate: '2026-06-10',
        currencyCode: 'USD',
        lines: line,
        purchaseOrder: 'PO-DUP',
      });
      await err(
        'create_invoice',
        {
          custAccountId: c.CUST_ACCOUNT_ID,
          trxDate: '2026-06-11',
          currencyCode: 'USD',
          lines: line,
          purchaseOrder: 'PO-DUP',
        },
        'DUPLICATE_RECORD',
      );
      await err(
        'create_invoice',
        { custAccountId: 1, trxDate: '2026-06-10', currencyCode: 'USD', lines: line },
        'NOT_FOUND',
      );
    });

    it('receipts: AMOUNT_EXCEEDS_BALANCE, CURRENCY_MISMATCH, DUPLICATE_RECORD, INVALID_STATUS_TRANSITION', async () => {
      const open = (await ok('search_invoices', { status: 'OP', currencyCode: 'GBP', limit: 1 })).invoices[0];
      const base = { customerTrxId: open.CUSTOMER_TRX_ID, receiptDate: '2026-06-14' };
      await err(
        'apply_receipt',
        { ...base, receiptNumber: 'R-X', amount: open.AMOUNT_DUE_REMAINING + 1, currencyCode: 'GBP' },
        'AMOUNT_EXCEEDS_BALANCE',
      );
      await err(
        'apply_receipt',
        { ...base, receiptNumber: 'R-X', amount: 1, currencyCode: 'USD' },
        'CURRENCY_MISMATCH',
      );
      await err(
        'apply_receipt',
        { ...base, receiptNumber: 'R-X', amount: 1, currencyCode: 'GBP', receiptDate: '2026-04-30' },
        'PERIOD_CLOSED',
      );
      await ok('apply_receipt', { ...base, receiptNumber: 'R-X', amount: 1, currencyCode: 'GBP' });
      await err('apply_receipt', { ...base, receiptNumber: 'R-X', amount: 1, currencyCode: 'GBP' }, 'DUPLICATE_RECORD');
      const closed = (await ok('search_invoices', { status: 'CL', limit: 1 })).invoices[0];
      await err(
        'apply_receipt',
        {
          customerTrxId: closed.CUSTOMER_TRX_ID,
          receiptNumber: 'R-Y',
          amount: 1,
          currencyCode: closed.INVOICE_CURRENCY_CODE,
          receiptDate: '2026-06-14',
        },
        'INVALID_STATUS_TRANSITION',
      );
      await err('void_invoice', { customerTrxId: closed.CUSTOMER_TRX_ID, reason: 'try' }, 'INVALID_STATUS_TRANSITION');
      await err(
        'void_invoice',
        { customerTrxId: open.CUSTOMER_TRX_ID, reason: 'has receipts' },
        'DEPENDENT_RECORDS_EXIST',
      );
    });

    it('journals: JOURNAL_UNBALANCED, PERIOD_CLOSED, CURRENCY_MISMATCH, REQUIRED_FIELD_MISSING, NOT_FOUND, transitions', async () => {
      const [cash, revenue] = [await cc('1110'), await cc('4100')];
      const j = (over: Record<string, unknown>) => ({
        periodName: 'JUN-26',
        name: `J ${Math.random()}`,
        category: 'Adjustment',
        currencyCode: 'USD',
        lines: [
          { codeCombinationId: cash, debit: 100 },
          { codeCombinationId: revenue, credit: 100 },
        ],
        ...over,
      });
      await err(
        'create_journal',
        j({
          lines: [
            { codeCombinationId: cash, debit: 100 },
            { codeCombinationId: revenue, credit: 99.99 },
          ],
        }),
        'JOURNAL_UNBALANCED',
      );
      await err('create_journal', j({ periodName: 'MAR-26' }), 'PERIOD_CLOSED');
      await err('create_journal', j({ periodName: 'DEC-26' }), 'PERIOD_CLOSED');
      await err('create_journal', j({ periodName: 'XYZ-26' }), 'NOT_FOUND');
      await err('create_journal', j({ currencyCode: 'EUR' }), 'CURRENCY_MISMATCH');
      await err(
        'create_journal',
        j({ lines: [{ codeCombinationId: cash }, { codeCombinationId: revenue, credit: 100 }] }),
        'REQUIRED_FIELD_MISSING',
      );
      await err(
        'create_journal',
        j({
          lines: [
            { codeCombinationId: cash, debit: 100, credit: 100 },
            { codeCombinationId: revenue, credit: 100 },
          ],
        }),
        'INVALID_ARGUMENTS',
      );
      await err(
        'create_journal',
        j({
          lines: [
            { codeCombinationId: 999_999, debit: 100 },
            { codeCombinationId: revenue, credit: 100 },
          ],
        }),
        'NOT_FOUND',
      );
      const disabled = (await ok('list_code_combinations', { enabledOnly: false })).codeCombinations.find(
        (c: { ENABLED_FLAG: string }) => c.ENABLED_FLAG === 'N',
      );
      await err(
        'create_journal',
        j({
          lines: [
            { codeCombinationId: disabled.CODE_COMBINATION_ID, debit: 100 },
            { codeCombinationId: revenue, credit: 100 },
          ],
        }),
        'NOT_FOUND',
      );
      const dupName = j({});
      await ok('create_journal', dupName);
      await err('create_journal', dupName, 'DUPLICATE_RECORD');
      const future = await ok('create_journal', j({ periodName: 'JUL-26' }));
      await err('post_journal', { jeHeaderId: future.JE_HEADER_ID }, 'PERIOD_CLOSED');
      await err(
        'post_journal',
        { jeHeaderId: (await ok('search_journals', { status: 'P', limit: 1 })).journals[0].JE_HEADER_ID },
        'INVALID_STATUS_TRANSITION',
      );
      await err(
        'reverse_journal',
        { jeHeaderId: future.JE_HEADER_ID, reversalPeriodName: 'JUL-26' },
        'INVALID_STATUS_TRANSITION',
      );
      const posted = await ok('create_journal', j({}));
      await ok('post_journal', { jeHeaderId: posted.JE_HEADER_ID });
      await err('reverse_journal', { jeHeaderId: posted.JE_HEADER_ID, reversalPeriodName: 'JAN-26' }, 'PERIOD_CLOSED');
      await ok('reverse_journal', { jeHeaderId: posted.JE_HEADER_ID, reversalPeriodName: 'JUN-26' });
      await err(
        'reverse_journal',
        { jeHeaderId: posted.JE_HEADER_ID, reversalPeriodName: 'JUN-26' },
        'INVALID_STATUS_TRANSITION',
      );
    });

    it('periods and credit limits: transitions, DEPENDENT_RECORDS_EXIST, POLICY_LIMIT_EXCEEDED', async () => {
      await err('open_period', { periodName: 'JUN-26' }, 'INVALID_STATUS_TRANSITION');
      await err('close_period', { periodName: 'APR-26' }, 'INVALID_STATUS_TRANSITION');
      assert.equal(
        (await ok('search_journals', { periodName: 'MAY-26', status: 'U' })).count,
        0,
        'the previous period is ready to close',
      );
      assert.ok((await ok('search_journals', { periodName: 'JUN-26', status: 'U' })).count > 0);
      await err('close_period', { periodName: 'JUN-26' }, 'DEPENDENT_RECORDS_EXIST');
      const c = await usdCustomer();
      await err(
        'update_credit_limit',
        { custAccountId: c.CUST_ACCOUNT_ID, creditLimit: 9_000_000 },
        'POLICY_LIMIT_EXCEEDED',
      );
    });

    it('RBAC and bad input', async () => {
      await err('post_journal', { jeHeaderId: 40_001 }, 'INSUFFICIENT_SCOPE', {
        scopes: ['gl.read', 'gl.journal.write'],
      });
      await err('open_period', { periodName: 'SEP-26' }, 'INSUFFICIENT_SCOPE', { scopes: ['gl.read', 'gl.post'] });
      await err('get_invoice', { customerTrxId: 100_000, trxNumber: '300000' }, 'INVALID_ARGUMENTS');
      await err('get_invoice', { trxNumber: "300000' OR '1'='1" }, 'INVALID_ARGUMENTS');
      await err('search_invoices', { custAccountId: '20001' }, 'INVALID_ARGUMENTS');
      await err(
        'create_invoice',
        { custAccountId: 20_000, trxDate: '2026-06-10', currencyCode: 'USD', lines: [] },
        'INVALID_ARGUMENTS',
      );
      await err(
        'apply_receipt',
        { customerTrxId: 100_000, receiptNumber: 'x', amount: 10.001, currencyCode: 'USD', receiptDate: '2026-06-14' },
        'INVALID_ARGUMENTS',
      );
      const r = await ok('find_customers', { name: "%' OR 1=1 --" });
      assert.equal(r.customers.length, 0);
    });
  });

  it('exercises every error code this sandbox can return', () => {
    assert.deepEqual([...seen].sort(), [...ORACLE_EBS_CODES].sort());
  });
});
