import { Context } from '@temporalio/activity';

/**
 * Run `fn` while heartbeating every few seconds: a backend call that takes minutes (loading a base model,
 * smoke probes) must not look like a dead worker, and a dead worker is noticed within the heartbeat timeout.
 */
export async function whileBeating<T>(fn: () => Promise<T>, everyMs = 5000): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const beat = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await fn();
  } finally {
    clearInterval(beat);
  }
}

/** One heartbeat with progress details (the SDK throttles them). */
export const beat = (details: unknown): void => Context.current().heartbeat(details);
