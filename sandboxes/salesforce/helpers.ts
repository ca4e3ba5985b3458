import type { Db } from '../common/db.js';
import { fail } from '../common/errors.js';
import type { Writer } from '../common/changes.js';
import { fieldsOf, OBJECTS, POLICY, sfId, type ObjectName } from './objects.js';

export const ID_PATTERN = '^[a-zA-Z0-9]{15}([a-zA-Z0-9]{3})?$';

/** Rates to USD for the amount policy (a sandbox constant, not live FX). */
const TO_USD: Record<string, number> = { USD: 1, EUR: 1.1, GBP: 1.27, JPY: 0.0067, CAD: 0.73 };

/** A row as the API shows it: booleans as booleans. */
export function present(object: ObjectName, row: Record<string, unknown>): Record<string, unknown> {
  const fields = fieldsOf(object);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = fields[k]?.type === 'boolean' && v !== null ? Boolean(v) : v;
  return out;
}

export function getRecord(w: Writer, object: ObjectName, id: string): Record<string, unknown> {
  const row = w.get(object, 'Id', id);
  if (!row) fail('NOT_FOUND', `${object} ${id} does not exist`, { object, id });
  return row;
}

/** Next deterministic id for an object: one past the highest serial in use. */
export function nextId(db: Db, object: ObjectName): string {
  const row = db.prepare(`SELECT MAX("Id") AS id FROM "${object}"`).get() as { id: string | null };
  const serial = row.id ? parseInt(row.id.slice(5, 15), 36) + 1 : 1;
  return sfId(object, serial);
}

export function stamp(today: string): string {
  return `${today}T12:00:00.000Z`;
}

/** An active user (or queue, when allowed) to own a record. */
export function requireOwner(w: Writer, ownerId: string, allowQueue = false): Record<string, unknown> {
  const user = w.get('User', 'Id', ownerId);
  if (!user || !user.IsActive || (!allowQueue && user.UserType === 'Queue')) {
    fail('NOT_FOUND', `no active ${allowQueue ? 'user or queue' : 'user'} with id ${ownerId}`, { ownerId });
  }
  return user;
}

export function checkAmountPolicy(amount: number | undefined, currency: string): void {
  if (amount === undefined) return;
  const usd = amount * (TO_USD[currency] ?? 1);
  if (usd > POLICY.maxOpportunityAmount) {
    fail(
      'POLICY_LIMIT_EXCEEDED',
      `amount ${amount} ${currency} (~${Math.round(usd)} USD) is above the ${POLICY.maxOpportunityAmount} USD limit per opportunity`,
      { amount, currency, limitUsd: POLICY.maxOpportunityAmount },
    );
  }
}

export function checkDiscountPolicy(discount: number | undefined): void {
  if (discount !== undefined && discount > POLICY.maxDiscountPercent) {
    fail('POLICY_LIMIT_EXCEEDED', `discount ${discount}% is above the ${POLICY.maxDiscountPercent}% policy limit`, {
      discountPercent: discount,
      limit: POLICY.maxDiscountPercent,
    });
  }
}

/** Map camelCase tool arguments onto Salesforce field names, dropping what was not given. */
export function toFields(args: Record<string, unknown>, mapping: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [arg, field] of Object.entries(mapping)) if (args[arg] !== undefined) out[field] = args[arg];
  return out;
}

export const objectPrefixes = Object.fromEntries(Object.entries(OBJECTS).map(([k, v]) => [k, v.prefix]));
