import { parseDbLocation } from '../db-location.js';
import { bucketShape } from './gcra.js';
import { postgresLimitStore } from './postgres-store.js';
import { sqliteLimitStore } from './sqlite-store.js';

export interface RateLimitConfig {
  requestsPerSecond?: number;
  tokensPerSecond?: number;
  /** A SQLite path or a password-free PostgreSQL URL (core/db-location.ts). */
  store: string;
}

/** Hands out turns for one endpoint's budget, shared through the store with every other worker. */
export interface Limiter {
  /**
   * Wait for a request's turn. `estimatedTokens` is charged to the token bucket now; the returned function
   * settles the difference once the response says what the request really used.
   */
  acquire(estimatedTokens: number): Promise<(usedTokens: number) => Promise<void>>;
  /** The endpoint said 429: hold every worker's requests for `ms`. */
  holdFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** How long one wait may sleep before the caller is told (so a long queue still heartbeats). */
const WAIT_SLICE_MS = 5000;

/**
 * A limiter for `key` (the endpoint). Requests pace at one per 1/requestsPerSecond s with no burst, so no
 * window of any length sees more than its share plus one; tokens may burst up to one second's worth.
 * `onWait` is called before each slice of waiting.
 */
export async function openLimiter(
  key: string,
  config: RateLimitConfig,
  onWait?: (ms: number) => void,
): Promise<Limiter> {
  const where = parseDbLocation(config.store, 'dataset.teacher.rateLimit.store');
  const store = where.kind === 'sqlite' ? sqliteLimitStore(where.path) : await postgresLimitStore(where.url);
  const requests = config.requestsPerSecond ? bucketShape(config.requestsPerSecond, 1) : undefined;
  const tokens = config.tokensPerSecond ? bucketShape(config.tokensPerSecond, config.tokensPerSecond) : undefined;
  const wait = async (ms: number) => {
    for (let left = ms; left > 0; left -= WAIT_SLICE_MS) {
      onWait?.(left);
      await new Promise((r) => setTimeout(r, Math.min(left, WAIT_SLICE_MS)));
    }
  };
  return {
    async acquire(estimatedTokens) {
      const waits = await Promise.all([
        requests ? store.reserve(`${key}#requests`, requests.msPerUnit, requests.burstMs) : 0,
        tokens ? store.reserve(`${key}#tokens`, estimatedTokens * tokens.msPerUnit, tokens.burstMs) : 0,
      ]);
      await wait(Math.max(...waits));
      return async (usedTokens) => {
        if (tokens && usedTokens !== estimatedTokens)
          await store.adjust(`${key}#tokens`, (usedTokens - estimatedTokens) * tokens.msPerUnit);
      };
    },
    async holdFor(ms) {
      // A bucket lets callers go up to its burst ahead of its time: hold each beyond `ms` by its burst less one
      // request's share, so that nobody goes before `ms` has passed (the token bucket's burst is a whole second).
      await Promise.all([
        requests ? store.holdFor(`${key}#requests`, ms + requests.burstMs - requests.msPerUnit) : undefined,
        tokens ? store.holdFor(`${key}#tokens`, ms + tokens.burstMs) : undefined,
      ]);
    },
    close: () => store.close(),
  };
}
