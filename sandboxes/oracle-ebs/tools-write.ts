import { fail } from '../common/errors.js';
import { addDays, cents, round2 } from '../common/rng.js';
import { date, enumOf, int, money, object, str } from '../common/schema.js';
import type { SandboxTool } from '../common/server.js';
import {
  customer,
  invoice,
  journal,
  nextId,
  openBalance,
  period,
  requirePeriod,
  requirePeriodForDate,
  type Row,
} from './helpers.js';
import { JE_CATEGORIES, LEDGER_CURRENCY, PERIOD_STATUS, POLICY } from './schema.js';

const id = (what: string) => int(what, { minimum: 1 });
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD'];
const periodName = (what: string) => str(what, { pattern: '^[A-Z]{3}-\\d{2}$' });

interface JournalLine {
  codeCombinationId: number;
  debit?: number;
  credit?: number;
  description?: string;
}

function insertJournal(
  ctx: Parameters<SandboxTool['run']>[1],
  h: {
    name: string;
    periodName: string;
    category: string;
    description?: string;
    effectiveDate: string;
    reverses?: number;
  },
  lines: JournalLine[],
): Row {
  const jeId = nextId(ctx.db, 'GL_JE_HEADERS', 'JE_HEADER_ID');
  const dr = lines.reduce((s, l) => s + cents(l.debit ?? 0), 0);
  const cr = lines.reduce((s, l) => s + cents(l.credit ?? 0), 0);
  ctx.w.insert('GL_JE_HEADERS', {
    JE_HEADER_ID: jeId,
    NAME: h.name,
    PERIOD_NAME: h.periodName,
    JE_CATEGORY: h.category,
    JE_SOURCE: h.reverses ? 'Reversal' : 'Manual',
    CURRENCY_CODE: LEDGER_CURRENCY,
    STATUS: 'U',
    DESCRIPTION: h.description ?? null,
    RUNNING_TOTAL_DR: dr / 100,
    RUNNING_TOTAL_CR: cr / 100,
    DEFAULT_EFFECTIVE_DATE: h.effectiveDate,
    POSTED_DATE: null,
    REVERSED_JE_HEADER_ID: h.reverses ?? null,
    ACCRUAL_REV_JE_HEADER_ID: null,
    CREATION_DATE: ctx.today,
  });
  let lineId = nextId(ctx.db, 'GL_JE_LINES', 'JE_LINE_ID');
  lines.forEach((l, i) =>
    ctx.w.insert('GL_JE_LINES', {
      JE_LINE_ID: lineId++,
      JE_HEADER_ID: jeId,
      JE_LINE_NUM: i + 1,
      CODE_COMBINATION_ID: l.codeCombinationId,
      ENTERED_DR: l.debit ?? null,
      ENTERED_CR: l.credit ?? null,
      DESCRIPTION: l.description ?? null,
    }),
  );
  return journal(ctx.db, jeId);
}

export const writeTools: SandboxTool[] = [
  {
    name: 'create_invoice',
    title: 'Create an AR invoice',
    description:
      "Create a complete AR invoice for a customer: header, lines and payment schedule (due after the customer's payment terms). The invoice date must fall in an open GL period, the currency must be the customer's, the total at most 1,000,000 and within the customer's remaining credit; a purchase order number can be used once per customer.",
    inputSchema: object(
      {
        custAccountId: id('Bill-to CUST_ACCOUNT_ID'),
        trxDate: date('Invoice date (YYYY-MM-DD)'),
        currencyCode: enumOf(CURRENCIES, "Invoice currency (must be the customer's)"),
        lines: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          description: 'Invoice lines',
          items: object(
            {
              description: str('Line description', { minLength: 1, maxLength: 240 }),
              quantity: int('Quantity', { minimum: 1, maximum: 1_000_000 }),
              unitPrice: money('Unit price', 1e9),
            },
            ['description', 'quantity', 'unitPrice'],
          ),
        },
        purchaseOrder: str("Customer's purchase order number", { minLength: 1, maxLength: 50 }),
        comments: str('Comments', { maxLength: 1000 }),
      },
      ['custAccountId', 'trxDate', 'currencyCode', 'lines'],
    ),
    scopes: ['ebs.ar.write'],
    kind: 'write',
    run(
      a: {
        custAccountId: number;
        trxDate: string;
        currencyCode: string;
        lines: Array<{ description: string; quantity: number; unitPrice: number }>;
        purchaseOrder?: string;
        comments?: string;
      },
      ctx,
    ) {
      const { db, w } = ctx;
      const c = customer(db, a.custAccountId);
      if (c.STATUS !== 'A' || c.PARTY_STATUS !== 'A')
        fail('INVALID_STATUS_TRANSITION', `customer ${a.custAccountId} is inactive`, {
          custAccountId: a.custAccountId,
        });
      if (a.currencyCode !== c.CURRENCY_CODE)
        fail(
          'CURRENCY_MISMATCH',
          `customer ${String(c.ACCOUNT_NUMBER)} is invoiced in ${String(c.CURRENCY_CODE)}, not ${a.currencyCode}`,
          { customerCurrency: c.CURRENCY_CODE, currencyCode: a.currencyCode },
        );
      requirePeriodForDate(db, a.trxDate, ['O'], 'create_invoice');
      const total = a.lines.reduce((s, l) => s + cents(l.quantity * l.unitPrice), 0) / 100;
      if (total > POLICY.maxInvoiceAmount)
        fail(
          'POLICY_LIMIT_EXCEEDED',
          `invoice total ${total} is above the ${POLICY.maxInvoiceAmount} limit per invoice`,
          { total, limit: POLICY.maxInvoiceAmount },
        );
      const exposure = round2(openBalance(db, a.custAccountId) + total);
      if (c.CREDIT_LIMIT !== null && exposure > (c.CREDIT_LIMIT as number))
        fail(
          'POLICY_LIMIT_EXCEEDED',
          `open balance plus this invoice (${exposure}) exceeds the credit limit ${String(c.CREDIT_LIMIT)}`,
          { exposure, creditLimit: c.CREDIT_LIMIT },
        );
      if (a.purchaseOrder) {
        const dup = db
          .prepare(
            `SELECT TRX_NUMBER FROM RA_CUSTOMER_TRX_ALL WHERE BILL_TO_CUSTOMER_ID = ? AND PURCHASE_ORDER = ? AND STATUS_TRX != 'VD'`,
          )
          .get(a.custAccountId, a.purchaseOrder) as { TRX_NUMBER: string } | undefined;
        if (dup)
          fail('DUPLICATE_RECORD', `purchase order ${a.purchaseOrder} is already invoiced as ${dup.TRX_NUMBER}`, {
            existingTrxNumber: dup.TRX_NUMBER,
          });
      }
      const trxId = nextId(db, 'RA_CUSTOMER_TRX_ALL', 'CUSTOMER_TRX_ID');
      const trxNumber = String(
        Number(
          (db.prepare(`SELECT MAX(CAST(TRX_NUMBER AS INTEGER)) AS n FROM RA_CUSTOMER_TRX_ALL`).get() as { n: number })
            .n,
        ) + 1,
      );
      w.insert('RA_CUSTOMER_TRX_ALL', {
        CUSTOMER_TRX_ID: trxId,
        TRX_NUMBER: trxNumber,
        CUST_TRX_TYPE: 'INV',
        BILL_TO_CUSTOMER_ID: a.custAccountId,
        TRX_DATE: a.trxDate,
        GL_DATE: a.trxDate,
        INVOICE_CURRENCY_CODE: a.currencyCode,
        STATUS_TRX: 'OP',
        PURCHASE_ORDER: a.purchaseOrder ?? null,
        COMMENTS: a.comments ?? null,
        CREATION_DATE: ctx.today,
      });
      let lineId = nextId(db, 'RA_CUSTOMER_TRX_LINES_ALL', 'CUSTOMER_TRX_LINE_ID');
      a.lines.forEach((l, i) =>
        w.insert('RA_CUSTOMER_TRX_LINES_ALL', {
          CUSTOMER_TRX_LINE_ID: lineId++,
          CUSTOMER_TRX_ID: trxId,
          LINE_NUMBER: i + 1,
          LINE_TYPE: 'LINE',
          DESCRIPTION: l.description,
          QUANTITY_INVOICED: l.quantity,
          UNIT_SELLING_PRICE: l.unitPrice,
          EXTENDED_AMOUNT: round2(l.quantity * l.unitPrice),
        }),
      );
      w.insert('AR_PAYMENT_SCHEDULES_ALL', {
        PAYMENT_SCHEDULE_ID: nextId(db, 'AR_PAYMENT_SCHEDULES_ALL', 'PAYMENT_SCHEDULE_ID'),
        CUSTOMER_TRX_ID: trxId,
        CUSTOMER_ID: a.custAccountId,
        TRX_NUMBER: trxNumber,
        CLASS: 'INV',
        DUE_DATE: addDays(a.trxDate, c.PAYMENT_TERM_DAYS as number),
        AMOUNT_DUE_ORIGINAL: total,
        AMOUNT_DUE_REMAINING: total,
        INVOICE_CURRENCY_CODE: a.currencyCode,
        STATUS: 'OP',
        GL_DATE_CLOSED: null,
      });
      return {
        customerTrxId: trxId,
        trxNumber,
        total,
        currencyCode: a.currencyCode,
        dueDate: addDays(a.trxDate, c.PAYMENT_TERM_DAYS as number),
      };
    },
  },
  {
    name: 'apply_receipt',
    title: 'Apply a cash receipt to an invoice',
    description:
      "Record a customer's cash receipt and apply it to an open invoice. The currency must be the invoice's, the amount at most the remaining balance, the receipt number new for that customer, and the receipt date in an open GL period.",
    inputSchema: object(
      {
        customerTrxId: id('CUSTOMER_TRX_ID of the invoice'),
        receiptNumber: str('Receipt number (unique per customer)', { minLength: 1, maxLength: 30 }),
        amount: { ...money('Amount received'), exclusiveMinimum: 0 },
        currencyCode: enumOf(CURRENCIES, 'Receipt currency'),
        receiptDate: date('Receipt date (YYYY-MM-DD)'),
      },
      ['customerTrxId', 'receiptNumber', 'amount', 'currencyCode', 'receiptDate'],
    ),
    scopes: ['ebs.ar.write'],
    kind: 'write',
    run(
      a: { customerTrxId: number; receiptNumber: string; amount: number; currencyCode: string; receiptDate: string },
      ctx,
    ) {
      const { db, w } = ctx;
      const inv = invoice(db, { customerTrxId: a.customerTrxId });
      if (inv.STATUS_TRX !== 'OP')
        fail(
          'INVALID_STATUS_TRANSITION',
          `invoice ${String(inv.TRX_NUMBER)} is ${inv.STATUS_TRX === 'CL' ? 'closed (fully paid)' : 'void'}`,
          { status: inv.STATUS_TRX },
        );
      if (a.currencyCode !== inv.INVOICE_CURRENCY_CODE)
        fail(
          'CURRENCY_MISMATCH',
          `invoice ${String(inv.TRX_NUMBER)} is in ${String(inv.INVOICE_CURRENCY_CODE)}, the receipt in ${a.currencyCode}`,
          { invoiceCurrency: inv.INVOICE_CURRENCY_CODE, currencyCode: a.currencyCode },
        );
      requirePeriodForDate(db, a.receiptDate, ['O'], 'apply_receipt');
      const ps = db
        .prepare(`SELECT * FROM AR_PAYMENT_SCHEDULES_ALL WHERE CUSTOMER_TRX_ID = ?`)
        .get(a.customerTrxId) as Row;
      const remaining = ps.AMOUNT_DUE_REMAINING as number;
      if (cents(a.amount) > cents(remaining))
        fail('AMOUNT_EXCEEDS_BALANCE', `receipt ${a.amount} exceeds the remaining balance ${remaining}`, {
          amount: a.amount,
          remaining,
        });
      const dup = db
        .prepare(`SELECT CASH_RECEIPT_ID FROM AR_CASH_RECEIPTS_ALL WHERE PAY_FROM_CUSTOMER = ? AND RECEIPT_NUMBER = ?`)
        .get(inv.BILL_TO_CUSTOMER_ID, a.receiptNumber) as { CASH_RECEIPT_ID: number } | undefined;
      if (dup)
        fail('DUPLICATE_RECORD', `receipt ${a.receiptNumber} already exists for this customer`, {
          existingCashReceiptId: dup.CASH_RECEIPT_ID,
        });
      const receiptId = nextId(db, 'AR_CASH_RECEIPTS_ALL', 'CASH_RECEIPT_ID');
      w.insert('AR_CASH_RECEIPTS_ALL', {
        CASH_RECEIPT_ID: receiptId,
        RECEIPT_NUMBER: a.receiptNumber,
        PAY_FROM_CUSTOMER: inv.BILL_TO_CUSTOMER_ID,
        AMOUNT: a.amount,
        CURRENCY_CODE: a.currencyCode,
        RECEIPT_DATE: a.receiptDate,
        STATUS: 'APP',
      });
      w.insert('AR_RECEIVABLE_APPLICATIONS_ALL', {
        RECEIVABLE_APPLICATION_ID: nextId(db, 'AR_RECEIVABLE_APPLICATIONS_ALL', 'RECEIVABLE_APPLICATION_ID'),
        CASH_RECEIPT_ID: receiptId,
        APPLIED_CUSTOMER_TRX_ID: a.customerTrxId,
        APPLIED_PAYMENT_SCHEDULE_ID: ps.PAYMENT_SCHEDULE_ID,
        AMOUNT_APPLIED: a.amount,
        APPLY_DATE: a.receiptDate,
        STATUS: 'APP',
      });
      const left = round2(remaining - a.amount);
      w.update('AR_PAYMENT_SCHEDULES_ALL', 'PAYMENT_SCHEDULE_ID', ps.PAYMENT_SCHEDULE_ID, {
        AMOUNT_DUE_REMAINING: left,
        STATUS: left === 0 ? 'CL' : 'OP',
        GL_DATE_CLOSED: left === 0 ? a.receiptDate : null,
      });
      if (left === 0) w.update('RA_CUSTOMER_TRX_ALL', 'CUSTOMER_TRX_ID', a.customerTrxId, { STATUS_TRX: 'CL' });
      return { cashReceiptId: receiptId, applied: a.amount, remaining: left, invoiceStatus: left === 0 ? 'CL' : 'OP' };
    },
  },
  {
    name: 'create_journal',
    title: 'Create a GL journal entry',
    description: `Create an unposted manual journal in a period that is Open or Future - Entry. Lines carry a debit or a credit (not both) on an enabled code combination; total debits must equal total credits. Only ${LEDGER_CURRENCY} (the ledger currency); names are unique per period.`,
    inputSchema: object(
      {
        periodName: periodName('GL period, e.g. JUN-26'),
        name: str('Journal name', { minLength: 1, maxLength: 100 }),
        category: enumOf(JE_CATEGORIES, 'Journal category'),
        description: str('Description', { maxLength: 240 }),
        currencyCode: enumOf(CURRENCIES, `Currency (only ${LEDGER_CURRENCY} is accepted)`),
        lines: {
          type: 'array',
          minItems: 2,
          maxItems: 100,
          description: 'Journal lines',
          items: object(
            {
              codeCombinationId: id('CODE_COMBINATION_ID'),
              debit: { ...money('Debit amount'), exclusiveMinimum: 0 },
              credit: { ...money('Credit amount'), exclusiveMinimum: 0 },
              description: str('Line description', { maxLength: 240 }),
            },
            ['codeCombinationId'],
          ),
        },
      },
      ['periodName', 'name', 'category', 'currencyCode', 'lines'],
    ),
    scopes: ['gl.journal.write'],
    kind: 'write',
    run(
      a: {
        periodName: string;
        name: string;
        category: string;
        description?: string;
        currencyCode: string;
        lines: JournalLine[];
      },
      ctx,
    ) {
      const { db } = ctx;
      const p = requirePeriod(db, a.periodName, ['O', 'F'], 'create_journal');
      if (a.currencyCode !== LEDGER_CURRENCY)
        fail(
          'CURRENCY_MISMATCH',
          `the ledger currency is ${LEDGER_CURRENCY}; ${a.currencyCode} journals need conversion, which this ledger does not allow`,
          { ledgerCurrency: LEDGER_CURRENCY, currencyCode: a.currencyCode },
        );
      a.lines.forEach((l, i) => {
        if (l.debit === undefined && l.credit === undefined)
          fail('REQUIRED_FIELD_MISSING', `line ${i + 1} needs a debit or a credit`, { line: i + 1 });
        if (l.debit !== undefined && l.credit !== undefined)
          fail('INVALID_ARGUMENTS', `line ${i + 1} has both a debit and a credit`, { line: i + 1 });
        const cc = db
          .prepare(`SELECT ENABLED_FLAG FROM GL_CODE_COMBINATIONS WHERE CODE_COMBINATION_ID = ?`)
          .get(l.codeCombinationId) as { ENABLED_FLAG: string } | undefined;
        if (!cc || cc.ENABLED_FLAG !== 'Y')
          fail('NOT_FOUND', `line ${i + 1}: no enabled code combination ${l.codeCombinationId}`, {
            line: i + 1,
            codeCombinationId: l.codeCombinationId,
          });
      });
      const dr = a.lines.reduce((s, l) => s + cents(l.debit ?? 0), 0);
      const cr = a.lines.reduce((s, l) => s + cents(l.credit ?? 0), 0);
      if (dr !== cr)
        fail('JOURNAL_UNBALANCED', `debits ${dr / 100} and credits ${cr / 100} differ by ${Math.abs(dr - cr) / 100}`, {
          debits: dr / 100,
          credits: cr / 100,
        });
      if (db.prepare(`SELECT 1 FROM GL_JE_HEADERS WHERE PERIOD_NAME = ? AND NAME = ?`).get(a.periodName, a.name))
        fail('DUPLICATE_RECORD', `a journal named ${JSON.stringify(a.name)} already exists in ${a.periodName}`, {
          periodName: a.periodName,
          name: a.name,
        });
      const effective =
        ctx.today >= (p.START_DATE as string) && ctx.today <= (p.END_DATE as string)
          ? ctx.today
          : (p.START_DATE as string);
      return insertJournal(
        ctx,
        {
          name: a.name,
          periodName: a.periodName,
          category: a.category,
          effectiveDate: effective,
          ...(a.description ? { description: a.description } : {}),
        },
        a.lines,
      );
    },
  },
  {
    name: 'post_journal',
    title: 'Post a GL journal',
    description:
      'Post an unposted journal to the ledger. Its period must be Open (Future - Entry periods accept journals but not posting).',
    inputSchema: object({ jeHeaderId: id('JE_HEADER_ID') }, ['jeHeaderId']),
    scopes: ['gl.post'],
    kind: 'write',
    run({ jeHeaderId }: { jeHeaderId: number }, ctx) {
      const je = journal(ctx.db, jeHeaderId);
      if (je.STATUS !== 'U')
        fail('INVALID_STATUS_TRANSITION', `journal ${jeHeaderId} is already posted`, { status: je.STATUS });
      requirePeriod(ctx.db, je.PERIOD_NAME as string, ['O'], 'post_journal');
      return ctx.w.update('GL_JE_HEADERS', 'JE_HEADER_ID', jeHeaderId, { STATUS: 'P', POSTED_DATE: ctx.today });
    },
  },
  {
    name: 'reverse_journal',
    title: 'Reverse a posted GL journal',
    description:
      'Create the reversal of a posted journal (debits and credits swapped) as an unposted journal in an Open or Future - Entry period. A journal can be reversed once; a reversal cannot itself be reversed.',
    inputSchema: object(
      {
        jeHeaderId: id('JE_HEADER_ID of the posted journal'),
        reversalPeriodName: periodName('Period of the reversal, e.g. JUL-26'),
      },
      ['jeHeaderId', 'reversalPeriodName'],
    ),
    scopes: ['gl.post'],
    kind: 'write',
    run({ jeHeaderId, reversalPeriodName }: { jeHeaderId: number; reversalPeriodName: string }, ctx) {
      const je = journal(ctx.db, jeHeaderId);
      if (je.STATUS !== 'P')
        fail('INVALID_STATUS_TRANSITION', `journal ${jeHeaderId} is not posted; only posted journals can be reversed`, {
          status: je.STATUS,
        });
      if (je.ACCRUAL_REV_JE_HEADER_ID !== null)
        fail(
          'INVALID_STATUS_TRANSITION',
          `journal ${jeHeaderId} was already reversed by ${String(je.ACCRUAL_REV_JE_HEADER_ID)}`,
          { reversal: je.ACCRUAL_REV_JE_HEADER_ID },
        );
      if (je.REVERSED_JE_HEADER_ID !== null)
        fail('INVALID_STATUS_TRANSITION', `journal ${jeHeaderId} is itself a reversal`, {
          reverses: je.REVERSED_JE_HEADER_ID,
        });
      const p = requirePeriod(ctx.db, reversalPeriodName, ['O', 'F'], 'reverse_journal');
      const lines = ctx.db
        .prepare(`SELECT * FROM GL_JE_LINES WHERE JE_HEADER_ID = ? ORDER BY JE_LINE_NUM`)
        .all(jeHeaderId) as Row[];
      const reversed = lines.map((l) => ({
        codeCombinationId: l.CODE_COMBINATION_ID as number,
        ...(l.ENTERED_CR !== null ? { debit: l.ENTERED_CR as number } : {}),
        ...(l.ENTERED_DR !== null ? { credit: l.ENTERED_DR as number } : {}),
        description: `Reversal of line ${String(l.JE_LINE_NUM)}`,
      }));
      const rev = insertJournal(
        ctx,
        {
          name: `Reversal of ${String(je.NAME)}`.slice(0, 100),
          periodName: reversalPeriodName,
          category: je.JE_CATEGORY as string,
          description: `Reverses journal ${jeHeaderId}`,
          effectiveDate: p.START_DATE as string,
          reverses: jeHeaderId,
        },
        reversed,
      );
      ctx.w.update('GL_JE_HEADERS', 'JE_HEADER_ID', jeHeaderId, { ACCRUAL_REV_JE_HEADER_ID: rev.JE_HEADER_ID });
      return rev;
    },
  },
  {
    name: 'open_period',
    title: 'Open a GL period (admin)',
    description:
      'Open a GL period that is Never Opened, Future - Entry or Closed. Permanently Closed periods cannot be reopened.',
    inputSchema: object({ periodName: periodName('Period, e.g. JUL-26') }, ['periodName']),
    scopes: ['ebs.admin'],
    kind: 'write',
    idempotent: true,
    run({ periodName: name }: { periodName: string }, ctx) {
      const p = period(ctx.db, name);
      if (p.CLOSING_STATUS === 'O')
        fail('INVALID_STATUS_TRANSITION', `period ${name} is already Open`, { status: 'Open' });
      if (p.CLOSING_STATUS === 'P')
        fail('INVALID_STATUS_TRANSITION', `period ${name} is Permanently Closed`, { status: PERIOD_STATUS.P });
      return ctx.w.update('GL_PERIOD_STATUSES', 'PERIOD_NAME', name, { CLOSING_STATUS: 'O' });
    },
  },
  {
    name: 'close_period',
    title: 'Close a GL period (admin)',
    description: 'Close an Open GL period. Refused while the period has unposted journals (DEPENDENT_RECORDS_EXIST).',
    inputSchema: object({ periodName: periodName('Period, e.g. JUN-26') }, ['periodName']),
    scopes: ['ebs.admin'],
    kind: 'write',
    idempotent: true,
    run({ periodName: name }: { periodName: string }, ctx) {
      const p = period(ctx.db, name);
      if (p.CLOSING_STATUS !== 'O')
        fail('INVALID_STATUS_TRANSITION', `period ${name} is ${PERIOD_STATUS[p.CLOSING_STATUS as string]}, not Open`, {
          status: PERIOD_STATUS[p.CLOSING_STATUS as string],
        });
      const unposted = (
        ctx.db.prepare(`SELECT COUNT(*) AS n FROM GL_JE_HEADERS WHERE PERIOD_NAME = ? AND STATUS = 'U'`).get(name) as {
          n: number;
        }
      ).n;
      if (unposted > 0)
        fail('DEPENDENT_RECORDS_EXIST', `period ${name} has ${unposted} unposted journals`, { unposted });
      return ctx.w.update('GL_PERIOD_STATUSES', 'PERIOD_NAME', name, { CLOSING_STATUS: 'C' });
    },
  },
  {
    name: 'update_credit_limit',
    title: "Update a customer's credit limit (admin)",
    description: `Set the credit limit of a customer account, at most ${POLICY.maxCreditLimit.toLocaleString('en-US')} in the account currency.`,
    inputSchema: object({ custAccountId: id('CUST_ACCOUNT_ID'), creditLimit: money('New credit limit') }, [
      'custAccountId',
      'creditLimit',
    ]),
    scopes: ['ebs.admin'],
    kind: 'write',
    idempotent: true,
    run({ custAccountId, creditLimit }: { custAccountId: number; creditLimit: number }, ctx) {
      customer(ctx.db, custAccountId);
      if (creditLimit > POLICY.maxCreditLimit)
        fail(
          'POLICY_LIMIT_EXCEEDED',
          `credit limit ${creditLimit} is above the ${POLICY.maxCreditLimit} policy maximum`,
          { creditLimit, limit: POLICY.maxCreditLimit },
        );
      return ctx.w.update('HZ_CUST_ACCOUNTS', 'CUST_ACCOUNT_ID', custAccountId, { CREDIT_LIMIT: creditLimit });
    },
  },
  {
    name: 'void_invoice',
    title: 'Void an invoice',
    description:
      'Void an open invoice that has no receipts applied: its balance goes to zero and it can no longer be paid. Irreversible.',
    inputSchema: object(
      { customerTrxId: id('CUSTOMER_TRX_ID'), reason: str('Why it is voided', { minLength: 3, maxLength: 240 }) },
      ['customerTrxId', 'reason'],
    ),
    scopes: ['ebs.ar.admin'],
    kind: 'destructive',
    run({ customerTrxId, reason }: { customerTrxId: number; reason: string }, ctx) {
      const inv = invoice(ctx.db, { customerTrxId });
      if (inv.STATUS_TRX !== 'OP')
        fail(
          'INVALID_STATUS_TRANSITION',
          `invoice ${String(inv.TRX_NUMBER)} is ${inv.STATUS_TRX === 'VD' ? 'already void' : 'closed'}`,
          { status: inv.STATUS_TRX },
        );
      const applied = (
        ctx.db
          .prepare(`SELECT COUNT(*) AS n FROM AR_RECEIVABLE_APPLICATIONS_ALL WHERE APPLIED_CUSTOMER_TRX_ID = ?`)
          .get(customerTrxId) as { n: number }
      ).n;
      if (applied > 0)
        fail('DEPENDENT_RECORDS_EXIST', `invoice ${String(inv.TRX_NUMBER)} has ${applied} receipt applications`, {
          applications: applied,
        });
      requirePeriodForDate(ctx.db, ctx.today, ['O'], 'void_invoice');
      const ps = ctx.db
        .prepare(`SELECT PAYMENT_SCHEDULE_ID FROM AR_PAYMENT_SCHEDULES_ALL WHERE CUSTOMER_TRX_ID = ?`)
        .get(customerTrxId) as { PAYMENT_SCHEDULE_ID: number };
      ctx.w.update('AR_PAYMENT_SCHEDULES_ALL', 'PAYMENT_SCHEDULE_ID', ps.PAYMENT_SCHEDULE_ID, {
        AMOUNT_DUE_REMAINING: 0,
        STATUS: 'CL',
        GL_DATE_CLOSED: ctx.today,
      });
      return ctx.w.update('RA_CUSTOMER_TRX_ALL', 'CUSTOMER_TRX_ID', customerTrxId, {
        STATUS_TRX: 'VD',
        COMMENTS: `Voided ${ctx.today}: ${reason}`,
      });
    },
  },
];
