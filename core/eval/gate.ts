import { EvalInputError } from './cases.js';
import { estimate, type BootstrapOptions } from './bootstrap.js';
import { abstentionF1 } from './metrics.js';
import type { CaseResult, EndpointResult, GateConfig, GateDecision } from './types.js';

/**
 * Promote the candidate only if it is not worse than production on the same cases: the paired bootstrap
 * interval of the exact-match difference must stay above −margin, and abstention F1 may not drop by more than
 * the tolerance (a router that stops refusing is a regression even when it calls more tools right).
 * With no production yet, the candidate's exact match must reach the configured minimum.
 */
export function decideGate(
  candidate: EndpointResult,
  production: EndpointResult | null,
  cfg: GateConfig,
  boot: BootstrapOptions,
): GateDecision {
  if (!production) {
    const value = candidate.metrics.exactMatch.value;
    const pass = value !== null && value >= cfg.minExactMatch;
    const reason = `exact match: candidate ${value === null ? 'undefined (no cases)' : fixed(value)} ${pass ? '≥' : '<'} ${fixed(cfg.minExactMatch)} minimum (no production yet): ${verdict(pass)}`;
    return {
      promote: pass,
      reasons: [reason],
      exactMatchDelta: null,
      abstentionF1Delta: null,
      candidate: candidate.label,
      production: null,
    };
  }

  const prodById = new Map(production.cases.map((c) => [c.id, c]));
  const pairs = candidate.cases.flatMap((c) => (prodById.has(c.id) ? [[c, prodById.get(c.id)!] as const] : []));
  if (pairs.length === 0)
    throw new EvalInputError(`gate: ${candidate.label} and ${production.label} were scored on no common case ids`);
  const cand = pairs.map(([c]) => c);
  const prod = pairs.map(([, p]) => p);

  const diffs = pairs.map(([c, p]) => Number(c.exact) - Number(p.exact));
  const delta = estimate(diffs.length, (idx) => idx.reduce((s, i) => s + diffs[i]!, 0) / idx.length, boot);
  const exactPass = delta.low! >= -cfg.margin;
  const exactReason =
    `exact match: candidate ${fixed(exactRate(cand))} vs production ${fixed(exactRate(prod))}, paired Δ ${signed(delta.value!)} ` +
    `[95% CI ${signed(delta.low!)}, ${signed(delta.high!)}] ${exactPass ? '≥' : '<'} ${signed(-cfg.margin)} margin: ${verdict(exactPass)}`;

  const candF1 = abstentionF1(cand);
  const prodF1 = abstentionF1(prod);
  const f1Delta = candF1 === null || prodF1 === null ? null : candF1 - prodF1;
  const f1Pass = f1Delta === null || f1Delta >= -cfg.abstentionF1Tolerance;
  const f1Reason =
    f1Delta === null
      ? `abstention F1: undefined for ${[candF1 === null ? candidate.label : '', prodF1 === null ? production.label : ''].filter(Boolean).join(' and ')} on the ${pairs.length} paired cases (no abstentions), not compared: pass`
      : `abstention F1: candidate ${fixed(candF1!)} vs production ${fixed(prodF1!)}, Δ ${signed(f1Delta)} ${f1Pass ? '≥' : '<'} ${signed(-cfg.abstentionF1Tolerance)} tolerance: ${verdict(f1Pass)}`;

  return {
    promote: exactPass && f1Pass,
    reasons: [exactReason, f1Reason],
    exactMatchDelta: delta,
    abstentionF1Delta: f1Delta,
    candidate: candidate.label,
    production: production.label,
  };
}

function exactRate(cases: CaseResult[]): number {
  return cases.filter((c) => c.exact).length / cases.length;
}

function fixed(x: number): string {
  return x.toFixed(3);
}

/** +0.032 / −0.010 (a real minus sign); a value that rounds to zero reads +0.000 or −0.000 by its sign. */
function signed(x: number): string {
  return `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(3)}`;
}

function verdict(pass: boolean): string {
  return pass ? 'pass' : 'fail';
}
