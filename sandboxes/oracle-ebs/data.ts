import type { DataModel, Db } from '../common/db.js';
import { CITIES, companyName, COUNTRY_CURRENCY } from '../common/names.js';
import { addDays, cents, round2, type Rng } from '../common/rng.js';
import { DDL, JE_CATEGORIES, MONTHS } from './schema.js';

export const VOLUME = { customers: 420, invoices: 4200, journals: 650 } as const;
/** The sandbox's "today": earlier periods are closed but the previous one, its own is open, the next is future-entry. */
export const EBS_TODAY = '2026-06-15';

const ACCOUNTS: ReadonlyArray<readonly [string, string, string]> = [
  ['1110', 'A', 'Cash'],
  ['1210', 'A', 'Accounts Receivable'],
  ['1410', 'A', 'Inventory'],
  ['1510', 'A', 'Fixed Assets'],
  ['2110', 'L', 'Accounts Payable'],
  ['2410', 'L', 'Accrued Liabilities'],
  ['3100', 'O', 'Retained Earnings'],
  ['4100', 'R', 'Product Revenue'],
  ['4200', 'R', 'Services Revenue'],
  ['5100', 'E', 'Cost of Goods Sold'],
  ['6100', 'E', 'Salaries'],
  ['6200', 'E', 'Rent'],
  ['6300', 'E', 'Travel'],
  ['6400', 'E', 'Software'],
  ['6500', 'E', 'Depreciation'],
];
const ITEMS = [
  'Annual subscription',
  'Implementation services',
  'Support renewal',
  'Hardware units',
  'Training days',
  'Consulting hours',
  'Spare parts',
  'Freight',
  'License true-up',
  'Maintenance',
];

function generate(db: Db, rng: Rng): void {
  const ins = (table: string, row: Record<string, unknown>) => {
    const cols = Object.keys(row);
    db.prepare(`INSERT INTO ${table} (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`).run(
      ...cols.map((c) => row[c]),
    );
  };

  // GL periods JAN-25 .. DEC-26 relative to today.
  const todayPeriodIndex = (Number(EBS_TODAY.slice(0, 4)) - 2025) * 12 + Number(EBS_TODAY.slice(5, 7)) - 1;
  for (let i = 0; i < 24; i++) {
    const year = 2025 + Math.floor(i / 12);
    const month = (i % 12) + 1;
    const start = `${year}-${String(month).padStart(2, '0')}-01`;
    const end = addDays(month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`, -1);
    // The month before today is still open (month-end close in progress), as in a real close calendar.
    const status =
      i < todayPeriodIndex - 1 ? 'C' : i <= todayPeriodIndex ? 'O' : i === todayPeriodIndex + 1 ? 'F' : 'N';
    ins('GL_PERIOD_STATUSES', {
      PERIOD_NAME: `${MONTHS[month - 1]}-${String(year).slice(2)}`,
      PERIOD_YEAR: year,
      PERIOD_NUM: month,
      START_DATE: start,
      END_DATE: end,
      CLOSING_STATUS: status,
    });
  }

  // Chart of accounts: company.cost-center.account.product
  let ccid = 1000;
  const ccids: Array<{ id: number; account: string; company: string }> = [];
  for (const company of ['01', '02']) {
    for (const [account, type, desc] of ACCOUNTS) {
      for (const cc of type === 'E' ? ['100', '200', '300'] : ['000']) {
        const id = ccid++;
        const product = type === 'R' ? '100' : '000';
        const enabled = !(company === '02' && account === '6300' && cc === '300');
        ins('GL_CODE_COMBINATIONS', {
          CODE_COMBINATION_ID: id,
          SEGMENT1: company,
          SEGMENT2: cc,
          SEGMENT3: account,
          SEGMENT4: product,
          CONCATENATED_SEGMENTS: `${company}.${cc}.${account}.${product}`,
          ACCOUNT_TYPE: type,
          DESCRIPTION: `${desc}${cc !== '000' ? ` - CC ${cc}` : ''}`,
          ENABLED_FLAG: enabled ? 'Y' : 'N',
        });
        if (enabled) ccids.push({ id, account, company });
      }
    }
  }

  // Customers
  const taken = new Set<string>();
  const customers: Array<{ id: number; currency: string; term: number }> = [];
  for (let c = 0; c < VOLUME.customers; c++) {
    const partyId = 10_000 + c;
    const [city, country] = rng.pick(CITIES);
    const name = companyName(rng, taken);
    ins('HZ_PARTIES', {
      PARTY_ID: partyId,
      PARTY_NUMBER: String(50_000 + c),
      PARTY_NAME: name,
      PARTY_TYPE: 'ORGANIZATION',
      CITY: city,
      COUNTRY: country,
      STATUS: rng.chance(0.97) ? 'A' : 'I',
    });
    const id = 20_000 + c;
    const currency = COUNTRY_CURRENCY[country]!;
    const term = rng.pick([30, 30, 45, 60]);
    ins('HZ_CUST_ACCOUNTS', {
      CUST_ACCOUNT_ID: id,
      PARTY_ID: partyId,
      ACCOUNT_NUMBER: `C${String(1000 + c)}`,
      ACCOUNT_NAME: name,
      CUSTOMER_CLASS_CODE: rng.pick(['COMMERCIAL', 'PUBLIC SECTOR', 'PARTNER']),
      CURRENCY_CODE: currency,
      CREDIT_LIMIT: currency === 'JPY' ? rng.int(5, 300) * 1_000_000 : rng.int(5, 200) * 10_000,
      PAYMENT_TERM_DAYS: term,
      STATUS: 'A',
      CREATION_DATE: rng.date('2019-01-01', '2024-12-31'),
    });
    customers.push({ id, currency, term });
  }

  // Invoices, lines, payment schedules, receipts and applications
  let lineId = 500_000;
  let receiptId = 700_000;
  let appId = 800_000;
  for (let t = 0; t < VOLUME.invoices; t++) {
    const cust = rng.pick(customers);
    const trxId = 100_000 + t;
    const trxNumber = String(300_000 + t);
    const trxDate = rng.date('2025-01-02', addDays(EBS_TODAY, -1));
    let total = 0;
    const lines: Array<Record<string, unknown>> = [];
    const nLines = rng.int(1, 4);
    for (let l = 1; l <= nLines; l++) {
      const qty = rng.int(1, 50);
      const price = cust.currency === 'JPY' ? Math.round(rng.money(1_000, 500_000)) : rng.money(20, 8_000);
      const amount = round2(qty * price);
      total += cents(amount);
      lines.push({
        CUSTOMER_TRX_LINE_ID: lineId++,
        CUSTOMER_TRX_ID: trxId,
        LINE_NUMBER: l,
        LINE_TYPE: 'LINE',
        DESCRIPTION: rng.pick(ITEMS),
        QUANTITY_INVOICED: qty,
        UNIT_SELLING_PRICE: price,
        EXTENDED_AMOUNT: amount,
      });
    }
    const amount = total / 100;
    const due = addDays(trxDate, cust.term);
    const age = Math.round((Date.parse(EBS_TODAY) - Date.parse(trxDate)) / 86_400_000);
    const paidShare = rng.chance(Math.min(0.95, age / 120)) ? 1 : rng.chance(0.15) ? rng.int(20, 80) / 100 : 0;
    const paid = Math.round(total * paidShare) / 100;
    const remaining = round2(amount - paid);
    const closed = remaining === 0;
    ins('RA_CUSTOMER_TRX_ALL', {
      CUSTOMER_TRX_ID: trxId,
      TRX_NUMBER: trxNumber,
      CUST_TRX_TYPE: 'INV',
      BILL_TO_CUSTOMER_ID: cust.id,
      TRX_DATE: trxDate,
      GL_DATE: trxDate,
      INVOICE_CURRENCY_CODE: cust.currency,
      STATUS_TRX: closed ? 'CL' : 'OP',
      PURCHASE_ORDER: rng.chance(0.7) ? `PO-${rng.int(10_000, 99_999)}-${t}` : null,
      COMMENTS: null,
      CREATION_DATE: trxDate,
    });
    for (const line of lines) ins('RA_CUSTOMER_TRX_LINES_ALL', line);
    const psId = 600_000 + t;
    const paidOn = addDays(trxDate, rng.int(5, cust.term + 40));
    const payDate = paid > 0 ? (paidOn < EBS_TODAY ? paidOn : addDays(EBS_TODAY, -1)) : null;
    ins('AR_PAYMENT_SCHEDULES_ALL', {
      PAYMENT_SCHEDULE_ID: psId,
      CUSTOMER_TRX_ID: trxId,
      CUSTOMER_ID: cust.id,
      TRX_NUMBER: trxNumber,
      CLASS: 'INV',
      DUE_DATE: due,
      AMOUNT_DUE_ORIGINAL: amount,
      AMOUNT_DUE_REMAINING: remaining,
      INVOICE_CURRENCY_CODE: cust.currency,
      STATUS: closed ? 'CL' : 'OP',
      GL_DATE_CLOSED: closed ? payDate : null,
    });
    if (paid > 0) {
      const rid = receiptId++;
      ins('AR_CASH_RECEIPTS_ALL', {
        CASH_RECEIPT_ID: rid,
        RECEIPT_NUMBER: `RCPT-${rid}`,
        PAY_FROM_CUSTOMER: cust.id,
        AMOUNT: paid,
        CURRENCY_CODE: cust.currency,
        RECEIPT_DATE: payDate,
        STATUS: 'APP',
      });
      ins('AR_RECEIVABLE_APPLICATIONS_ALL', {
        RECEIVABLE_APPLICATION_ID: appId++,
        CASH_RECEIPT_ID: rid,
        APPLIED_CUSTOMER_TRX_ID: trxId,
        APPLIED_PAYMENT_SCHEDULE_ID: psId,
        AMOUNT_APPLIED: paid,
        APPLY_DATE: payDate,
        STATUS: 'APP',
      });
    }
  }

  // Journals: balanced, posted in closed periods, a mix in the open one.
  const periods = db
    .prepare(
      `SELECT PERIOD_NAME, START_DATE, END_DATE, CLOSING_STATUS FROM GL_PERIOD_STATUSES WHERE CLOSING_STATUS IN ('C','O') ORDER BY START_DATE`,
    )
    .all() as Array<{ PERIOD_NAME: string; START_DATE: string; END_DATE: string; CLOSING_STATUS: string }>;
  let jeLine = 900_000;
  for (let j = 0; j < VOLUME.journals; j++) {
    const period = rng.pick(periods);
    const id = 40_000 + j;
    const category = rng.pick(JE_CATEGORIES);
    const nPairs = rng.int(1, 3);
    let total = 0;
    const lines: Array<Record<string, unknown>> = [];
    for (let p = 0; p < nPairs; p++) {
      const amt = rng.money(100, 250_000);
      total += cents(amt);
      const dr = rng.pick(ccids);
      const cr = rng.pick(ccids.filter((c) => c.company === dr.company && c.id !== dr.id));
      lines.push({
        CODE_COMBINATION_ID: dr.id,
        ENTERED_DR: amt,
        ENTERED_CR: null,
        DESCRIPTION: `${category} ${period.PERIOD_NAME}`,
      });
      lines.push({
        CODE_COMBINATION_ID: cr.id,
        ENTERED_DR: null,
        ENTERED_CR: amt,
        DESCRIPTION: `${category} ${period.PERIOD_NAME}`,
      });
    }
    // Only the current period has unposted journals; the previous one is ready to close.
    const posted = period.PERIOD_NAME !== periods[periods.length - 1]!.PERIOD_NAME || rng.chance(0.5);
    const eff = rng.date(period.START_DATE, period.END_DATE > EBS_TODAY ? EBS_TODAY : period.END_DATE);
    ins('GL_JE_HEADERS', {
      JE_HEADER_ID: id,
      NAME: `${category} ${period.PERIOD_NAME} #${j}`,
      PERIOD_NAME: period.PERIOD_NAME,
      JE_CATEGORY: category,
      JE_SOURCE: 'Manual',
      CURRENCY_CODE: 'USD',
      STATUS: posted ? 'P' : 'U',
      DESCRIPTION: `${category} entry`,
      RUNNING_TOTAL_DR: total / 100,
      RUNNING_TOTAL_CR: total / 100,
      DEFAULT_EFFECTIVE_DATE: eff,
      POSTED_DATE: posted ? eff : null,
      REVERSED_JE_HEADER_ID: null,
      ACCRUAL_REV_JE_HEADER_ID: null,
      CREATION_DATE: eff,
    });
    lines.forEach((l, i) => ins('GL_JE_LINES', { JE_LINE_ID: jeLine++, JE_HEADER_ID: id, JE_LINE_NUM: i + 1, ...l }));
  }
}

export const oracleEbsModel: DataModel = { name: 'oracle-ebs', dataVersion: '2', ddl: DDL, generate };
