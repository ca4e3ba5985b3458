import type { Goal } from '../../core/dataset/types.js';
import { entity, pick } from '../../core/dataset/pick.js';

const D = 'oracle-ebs';
const cust = (id: unknown) => entity(D, 'customer', id);
const period = (name: string) => entity(D, 'period', name);

/** Default goal templates for the Oracle EBS sandbox: one or more per tool, several phrasings each. */
export const oracleEbsGoals: Goal[] = [
  {
    id: 'ebs.find_customer',
    tool: 'find_customers',
    phrasings: [
      'Find the customer account for {name}.',
      'Look up {name} in receivables.',
      'Which customer accounts match "{name}"?',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng);
      return (
        c && { arguments: { name: c.PARTY_NAME }, slots: { name: c.PARTY_NAME }, entities: [cust(c.CUST_ACCOUNT_ID)] }
      );
    },
  },
  {
    id: 'ebs.get_customer',
    tool: 'get_customer',
    phrasings: [
      "What's the open balance and credit limit of customer {custId}?",
      'Show customer account {custId} ({name}).',
      'Details for {name}, cust account id {custId}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng);
      return (
        c && {
          arguments: { custAccountId: c.CUST_ACCOUNT_ID },
          slots: { custId: c.CUST_ACCOUNT_ID, name: c.PARTY_NAME },
          entities: [cust(c.CUST_ACCOUNT_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.open_invoices',
    tool: 'search_invoices',
    phrasings: [
      'List open invoices for customer {custId}.',
      'Which invoices does {name} (account {custId}) still owe?',
      'Show unpaid AR invoices of cust account {custId}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng);
      return (
        c && {
          arguments: { custAccountId: c.CUST_ACCOUNT_ID, status: 'OP' },
          slots: { custId: c.CUST_ACCOUNT_ID, name: c.PARTY_NAME },
          entities: [cust(c.CUST_ACCOUNT_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.get_invoice',
    tool: 'get_invoice',
    phrasings: [
      'Show me invoice {trxNumber}.',
      'What are the lines and payments on invoice number {trxNumber}?',
      'Open AR invoice {trxNumber}.',
    ],
    draw(p, rng) {
      const i = pick(p, 'invoice', rng);
      return (
        i && {
          arguments: { trxNumber: i.TRX_NUMBER },
          slots: { trxNumber: i.TRX_NUMBER },
          entities: [cust(i.BILL_TO_CUSTOMER_ID), entity(D, 'invoice', i.CUSTOMER_TRX_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.aging',
    tool: 'get_ar_aging',
    phrasings: [
      'AR aging for customer {custId} as of {asOf}.',
      'How overdue is {name} (account {custId}) at {asOf}? Give me the buckets.',
      'Aging buckets for cust {custId}, date {asOf}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng);
      const asOf = rng.pick(['2026-03-31', '2026-04-30', '2026-05-31', '2026-06-15']);
      return (
        c && {
          arguments: { custAccountId: c.CUST_ACCOUNT_ID, asOfDate: asOf },
          slots: { custId: c.CUST_ACCOUNT_ID, name: c.PARTY_NAME, asOf },
          entities: [cust(c.CUST_ACCOUNT_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.period_status',
    tool: 'get_period_status',
    phrasings: ['Is period {period} open?', 'What is the GL status of {period}?', 'Check whether {period} is closed.'],
    draw(p, rng) {
      const per = pick(p, 'period', rng);
      return (
        per && {
          arguments: { periodName: per.PERIOD_NAME },
          slots: { period: per.PERIOD_NAME },
          entities: [period(per.PERIOD_NAME)],
        }
      );
    },
  },
  {
    id: 'ebs.code_combinations',
    tool: 'list_code_combinations',
    phrasings: [
      'Which code combinations use natural account {account}?',
      'List GL accounts for segment3 = {account}.',
      'Show the flexfield combinations for account {account}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'code_combination', rng);
      return (
        c && {
          arguments: { account: c.SEGMENT3 },
          slots: { account: c.SEGMENT3 },
          entities: [entity(D, 'coa', c.SEGMENT3)],
        }
      );
    },
  },
  {
    id: 'ebs.get_journal',
    tool: 'get_journal',
    phrasings: ['Show journal {jeId}.', 'What lines are on GL journal header {jeId}?', 'Open journal entry {jeId}.'],
    draw(p, rng) {
      const j = pick(p, 'posted_journal', rng);
      return (
        j && {
          arguments: { jeHeaderId: j.JE_HEADER_ID },
          slots: { jeId: j.JE_HEADER_ID },
          entities: [entity(D, 'journal', j.JE_HEADER_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.search_journals',
    tool: 'search_journals',
    phrasings: [
      'Which journals in {period} are still unposted?',
      'List unposted GL journals for {period}.',
      'Show me the {period} journals waiting to be posted.',
    ],
    draw(_p, rng) {
      const per = rng.pick(['MAY-26', 'JUN-26']);
      return { arguments: { periodName: per, status: 'U' }, slots: { period: per }, entities: [period(per)] };
    },
  },
  {
    id: 'ebs.create_invoice',
    tool: 'create_invoice',
    phrasings: [
      'Invoice customer {custId} for {qty} x "{item}" at {price} {currency}, dated {date}.',
      'Bill {name} (account {custId}): {qty} {item} at {price} each, {currency}, invoice date {date}.',
      'Create an AR invoice for cust {custId} on {date}: {item}, quantity {qty}, unit price {price} {currency}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng, (r) => r.STATUS === 'A' && r.CURRENCY_CODE !== 'JPY');
      const item = rng.pick(['Consulting hours', 'Support renewal', 'Training days']);
      const qty = rng.int(1, 5);
      const price = rng.int(2, 40) * 25;
      const date = rng.pick(['2026-06-01', '2026-06-10', '2026-06-15']);
      return (
        c && {
          arguments: {
            custAccountId: c.CUST_ACCOUNT_ID,
            trxDate: date,
            currencyCode: c.CURRENCY_CODE,
            lines: [{ description: item, quantity: qty, unitPrice: price }],
          },
          slots: { custId: c.CUST_ACCOUNT_ID, name: c.PARTY_NAME, item, qty, price, currency: c.CURRENCY_CODE, date },
          entities: [cust(c.CUST_ACCOUNT_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.apply_receipt',
    tool: 'apply_receipt',
    phrasings: [
      'Apply receipt {receipt} of {amount} {currency} to invoice id {trxId}, received {date}.',
      'Customer paid {amount} {currency} on {date} (receipt {receipt}) against trx {trxId}.',
      'Record payment {receipt}: {amount} {currency} for invoice {trxId}, dated {date}.',
    ],
    draw(p, rng) {
      const i = pick(p, 'open_invoice', rng);
      if (!i) return undefined;
      const amount = Math.max(1, Math.floor(i.AMOUNT_DUE_REMAINING / 2));
      const receipt = `RC-${rng.int(10_000, 99_999)}`;
      const date = rng.pick(['2026-06-02', '2026-06-09', '2026-06-14']);
      return {
        arguments: {
          customerTrxId: i.CUSTOMER_TRX_ID,
          receiptNumber: receipt,
          amount,
          currencyCode: i.INVOICE_CURRENCY_CODE,
          receiptDate: date,
        },
        slots: { receipt, amount, currency: i.INVOICE_CURRENCY_CODE, trxId: i.CUSTOMER_TRX_ID, date },
        entities: [cust(i.BILL_TO_CUSTOMER_ID), entity(D, 'invoice', i.CUSTOMER_TRX_ID)],
      };
    },
  },
  {
    id: 'ebs.create_journal',
    tool: 'create_journal',
    phrasings: [
      'Book a {category} journal "{name}" in {period}: debit {dr} {amount}, credit {cr} {amount} USD.',
      'Create journal {name} ({category}, {period}) moving {amount} USD from {cr} to {dr}.',
      'GL entry in {period}: Dr {dr} / Cr {cr}, {amount} USD, category {category}, name "{name}".',
    ],
    draw(p, rng) {
      const ccs = (p.code_combination ?? []).filter((c) => c.SEGMENT1 === '01');
      if (ccs.length < 2) return undefined;
      const dr = rng.pick(ccs);
      const cr = rng.pick(ccs.filter((c) => c.CODE_COMBINATION_ID !== dr.CODE_COMBINATION_ID));
      const amount = rng.int(10, 5000) * 10;
      const category = rng.pick(['Accrual', 'Reclass', 'Adjustment']);
      const name = `${category} ${rng.int(1000, 9999)}`;
      const per = rng.pick(['JUN-26', 'JUL-26']);
      return {
        arguments: {
          periodName: per,
          name,
          category,
          currencyCode: 'USD',
          lines: [
            { codeCombinationId: dr.CODE_COMBINATION_ID, debit: amount },
            { codeCombinationId: cr.CODE_COMBINATION_ID, credit: amount },
          ],
        },
        slots: { category, name, period: per, dr: dr.CODE_COMBINATION_ID, cr: cr.CODE_COMBINATION_ID, amount },
        entities: [period(per)],
      };
    },
  },
  {
    id: 'ebs.post_journal',
    tool: 'post_journal',
    phrasings: [
      'Post journal {jeId}.',
      'Please post GL journal header {jeId} to the ledger.',
      'Journal {jeId} is approved; post it.',
    ],
    draw(p, rng) {
      const j = pick(p, 'unposted_journal', rng);
      return (
        j && {
          arguments: { jeHeaderId: j.JE_HEADER_ID },
          slots: { jeId: j.JE_HEADER_ID },
          entities: [entity(D, 'journal', j.JE_HEADER_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.reverse_journal',
    tool: 'reverse_journal',
    phrasings: [
      'Reverse journal {jeId} into {period}.',
      'Create the reversal of GL journal {jeId} in period {period}.',
      'Journal {jeId} was wrong — reverse it in {period}.',
    ],
    draw(p, rng) {
      const j = pick(
        p,
        'posted_journal',
        rng,
        (r) => r.REVERSED_JE_HEADER_ID === null && r.ACCRUAL_REV_JE_HEADER_ID === null,
      );
      const per = rng.pick(['JUN-26', 'JUL-26']);
      return (
        j && {
          arguments: { jeHeaderId: j.JE_HEADER_ID, reversalPeriodName: per },
          slots: { jeId: j.JE_HEADER_ID, period: per },
          entities: [entity(D, 'journal', j.JE_HEADER_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.open_period',
    tool: 'open_period',
    phrasings: [
      'Open GL period {period}.',
      'We need {period} open for entries — open it.',
      'Set period {period} to Open.',
    ],
    draw(_p, rng) {
      const per = rng.pick(['AUG-26', 'SEP-26', 'OCT-26']);
      return { arguments: { periodName: per }, slots: { period: per }, entities: [period(per)] };
    },
  },
  {
    id: 'ebs.close_period',
    tool: 'close_period',
    phrasings: [
      'Close period {period}.',
      'Month-end is done, close {period} in GL.',
      'Please close the {period} period.',
    ],
    draw: () => ({ arguments: { periodName: 'MAY-26' }, slots: { period: 'MAY-26' }, entities: [period('MAY-26')] }),
  },
  {
    id: 'ebs.credit_limit',
    tool: 'update_credit_limit',
    phrasings: [
      "Raise customer {custId}'s credit limit to {limit}.",
      'Set the credit limit of {name} (account {custId}) to {limit}.',
      'Credit limit for cust {custId} should be {limit}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'customer', rng);
      const limit = rng.int(5, 400) * 10_000;
      return (
        c && {
          arguments: { custAccountId: c.CUST_ACCOUNT_ID, creditLimit: limit },
          slots: { custId: c.CUST_ACCOUNT_ID, name: c.PARTY_NAME, limit },
          entities: [cust(c.CUST_ACCOUNT_ID)],
        }
      );
    },
  },
  {
    id: 'ebs.void_invoice',
    tool: 'void_invoice',
    phrasings: [
      'Void invoice id {trxId}: {reason}.',
      'Invoice {trxId} was issued by mistake ({reason}); void it.',
      'Cancel AR transaction {trxId} — {reason}.',
    ],
    draw(p, rng) {
      const i = pick(p, 'open_invoice', rng);
      const reason = rng.pick(['duplicate billing', 'wrong customer', 'order cancelled']);
      return (
        i && {
          arguments: { customerTrxId: i.CUSTOMER_TRX_ID, reason },
          slots: { trxId: i.CUSTOMER_TRX_ID, reason },
          entities: [cust(i.BILL_TO_CUSTOMER_ID), entity(D, 'invoice', i.CUSTOMER_TRX_ID)],
        }
      );
    },
  },
];
