/**
 * Every error says by its base class whether retrying can help, and every boundary reads only that:
 * - activities (activities/errors.ts `failFast`): an InputError fails its activity at once (non-retryable), a
 *   TransientError is retried with the activity's backoff;
 * - the CLI (scripts/cli.ts): an InputError exits 2 (bad usage, config, file or row), anything else 1.
 * A new error class extends one of the two (test/fast/errors.test.ts walks the exports to keep it so).
 */

/** Input that no retry can fix: a config key, a file, a row, a train job, a schema no value fits, a candidate the smoke test refuses. */
export class InputError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name; // the subclass's name, the failure type Temporal shows
  }
}

/** A failure outside the input that may pass on its own: a server down or slow, a 429 or 5xx, a connection reset. */
export class TransientError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
