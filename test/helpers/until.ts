/**
 * Poll `cond` every `intervalMs` until it holds; past `timeoutMs` throw, naming what was awaited and adding
 * `diagnose()` (e.g. the tail of a worker's log) so a CI failure says why.
 */
export async function until(
  what: string,
  cond: () => Promise<boolean> | boolean,
  opts: { timeoutMs?: number; intervalMs?: number; diagnose?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (!(await cond())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${opts.diagnose ? `\n${opts.diagnose()}` : ''}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
  }
}
