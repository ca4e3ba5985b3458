/**
 * The generic cell rate algorithm (GCRA), the token bucket written as one number: the bucket's theoretical
 * arrival time (TAT). Every caller reserves its place at once and then waits for it, so callers on many
 * workers queue in the order they asked and the rate holds without a lock held across the wait.
 * Units are milliseconds: a cost of `cost` units at `rate` units/s is `cost * 1000 / rate` ms of the bucket.
 */
export interface Reservation {
  /** The bucket's new TAT (ms since the epoch, on the store's clock). */
  tat: number;
  /** How long this caller waits before it may go. */
  waitMs: number;
}

/** Reserve `costMs` of the bucket at `now`; `burstMs` is how far ahead of now the bucket may run before callers wait. */
export function reserve(storedTat: number | undefined, now: number, costMs: number, burstMs: number): Reservation {
  const tat = Math.max(storedTat ?? now, now) + costMs;
  return { tat, waitMs: Math.max(0, tat - burstMs - now) };
}

/** The bucket's shape for a rate: one unit's interval and the burst it allows, in ms. */
export function bucketShape(ratePerSecond: number, burst: number): { msPerUnit: number; burstMs: number } {
  const msPerUnit = 1000 / ratePerSecond;
  return { msPerUnit, burstMs: burst * msPerUnit };
}
