/**
 * Where the shared buckets live. Every worker that calls the same endpoint must reach the same store:
 * a SQLite file (workers on one host, or on one volume with working locks) or PostgreSQL (any number of hosts;
 * the server's clock decides, so worker clocks may drift).
 */
export interface LimitStore {
  /** GCRA reserve (see gcra.ts) on `key`, atomically; returns the wait in ms. */
  reserve(key: string, costMs: number, burstMs: number): Promise<number>;
  /** Move the bucket's TAT by `deltaMs` (negative gives back what an estimate over-charged). */
  adjust(key: string, deltaMs: number): Promise<void>;
  /** Nobody goes on `key` for `ms` from now (a 429's Retry-After holds every worker, not just the one told). */
  holdFor(key: string, ms: number): Promise<void>;
  close(): Promise<void>;
}
