import { estimate, nearestRank, type BootstrapOptions } from './bootstrap.js';
import {
  ABSTAIN,
  ERROR_TYPES,
  INVALID,
  type CaseResult,
  type CostModel,
  type ErrorType,
  type EvalMetrics,
  type RateRow,
} from './types.js';

export interface AggregateOptions {
  bootstrap: BootstrapOptions;
  cost: CostModel;
  /** Wall-clock seconds the whole run took (for throughput and gpu-hour cost). */
  wallSeconds: number;
}

/** Every metric of one endpoint's scored cases, with bootstrap intervals on the rates. */
export function aggregate(results: CaseResult[], opts: AggregateOptions): EvalMetrics {
  const n = results.length;
  const est = (s: (idx: number[]) => number | null) => estimate(n, s, opts.bootstrap);
  const errors = Object.fromEntries(ERROR_TYPES.map((e) => [e, 0])) as Record<ErrorType, number>;
  for (const r of results) if (r.outcome !== 'correct') errors[r.outcome]++;
  const latencies = results.map((r) => r.measure.latencyMs).sort((a, b) => a - b);
  const prompt = sum(results.map((r) => r.measure.promptTokens));
  const completion = sum(results.map((r) => r.measure.completionTokens));
  const throughput = opts.wallSeconds > 0 ? n / opts.wallSeconds : null;
  return {
    n,
    exactMatch: est((idx) => ratio(idx, (i) => results[i]!.exact)),
    toolAccuracy: est((idx) => ratio(idx, (i) => results[i]!.toolMatch)),
    abstention: {
      precision: est((idx) =>
        ratio(
          idx,
          (i) => results[i]!.targetAbstains,
          (i) => results[i]!.predictedAbstains,
        ),
      ),
      recall: est((idx) =>
        ratio(
          idx,
          (i) => results[i]!.predictedAbstains,
          (i) => results[i]!.targetAbstains,
        ),
      ),
      f1: est((idx) => f1(results, idx)),
      support: results.filter((r) => r.targetAbstains).length,
      predicted: results.filter((r) => r.predictedAbstains).length,
    },
    schemaValidRate: est((idx) =>
      ratio(
        idx,
        (i) => results[i]!.schemaValid === true,
        (i) => results[i]!.schemaValid !== null,
      ),
    ),
    errors,
    perTool: rateRows(results, (r) => r.targetTool),
    perDomain: rateRows(results, (r) => r.domain ?? 'unknown'),
    confusion: confusion(results),
    latencyMs: {
      p50: n ? nearestRank(latencies, 0.5) : null,
      p95: n ? nearestRank(latencies, 0.95) : null,
      mean: n ? sum(latencies) / n : null,
    },
    tokens: { prompt, completion, perDecision: n ? (prompt + completion) / n : null },
    costPer1K: costPer1K(opts.cost, n, prompt, completion, throughput),
    throughputPerSecond: throughput,
    scopeRefusals: results.filter((r) => r.scopeRefused).length,
  };
}

/**
 * Abstention F1 with "abstains" as the positive class: 2TP / (2TP + FP + FN). Null only when no target and no
 * prediction abstains (nothing to measure). When just one side has abstentions, the other side's precision or
 * recall is undefined but TP is 0, so F1 is 0 — as it is when P + R = 0.
 */
export function abstentionF1(results: CaseResult[]): number | null {
  return f1(
    results,
    results.map((_, i) => i),
  );
}

/**
 * Which way a router errs on abstaining: calls it answered with no call (over the calls), and no-calls it answered
 * with a call (over the no-calls). Exact match alone hides a router that buys irrelevance by abstaining on calls.
 */
export interface AbstentionBalance {
  calls: number;
  callsAbstained: number;
  noCalls: number;
  noCallsCalled: number;
}

export function abstentionBalance(
  results: ReadonlyArray<Pick<CaseResult, 'targetAbstains' | 'predictedAbstains'>>,
): AbstentionBalance {
  const b: AbstentionBalance = { calls: 0, callsAbstained: 0, noCalls: 0, noCallsCalled: 0 };
  for (const r of results)
    if (r.targetAbstains) {
      b.noCalls++;
      if (!r.predictedAbstains) b.noCallsCalled++;
    } else {
      b.calls++;
      if (r.predictedAbstains) b.callsAbstained++;
    }
  return b;
}

/** `abstained/calls · called/no-calls`, a dash for a kind the set does not hold. */
export function formatBalance(b: AbstentionBalance): string {
  if (b.calls + b.noCalls === 0) return '—';
  const part = (k: number, n: number) => (n ? `${k}/${n}` : '—');
  return `${part(b.callsAbstained, b.calls)} · ${part(b.noCallsCalled, b.noCalls)}`;
}

function f1(results: CaseResult[], idx: number[]): number | null {
  let tp = 0;
  let wrong = 0;
  for (const i of idx) {
    const r = results[i]!;
    if (r.targetAbstains && r.predictedAbstains) tp++;
    else if (r.targetAbstains || r.predictedAbstains) wrong++;
  }
  return tp + wrong === 0 ? null : (2 * tp) / (2 * tp + wrong);
}

/** Share of the indices in `among` that satisfy `hit`; null when none are in `among`. */
function ratio(idx: number[], hit: (i: number) => boolean, among: (i: number) => boolean = () => true): number | null {
  let num = 0;
  let den = 0;
  for (const i of idx) {
    if (!among(i)) continue;
    den++;
    if (hit(i)) num++;
  }
  return den === 0 ? null : num / den;
}

function rateRows(results: CaseResult[], keyOf: (r: CaseResult) => string): RateRow[] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    const key = keyOf(r);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.keys()].sort(byCodePoint).map((key) => {
    const rs = groups.get(key)!;
    return {
      key,
      n: rs.length,
      exact: rs.filter((r) => r.exact).length / rs.length,
      toolAccuracy: rs.filter((r) => r.toolMatch).length / rs.length,
    };
  });
}

/** Labels: the tools seen as target or prediction (sorted), then ABSTAIN, then INVALID when any output was invalid. */
function confusion(results: CaseResult[]): EvalMetrics['confusion'] {
  const all = new Set(results.flatMap((r) => [r.targetTool, r.predictedTool]));
  const tools = [...all].filter((l) => l !== ABSTAIN && l !== INVALID).sort(byCodePoint);
  const labels = [...tools, ABSTAIN, ...(all.has(INVALID) ? [INVALID] : [])];
  const at = new Map(labels.map((l, i) => [l, i]));
  const matrix = labels.map(() => labels.map(() => 0));
  for (const r of results) matrix[at.get(r.targetTool)!]![at.get(r.predictedTool)!]!++;
  return { labels, matrix };
}

function costPer1K(
  cost: CostModel,
  n: number,
  prompt: number,
  completion: number,
  throughput: number | null,
): EvalMetrics['costPer1K'] {
  switch (cost.kind) {
    case 'none':
      return { dollars: null, basis: 'no cost model' };
    case 'tokens': {
      const basis = `${money(cost.inputPerMillion)}/1M in, ${money(cost.outputPerMillion)}/1M out`;
      const total = (prompt * cost.inputPerMillion + completion * cost.outputPerMillion) / 1e6;
      return { dollars: n ? (total / n) * 1000 : null, basis };
    }
    case 'gpu-hour': {
      if (!throughput)
        return { dollars: null, basis: `${money(cost.dollarsPerHour)}/GPU-hour, no throughput measured` };
      const basis = `${money(cost.dollarsPerHour)}/GPU-hour at ${Number(throughput.toPrecision(3))} decisions/s measured`;
      return { dollars: (cost.dollarsPerHour / 3600 / throughput) * 1000, basis };
    }
  }
}

/** $10, $2.50, $0.075: whole dollars bare, cents with two decimals, finer prices as given. */
function money(x: number): string {
  return `$${Number.isInteger(x) ? x : Number.isInteger(x * 100) ? x.toFixed(2) : x}`;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

// Locale-independent, so report order does not depend on the machine.
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
