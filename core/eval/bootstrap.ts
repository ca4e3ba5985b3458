import { Rng } from '../rng.js';
import type { Estimate } from './types.js';

export interface BootstrapOptions {
  resamples: number;
  seed: number;
}

/** A statistic over a sample of case indices (with repeats); null where it is undefined on that sample. The array is reused: do not keep it. */
export type Statistic = (idx: number[]) => number | null;

/**
 * Percentile bootstrap 95 % interval: resample the n cases with replacement, recompute the statistic, take the
 * 2.5th and 97.5th percentiles. Every call with the same seed draws the same resamples, so the metrics of one
 * report (and of reruns) agree. Resamples where the statistic is undefined are skipped.
 */
export function bootstrapInterval(
  n: number,
  statistic: Statistic,
  opts: BootstrapOptions,
): { low: number | null; high: number | null } {
  if (n === 0) return { low: null, high: null };
  const rng = new Rng(opts.seed);
  const idx = new Array<number>(n);
  const values: number[] = [];
  for (let r = 0; r < opts.resamples; r++) {
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng.next() * n);
    const v = statistic(idx);
    if (v !== null) values.push(v);
  }
  if (values.length === 0) return { low: null, high: null };
  values.sort((a, b) => a - b);
  return { low: nearestRank(values, 0.025), high: nearestRank(values, 0.975) };
}

/** The statistic on all n cases, with its bootstrap interval; all null when it is undefined on the full sample. */
export function estimate(n: number, statistic: Statistic, opts: BootstrapOptions): Estimate {
  const value = statistic(Array.from({ length: n }, (_, i) => i));
  if (value === null) return { value: null, low: null, high: null };
  return { value, ...bootstrapInterval(n, statistic, opts) };
}

/** Nearest-rank percentile of an ascending, non-empty array (q in [0, 1]). */
export function nearestRank(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
