/**
 * What preference tuning is meant to change, per kind of case: exact match, and over-calling (a call made where
 * the target abstains: the careless router the abstention pairs reject). Cases are grouped by the corrupt-stage
 * operator that made their row (`positive` for rows no operator touched).
 */
import type { CaseResult } from './types.js';

export interface OperatorScores {
  cases: number;
  exact: number;
  /** Cases whose target abstains. */
  abstainTargets: number;
  /** Of those, how many the model answered with a call. */
  overCalls: number;
}

/** A call where the target abstains (invalid output is not a call). */
export function overCalled(c: CaseResult): boolean {
  return c.targetAbstains && !c.predictedAbstains && c.outcome !== 'invalid_output';
}

/** Calls made where the target abstains, over the cases whose target abstains; null when there are none. */
export function overCallingRate(cases: CaseResult[]): number | null {
  const abstain = cases.filter((c) => c.targetAbstains);
  return abstain.length === 0 ? null : abstain.filter(overCalled).length / abstain.length;
}

/** Scores per operator; `operatorOf` maps a case id to its row's operator (null: a positive row). */
export function scoresByOperator(
  cases: CaseResult[],
  operatorOf: (id: string) => string | null | undefined,
): Record<string, OperatorScores> {
  const out: Record<string, OperatorScores> = {};
  for (const c of cases) {
    const s = (out[operatorOf(c.id) ?? 'positive'] ??= { cases: 0, exact: 0, abstainTargets: 0, overCalls: 0 });
    s.cases++;
    if (c.exact) s.exact++;
    if (c.targetAbstains) s.abstainTargets++;
    if (overCalled(c)) s.overCalls++;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
