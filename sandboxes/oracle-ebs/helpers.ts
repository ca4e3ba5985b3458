import type { Db } from '../common/db.js';
import { fail } from '../common/errors.js';
import { PERIOD_STATUS, periodOf } from './schema.js';

export type Row = Record<string, unknown>;

/** Next id in a table: one past the highest in use (deterministic, no sequences). */
export function nextId(db: Db, table: string, column: string): number {
  return ((db.prepare(`SELECT MAX(${column}) AS id FROM ${table}`).get() as { id: number | null }).id ?? 0) + 1;
}

export function period(db: Db, periodName: string): Row {
  const p = db.prepare(`SELECT * FROM GL_PERIOD_STATUSES WHERE PERIOD_NAME = ?`).get(periodName) as Row | undefined;
  if (!p) fail('NOT_FOUND', `GL period ${periodName} does not exist`, { periodName });
  return p;
}

/** The period must allow the operation: statuses in `allowed` (O = open, F = future-entry). */
export function requirePeriod(db: Db, periodName: string, allowed: string[], what: string): Row {
  const p = period(db, periodName);
  const status = p.CLOSING_STATUS as string;
  if (!allowed.includes(status)) {
    fail(
      'PERIOD_CLOSED',
      `${what}: GL period ${periodName} is ${PERIOD_STATUS[status]} (needs ${allowed.map((s) => PERIOD_STATUS[s]).join(' or ')})`,
      { periodName, status: PERIOD_STATUS[status] },
    );
  }
  return p;
}

export function requirePeriodForDate(db: Db, isoDate: string, allowed: string[], what: string): Row {
  const name = periodOf(isoDate);
  const exists = db.prepare(`SELECT 1 FROM GL_PERIOD_STATUSES WHERE PERIOD_NAME = ?`).get(name);
  if (!exists) fail('PERIOD_CLOSED', `${what}: no GL period covers ${isoDate}`, { date: isoDate });
  return requirePeriod(db, name, allowed, what);
}

export function customer(db: Db, custAccountId: number): Row {
  const c = db
    .prepare(
      `SELECT a.*, p.PARTY_NAME, p.PARTY_NUMBER, p.CITY, p.COUNTRY, p.STATUS AS PARTY_STATUS FROM HZ_CUST_ACCOUNTS a JOIN HZ_PARTIES p ON p.PARTY_ID = a.PARTY_ID WHERE a.CUST_ACCOUNT_ID = ?`,
    )
    .get(custAccountId) as Row | undefined;
  if (!c) fail('NOT_FOUND', `customer account ${custAccountId} does not exist`, { custAccountId });
  return c;
}

export function openBalance(db: Db, custAccountId: number): number {
  return (
    db
      .prepare(
        `SELECT COALESCE(SUM(AMOUNT_DUE_REMAINING), 0) AS s FROM AR_PAYMENT_SCHEDULES_ALL WHERE CUSTOMER_ID = ? AND STATUS = 'OP'`,
      )
      .get(custAccountId) as { s: number }
  ).s;
}

export function invoice(db: Db, ref: { customerTrxId?: number; trxNumber?: string }): Row {
  const row = (
    ref.customerTrxId !== undefined
      ? db.prepare(`SELECT * FROM RA_CUSTOMER_TRX_ALL WHERE CUSTOMER_TRX_ID = ?`).get(ref.customerTrxId)
      : db.prepare(`SELECT * FROM RA_CUSTOMER_TRX_ALL WHERE TRX_NUMBER = ?`).get(ref.trxNumber)
  ) as Row | undefined;
  if (!row) fail('NOT_FOUND', `invoice ${ref.customerTrxId ?? ref.trxNumber} does not exist`, { ...ref });
  return row;
}

export function journal(db: Db, jeHeaderId: number): Row {
  const row = db.prepare(`SELECT * FROM GL_JE_HEADERS WHERE JE_HEADER_ID = ?`).get(jeHeaderId) as Row | undefined;
  if (!row) fail('NOT_FOUND', `journal ${jeHeaderId} does not exist`, { jeHeaderId });
  return row;
}
