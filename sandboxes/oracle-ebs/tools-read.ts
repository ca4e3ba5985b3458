import { daysBetween, round2 } from '../common/rng.js';
import { bool, date, enumOf, int, money, object, str } from '../common/schema.js';
import type { SandboxTool } from '../common/server.js';
import { customer, invoice, journal, openBalance, period, type Row } from './helpers.js';
import { PERIOD_STATUS } from './schema.js';

const AR_READ = ['ebs.ar.read'];
const GL_READ = ['gl.read'];
const id = (what: string) => int(what, { minimum: 1 });
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD'];

export const readTools: SandboxTool[] = [
  {
    name: 'find_customers',
    title: 'Find customers',
    description:
      'Look up customer accounts (HZ_CUST_ACCOUNTS with their HZ_PARTIES party) by name fragment, account number or country; with no filter, the first accounts by name.',
    inputSchema: object({
      name: str('Part of the customer name (case-insensitive)', { minLength: 2, maxLength: 100 }),
      accountNumber: str('Exact account number, e.g. C1042', { pattern: '^C\\d{4,}$' }),
      country: str('Country of the party', { minLength: 2, maxLength: 60 }),
      limit: int('Max rows (default 25)', { minimum: 1, maximum: 200 }),
    }),
    scopes: AR_READ,
    kind: 'read',
    run(
      {
        name,
        accountNumber,
        country,
        limit = 25,
      }: { name?: string; accountNumber?: string; country?: string; limit?: number },
      { db },
    ) {
      const rows = db
        .prepare(
          `SELECT a.CUST_ACCOUNT_ID, a.ACCOUNT_NUMBER, p.PARTY_ID, p.PARTY_NAME, p.CITY, p.COUNTRY, a.CURRENCY_CODE, a.CREDIT_LIMIT, a.STATUS
        FROM HZ_CUST_ACCOUNTS a JOIN HZ_PARTIES p ON p.PARTY_ID = a.PARTY_ID
        WHERE (? IS NULL OR p.PARTY_NAME LIKE ? ESCAPE '\\') AND (? IS NULL OR a.ACCOUNT_NUMBER = ?) AND (? IS NULL OR p.COUNTRY = ? COLLATE NOCASE)
        ORDER BY p.PARTY_NAME, a.CUST_ACCOUNT_ID LIMIT ?`,
        )
        .all(
          name ?? null,
          name ? `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
          accountNumber ?? null,
          accountNumber ?? null,
          country ?? null,
          country ?? null,
          limit,
        );
      return { count: rows.length, customers: rows };
    },
  },
  {
    name: 'get_customer',
    title: 'Get a customer account',
    description:
      'One customer account with its party, currency, payment terms, credit limit and open receivable balance.',
    inputSchema: object({ custAccountId: id('CUST_ACCOUNT_ID') }, ['custAccountId']),
    scopes: AR_READ,
    kind: 'read',
    run({ custAccountId }: { custAccountId: number }, { db }) {
      const c = customer(db, custAccountId);
      return { ...c, OPEN_BALANCE: round2(openBalance(db, custAccountId)) };
    },
  },
  {
    name: 'search_invoices',
    title: 'Search invoices',
    description:
      'Search AR invoices (RA_CUSTOMER_TRX_ALL) by customer, status (OP open, CL closed, VD void), dates, amount or currency. Returns headers with their remaining balance.',
    inputSchema: object({
      custAccountId: id('Bill-to CUST_ACCOUNT_ID'),
      status: enumOf(['OP', 'CL', 'VD'], 'Invoice status'),
      trxDateFrom: date('Invoice date on or after'),
      trxDateTo: date('Invoice date on or before'),
      dueBefore: date('Due date before (overdue as of a date)'),
      minAmount: money('Original amount at least'),
      currencyCode: enumOf(CURRENCIES, 'Invoice currency'),
      limit: int('Max rows (default 50)', { minimum: 1, maximum: 500 }),
      offset: int('Rows to skip', { minimum: 0 }),
    }),
    scopes: AR_READ,
    kind: 'read',
    run(
      a: {
        custAccountId?: number;
        status?: string;
        trxDateFrom?: string;
        trxDateTo?: string;
        dueBefore?: string;
        minAmount?: number;
        currencyCode?: string;
        limit?: number;
        offset?: number;
      },
      { db },
    ) {
      const rows = db
        .prepare(
          `SELECT t.CUSTOMER_TRX_ID, t.TRX_NUMBER, t.BILL_TO_CUSTOMER_ID, t.TRX_DATE, t.INVOICE_CURRENCY_CODE, t.STATUS_TRX, t.PURCHASE_ORDER,
          ps.DUE_DATE, ps.AMOUNT_DUE_ORIGINAL, ps.AMOUNT_DUE_REMAINING
        FROM RA_CUSTOMER_TRX_ALL t JOIN AR_PAYMENT_SCHEDULES_ALL ps ON ps.CUSTOMER_TRX_ID = t.CUSTOMER_TRX_ID
        WHERE (@cust IS NULL OR t.BILL_TO_CUSTOMER_ID = @cust) AND (@status IS NULL OR t.STATUS_TRX = @status) AND (@from IS NULL OR t.TRX_DATE >= @from)
          AND (@to IS NULL OR t.TRX_DATE <= @to) AND (@dueBefore IS NULL OR ps.DUE_DATE < @dueBefore) AND (@minAmount IS NULL OR ps.AMOUNT_DUE_ORIGINAL >= @minAmount)
          AND (@currency IS NULL OR t.INVOICE_CURRENCY_CODE = @currency)
        ORDER BY t.TRX_DATE DESC, t.CUSTOMER_TRX_ID DESC LIMIT @limit OFFSET @offset`,
        )
        .all({
          cust: a.custAccountId ?? null,
          status: a.status ?? null,
          from: a.trxDateFrom ?? null,
          to: a.trxDateTo ?? null,
          dueBefore: a.dueBefore ?? null,
          minAmount: a.minAmount ?? null,
          currency: a.currencyCode ?? null,
          limit: a.limit ?? 50,
          offset: a.offset ?? 0,
        });
      return { count: rows.length, invoices: rows };
    },
  },
  {
    name: 'get_invoice',
    title: 'Get an invoice',
    description:
      'One AR invoice by CUSTOMER_TRX_ID or TRX_NUMBER: header, lines, payment schedule and applied receipts.',
    inputSchema: {
      ...object({
        customerTrxId: id('CUSTOMER_TRX_ID'),
        trxNumber: str('Invoice number (TRX_NUMBER)', { pattern: '^\\d{1,20}$' }),
      }),
      oneOf: [{ required: ['customerTrxId'] }, { required: ['trxNumber'] }],
    },
    scopes: AR_READ,
    kind: 'read',
    run(ref: { customerTrxId?: number; trxNumber?: string }, { db }) {
      const header = invoice(db, ref);
      const trxId = header.CUSTOMER_TRX_ID;
      return {
        header,
        lines: db
          .prepare(`SELECT * FROM RA_CUSTOMER_TRX_LINES_ALL WHERE CUSTOMER_TRX_ID = ? ORDER BY LINE_NUMBER`)
          .all(trxId),
        paymentSchedule: db.prepare(`SELECT * FROM AR_PAYMENT_SCHEDULES_ALL WHERE CUSTOMER_TRX_ID = ?`).all(trxId),
        applications: db
          .prepare(
            `SELECT app.*, r.RECEIPT_NUMBER, r.RECEIPT_DATE FROM AR_RECEIVABLE_APPLICATIONS_ALL app JOIN AR_CASH_RECEIPTS_ALL r ON r.CASH_RECEIPT_ID = app.CASH_RECEIPT_ID WHERE app.APPLIED_CUSTOMER_TRX_ID = ? ORDER BY app.RECEIVABLE_APPLICATION_ID`,
          )
          .all(trxId),
      };
    },
  },
  {
    name: 'get_ar_aging',
    title: 'AR aging by bucket',
    description:
      'Open receivables as of a date in aging buckets (Current, 1-30, 31-60, 61-90, 91+ days past due), per currency, for one customer or all.',
    inputSchema: object({
      asOfDate: date('Aging date (default: today)'),
      custAccountId: id('Only this customer'),
      currencyCode: enumOf(CURRENCIES, 'Only this currency'),
    }),
    scopes: AR_READ,
    kind: 'read',
    run(
      { asOfDate, custAccountId, currencyCode }: { asOfDate?: string; custAccountId?: number; currencyCode?: string },
      { db, today },
    ) {
      const asOf = asOfDate ?? today;
      if (custAccountId !== undefined) customer(db, custAccountId);
      const rows = db
        .prepare(
          `SELECT ps.DUE_DATE, ps.AMOUNT_DUE_REMAINING, ps.INVOICE_CURRENCY_CODE FROM AR_PAYMENT_SCHEDULES_ALL ps JOIN RA_CUSTOMER_TRX_ALL t ON t.CUSTOMER_TRX_ID = ps.CUSTOMER_TRX_ID
        WHERE ps.STATUS = 'OP' AND t.TRX_DATE <= ? AND (? IS NULL OR ps.CUSTOMER_ID = ?) AND (? IS NULL OR ps.INVOICE_CURRENCY_CODE = ?)`,
        )
        .all(asOf, custAccountId ?? null, custAccountId ?? null, currencyCode ?? null, currencyCode ?? null) as Array<{
        DUE_DATE: string;
        AMOUNT_DUE_REMAINING: number;
        INVOICE_CURRENCY_CODE: string;
      }>;
      const buckets = ['Current', '1-30', '31-60', '61-90', '91+'];
      const byCurrency: Record<string, Record<string, number>> = {};
      for (const r of rows) {
        const late = daysBetween(r.DUE_DATE, asOf);
        const b = late <= 0 ? 'Current' : late <= 30 ? '1-30' : late <= 60 ? '31-60' : late <= 90 ? '61-90' : '91+';
        const cur = (byCurrency[r.INVOICE_CURRENCY_CODE] ??= Object.fromEntries(
          [...buckets, 'Total'].map((k) => [k, 0]),
        ));
        cur[b] = round2(cur[b]! + r.AMOUNT_DUE_REMAINING);
        cur.Total = round2(cur.Total! + r.AMOUNT_DUE_REMAINING);
      }
      return { asOfDate: asOf, buckets, openItems: rows.length, byCurrency };
    },
  },
  {
    name: 'get_period_status',
    title: 'GL period status',
    description:
      'Status of GL periods (Open, Closed, Future - Entry, Never Opened, Permanently Closed): one period by name (e.g. JUN-26) or all periods of a year.',
    inputSchema: {
      ...object({
        periodName: str('Period name, e.g. JUN-26', { pattern: '^[A-Z]{3}-\\d{2}$' }),
        year: int('All periods of this year', { minimum: 2000, maximum: 2100 }),
      }),
      oneOf: [{ required: ['periodName'] }, { required: ['year'] }],
    },
    scopes: GL_READ,
    kind: 'read',
    run({ periodName, year }: { periodName?: string; year?: number }, { db }) {
      const rows = periodName
        ? [period(db, periodName)]
        : (db.prepare(`SELECT * FROM GL_PERIOD_STATUSES WHERE PERIOD_YEAR = ? ORDER BY PERIOD_NUM`).all(year) as Row[]);
      return { periods: rows.map((p) => ({ ...p, STATUS_MEANING: PERIOD_STATUS[p.CLOSING_STATUS as string] })) };
    },
  },
  {
    name: 'list_code_combinations',
    title: 'List GL code combinations',
    description:
      'Accounting flexfield combinations (company.cost-center.account.product) with account type (A asset, L liability, O equity, R revenue, E expense).',
    inputSchema: object({
      company: str('SEGMENT1, e.g. 01', { pattern: '^\\d{2}$' }),
      account: str('SEGMENT3 natural account, e.g. 1210', { pattern: '^\\d{4}$' }),
      accountType: enumOf(['A', 'L', 'O', 'R', 'E'], 'Account type'),
      enabledOnly: bool('Only enabled combinations (default true)'),
    }),
    scopes: GL_READ,
    kind: 'read',
    run(
      {
        company,
        account,
        accountType,
        enabledOnly = true,
      }: { company?: string; account?: string; accountType?: string; enabledOnly?: boolean },
      { db },
    ) {
      const rows = db
        .prepare(
          `SELECT * FROM GL_CODE_COMBINATIONS WHERE (@company IS NULL OR SEGMENT1 = @company) AND (@account IS NULL OR SEGMENT3 = @account) AND (@type IS NULL OR ACCOUNT_TYPE = @type) AND (@enabledOnly = 0 OR ENABLED_FLAG = 'Y') ORDER BY CONCATENATED_SEGMENTS`,
        )
        .all({
          company: company ?? null,
          account: account ?? null,
          type: accountType ?? null,
          enabledOnly: enabledOnly ? 1 : 0,
        });
      return { count: rows.length, codeCombinations: rows };
    },
  },
  {
    name: 'search_journals',
    title: 'Search GL journals',
    description:
      'Search GL journal headers by period, status (U unposted, P posted), category or source; newest first.',
    inputSchema: object({
      periodName: str('Period, e.g. JUN-26', { pattern: '^[A-Z]{3}-\\d{2}$' }),
      status: enumOf(['U', 'P'], 'U unposted or P posted'),
      category: enumOf(['Adjustment', 'Accrual', 'Payroll', 'Reclass', 'Revenue', 'Depreciation'], 'Journal category'),
      limit: int('Max rows (default 50)', { minimum: 1, maximum: 500 }),
    }),
    scopes: GL_READ,
    kind: 'read',
    run(
      {
        periodName,
        status,
        category,
        limit = 50,
      }: { periodName?: string; status?: string; category?: string; limit?: number },
      { db },
    ) {
      const rows = db
        .prepare(
          `SELECT JE_HEADER_ID, NAME, PERIOD_NAME, JE_CATEGORY, JE_SOURCE, CURRENCY_CODE, STATUS, RUNNING_TOTAL_DR, RUNNING_TOTAL_CR, DEFAULT_EFFECTIVE_DATE, REVERSED_JE_HEADER_ID, ACCRUAL_REV_JE_HEADER_ID
        FROM GL_JE_HEADERS WHERE (@period IS NULL OR PERIOD_NAME = @period) AND (@status IS NULL OR STATUS = @status) AND (@category IS NULL OR JE_CATEGORY = @category)
        ORDER BY DEFAULT_EFFECTIVE_DATE DESC, JE_HEADER_ID DESC LIMIT @limit`,
        )
        .all({ period: periodName ?? null, status: status ?? null, category: category ?? null, limit });
      return { count: rows.length, journals: rows };
    },
  },
  {
    name: 'get_journal',
    title: 'Get a journal entry',
    description: 'One GL journal (GL_JE_HEADERS) with its lines and code combinations.',
    inputSchema: object({ jeHeaderId: id('JE_HEADER_ID') }, ['jeHeaderId']),
    scopes: GL_READ,
    kind: 'read',
    run({ jeHeaderId }: { jeHeaderId: number }, { db }) {
      return {
        header: journal(db, jeHeaderId),
        lines: db
          .prepare(
            `SELECT l.JE_LINE_NUM, l.CODE_COMBINATION_ID, c.CONCATENATED_SEGMENTS, l.ENTERED_DR, l.ENTERED_CR, l.DESCRIPTION FROM GL_JE_LINES l JOIN GL_CODE_COMBINATIONS c ON c.CODE_COMBINATION_ID = l.CODE_COMBINATION_ID WHERE l.JE_HEADER_ID = ? ORDER BY l.JE_LINE_NUM`,
          )
          .all(jeHeaderId),
      };
    },
  },
];
