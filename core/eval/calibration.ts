/**
 * How far the router's confidence can be trusted: reliability bins (confidence against accuracy), their expected
 * calibration error, and the escalation threshold that keeps a target precision. The gateway escalates a decision
 * whose confidence is below `gateway.escalation.minConfidence`; the threshold here is the value to set there so the
 * answers the router keeps are right at least `target` of the time, keeping as many as it can.
 */
import type { ConfidenceSignal } from '../router/confidence.js';

/** One decision: how sure the router was (core/router/confidence.ts) and whether it was right. */
export interface Scored {
  confidence: number;
  correct: boolean;
}

export interface ReliabilityBin {
  /** Confidence range [lo, hi); the last bin includes 1. */
  lo: number;
  hi: number;
  count: number;
  /** Null for an empty bin. */
  meanConfidence: number | null;
  accuracy: number | null;
}

function checked(points: readonly Scored[]): readonly Scored[] {
  for (const p of points)
    if (!(p.confidence >= 0 && p.confidence <= 1)) throw new RangeError(`confidence ${p.confidence} is outside [0, 1]`);
  return points;
}

/** Equal-width bins over [0, 1]. */
export function reliabilityBins(points: readonly Scored[], bins = 10): ReliabilityBin[] {
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`bins must be a positive integer, not ${bins}`);
  const sums = Array.from({ length: bins }, () => ({ count: 0, confidence: 0, correct: 0 }));
  for (const p of checked(points)) {
    const s = sums[Math.min(bins - 1, Math.floor(p.confidence * bins))]!;
    s.count++;
    s.confidence += p.confidence;
    s.correct += p.correct ? 1 : 0;
  }
  return sums.map((s, i) => ({
    lo: i / bins,
    hi: (i + 1) / bins,
    count: s.count,
    meanConfidence: s.count ? s.confidence / s.count : null,
    accuracy: s.count ? s.correct / s.count : null,
  }));
}

/** The count-weighted mean gap between a bin's accuracy and its mean confidence; null with no points. */
export function expectedCalibrationError(bins: readonly ReliabilityBin[]): number | null {
  const total = bins.reduce((n, b) => n + b.count, 0);
  if (total === 0) return null;
  return bins.reduce((e, b) => e + (b.count ? b.count * Math.abs(b.accuracy! - b.meanConfidence!) : 0), 0) / total;
}

export interface Threshold {
  /** Keep a decision whose confidence is at least this; escalate the rest. */
  threshold: number;
  /** Of the decisions kept, the share that were right. */
  precision: number;
  kept: number;
  /** The share of decisions kept. */
  coverage: number;
}

/**
 * The lowest threshold whose kept decisions (confidence ≥ threshold) are right at least `target` of the time:
 * the most decisions kept at that precision. Decisions with the same confidence are kept or escalated together.
 * Null when no threshold reaches the target.
 */
export function thresholdForPrecision(points: readonly Scored[], target: number): Threshold | null {
  if (!(target >= 0 && target <= 1)) throw new RangeError(`target precision must be a number in [0, 1], not ${target}`);
  const sorted = [...checked(points)].sort((a, b) => b.confidence - a.confidence);
  let best: Threshold | null = null;
  let kept = 0;
  let right = 0;
  for (let i = 0; i < sorted.length; i++) {
    kept++;
    right += sorted[i]!.correct ? 1 : 0;
    // Only between distinct confidences: a threshold cannot split a tie.
    if (i + 1 < sorted.length && sorted[i + 1]!.confidence === sorted[i]!.confidence) continue;
    const precision = right / kept;
    if (precision >= target)
      best = { threshold: sorted[i]!.confidence, precision, kept, coverage: kept / sorted.length };
  }
  return best;
}

/** The candidate's calibration in a run's report. */
export interface Calibration {
  /** Cases with a confidence: what the bins and the threshold are computed over. */
  cases: number;
  /**
   * Cases without one (an invalid answer, a decision the checks rewrote, no logprobs): the gateway escalates an
   * invalid answer and a rewritten call by rule (escalation.on) and keeps the others whatever the threshold.
   */
  withoutConfidence: number;
  bins: ReliabilityBin[];
  expectedCalibrationError: number | null;
  targetPrecision: number;
  /** What the confidence is the probability of (evaluate.calibration.confidence); absent in older reports: `tool`. */
  confidence?: ConfidenceSignal;
  /** The threshold that reaches the target on these cases; null when none does. */
  threshold: Threshold | null;
  /**
   * That threshold as a short decimal to set as `gateway.escalation.minConfidence`: rounded down only as far as keeps
   * the same decisions (a threshold of 0.9999993 is not 1.000, which would escalate it too).
   */
  setting: number | null;
}

/** Calibration of scored cases, right meaning exact match; undefined when no case carries a confidence field. */
export function calibrationOf(
  cases: ReadonlyArray<{ confidence?: number | null; exact: boolean }>,
  opts: { targetPrecision: number; bins: number; confidence?: ConfidenceSignal },
): Calibration | undefined {
  if (!cases.some((c) => c.confidence !== undefined)) return undefined;
  const points = cases
    .filter((c) => typeof c.confidence === 'number')
    .map((c) => ({ confidence: c.confidence as number, correct: c.exact }));
  const bins = reliabilityBins(points, opts.bins);
  const threshold = thresholdForPrecision(points, opts.targetPrecision);
  return {
    cases: points.length,
    withoutConfidence: cases.length - points.length,
    bins,
    expectedCalibrationError: expectedCalibrationError(bins),
    targetPrecision: opts.targetPrecision,
    confidence: opts.confidence ?? 'tool',
    threshold,
    setting: threshold && settable(threshold.threshold, points),
  };
}

/** The shortest decimal at or below `t` that still lies above every escalated decision's confidence. */
function settable(t: number, points: readonly Scored[]): number {
  const below = points.reduce((m, p) => (p.confidence < t && p.confidence > m ? p.confidence : m), -1);
  for (let digits = 2; digits <= 12; digits++) {
    const v = Math.floor(t * 10 ** digits) / 10 ** digits;
    if (v > below) return v;
  }
  return t;
}
