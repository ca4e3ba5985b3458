/**
 * Errors say by their base class whether retrying can help. A PermanentError (bad input, a schema no value
 * fits, a pack probe that fails the same way every time) fails its activity at once; anything else may be
 * retried. Newer errors extend this; older ones are still listed in activities/errors.ts.
 */
export class PermanentError extends Error {}
