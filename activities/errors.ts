import { ApplicationFailure } from '@temporalio/common';
import { InputError, TransientError } from '../core/errors.js';

/**
 * The activity boundary reads only the two error bases (core/errors.ts): an InputError fails its activity at
 * once, as a non-retryable failure whose type names the cause, so a bad config or a missing command ends the
 * run with a message naming the field or server; a TransientError is retried with the activity's backoff.
 * Anything else (a bug) is retried too, and its stack kept.
 */
export async function failFast<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InputError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    if (err instanceof TransientError) throw ApplicationFailure.retryable(err.message, err.name);
    throw err;
  }
}
