import { shortSha } from '../hash.js';
import {
  ERROR_TYPES,
  type EndpointResult,
  type Estimate,
  type EvalMetrics,
  type EvalReport,
  type GateDecision,
  type RateRow,
} from './types.js';
import type { BfclScore } from './bfcl/score.js';
import type { Calibration } from './calibration.js';

/**
 * Markdown rendering of an EvalReport, plus the plain-text cell formatting the HTML report reuses,
 * so both show the same numbers. Every helper prints "—" for a missing value, never NaN/undefined.
 */

export const fin = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function fmtNum(x: number | null | undefined, digits: number, signed = false): string {
  if (!fin(x)) return '—';
  const s = x.toFixed(digits);
  return signed && x >= 0 ? `+${s}` : s;
}

/** "0.612 [0.55–0.67]": point estimate, then its 95 % interval; "—" when undefined. */
export function fmtEstimate(e: Estimate | null | undefined, signed = false): string {
  if (!e || !fin(e.value)) return '—';
  const v = fmtNum(e.value, 3, signed);
  return fin(e.low) && fin(e.high) ? `${v} [${fmtNum(e.low, 2)}–${fmtNum(e.high, 2)}]` : v;
}

export function fmtCost(c: EvalMetrics['costPer1K']): string {
  const basis = c.basis ? ` (${c.basis})` : '';
  if (!fin(c.dollars)) return `—${basis}`;
  // Sub-dollar costs per 1K are common for small models: keep four decimals there.
  return `$${c.dollars.toFixed(c.dollars >= 1 ? 2 : 4)}${basis}`;
}

export interface TextTable {
  header: string[];
  rows: string[][];
}

/** One column per endpoint, in report order (the candidate first). */
export function summaryRows(report: EvalReport): TextTable {
  const rs = report.results;
  const row = (name: string, f: (m: EvalMetrics, r: EndpointResult) => string): string[] => [
    name,
    ...rs.map((r) => f(r.metrics, r)),
  ];
  return {
    header: ['metric', ...rs.map((r) => r.label)],
    rows: [
      row('model', (_, r) => r.model),
      row('cases', (m) => (fin(m.n) ? String(m.n) : '—')),
      row('exact match', (m) => fmtEstimate(m.exactMatch)),
      row('tool accuracy', (m) => fmtEstimate(m.toolAccuracy)),
      row('abstention precision', (m) => fmtEstimate(m.abstention.precision)),
      row('abstention recall', (m) => fmtEstimate(m.abstention.recall)),
      row('abstention F1', (m) => fmtEstimate(m.abstention.f1)),
      row('schema-valid rate', (m) => fmtEstimate(m.schemaValidRate)),
      // Calls answered as missing_scope by the scope check (core/scope-guard.ts); "—" in reports from before it.
      row('calls refused for scope', (m) => (fin(m.scopeRefusals) ? String(m.scopeRefusals) : '—')),
      row('p50 latency (ms)', (m) => fmtNum(m.latencyMs.p50, 0)),
      row('p95 latency (ms)', (m) => fmtNum(m.latencyMs.p95, 0)),
      row('tokens per decision', (m) => fmtNum(m.tokens.perDecision, 1)),
      row('cost per 1K decisions', (m) => fmtCost(m.costPer1K)),
      row('decisions/s', (m) => fmtNum(m.throughputPerSecond, 2)),
    ],
  };
}

export function errorRows(report: EvalReport): TextTable {
  return {
    header: ['error type', ...report.results.map((r) => r.label)],
    rows: ERROR_TYPES.map((t) => [t, ...report.results.map((r) => String(r.metrics.errors[t] ?? 0))]),
  };
}

/** RateRow.exact / toolAccuracy are read as rates in [0, 1]. */
export function rateRows(keyName: string, rows: RateRow[]): TextTable {
  return {
    header: [keyName, 'n', 'exact', 'tool acc'],
    rows: rows.map((r) => [r.key, String(r.n), fmtNum(r.exact, 3), fmtNum(r.toolAccuracy, 3)]),
  };
}

export function confusionRows(c: EvalMetrics['confusion']): TextTable {
  return {
    header: ['target ↓ / predicted →', ...c.labels],
    rows: c.labels.map((l, i) => [l, ...c.labels.map((_, j) => String(c.matrix[i]?.[j] ?? 0))]),
  };
}

export function gateSummary(g: GateDecision): { verdict: 'PROMOTE' | 'HOLD'; facts: string[] } {
  const facts = [`candidate: ${g.candidate}`, `production: ${g.production ?? 'none (first deploy)'}`];
  if (g.exactMatchDelta) facts.push(`exact match Δ (candidate − production): ${fmtEstimate(g.exactMatchDelta, true)}`);
  if (fin(g.abstentionF1Delta)) facts.push(`abstention F1 Δ: ${fmtNum(g.abstentionF1Delta, 3, true)}`);
  return { verdict: g.promote ? 'PROMOTE' : 'HOLD', facts };
}

// A cell must stay on one line and not end the cell early.
const mdCell = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function mdTable(t: TextTable): string {
  const line = (cells: string[]): string => `| ${cells.map(mdCell).join(' | ')} |`;
  return [
    line(t.header),
    `|${t.header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...t.rows.map(line),
  ].join('\n');
}

/** The retriever's recall, one sentence: what a rendering gateway's slice can hold; null when not measured. */
export function retrieverLine(report: EvalReport): string | null {
  const r = report.retriever;
  if (!r) return null;
  const at = Object.entries(r.recallAt)
    .map(([k, v]) => `@${k} ${fmtNum(v, 3)}`)
    .join(', ');
  return `Tool retriever (${r.retriever.toUpperCase()}, what \`gateway.render\` slices with), every one of ${r.toolsOffered} tools offered, on the test set's ${r.calls} calls: recall ${at}`;
}

/** Just the summary table: the CLI prints it alone. */
/** The candidate's calibration, in sentences: what the bins say and which escalation threshold reaches the target. */
export function calibrationLines(c: Calibration): string[] {
  const t = c.threshold;
  const signal = c.confidence ?? 'tool';
  const read = signal === 'answer' ? 'the whole answer as written' : "the chosen tool's name tokens";
  const set = signal === 'answer' ? '`gateway.confidence: answer` and ' : '';
  return [
    `Confidence: the probability of ${read} (\`evaluate.calibration.confidence: ${signal}\`). Over ${c.cases} decisions with a confidence (${c.withoutConfidence} without one: an invalid answer or a call the checks refused is escalated by rule, the others are kept whatever the threshold), expected calibration error ${fmtNum(c.expectedCalibrationError, 3)}.`,
    t
      ? `To keep answers that are right ${(c.targetPrecision * 100).toFixed(0)} % of the time, set ${set}\`gateway.escalation.minConfidence: ${c.setting ?? t.threshold}\`: it keeps ${t.kept} of ${c.cases} (${(t.coverage * 100).toFixed(1)} %) at precision ${t.precision.toFixed(3)} on these cases and escalates the rest.`
      : `No threshold keeps answers right ${(c.targetPrecision * 100).toFixed(0)} % of the time on these cases (evaluate.calibration.targetPrecision): escalate everything or lower the target.`,
  ];
}

export function calibrationRows(c: Calibration): TextTable {
  return {
    header: ['confidence', 'decisions', 'mean confidence', 'exact match'],
    rows: c.bins
      .filter((b) => b.count > 0)
      .map((b) => [
        `${b.lo.toFixed(2)}–${b.hi.toFixed(2)}`,
        String(b.count),
        fmtNum(b.meanConfidence, 3),
        fmtNum(b.accuracy, 3),
      ]),
  };
}

/** BFCL's accuracy per category and endpoint, then ours on the same answers, latency and cost (docs/bfcl.md). */
export function bfclRows(scores: BfclScore[]): TextTable {
  const header = [
    'category',
    'endpoint',
    'n',
    'BFCL accuracy',
    'exact',
    'tool accuracy',
    'abstention F1',
    'p50 ms',
    'cost / 1K',
  ];
  const rows: string[][] = [];
  const categories = [...new Set(scores.flatMap((e) => e.categories.map((c) => c.category)))];
  for (const category of categories)
    for (const e of scores) {
      const c = e.categories.find((x) => x.category === category);
      if (!c) continue;
      const m = c.ours;
      rows.push([
        category,
        e.label,
        String(c.n),
        fmtEstimate(c.accuracy),
        fmtEstimate(m.exactMatch),
        fmtEstimate(m.toolAccuracy),
        fmtEstimate(m.abstention.f1),
        fmtNum(m.latencyMs.p50, 0),
        fmtCost(m.costPer1K),
      ]);
    }
  return { header, rows };
}

export function summaryTable(report: EvalReport): string {
  return mdTable(summaryRows(report));
}

export function renderMarkdown(report: EvalReport): string {
  const out: string[] = ['# Eval report', ''];
  const ts = report.testSet;
  out.push(`- Test set: \`${shortSha(ts.sha256)}\` (${ts.cases} cases) from ${ts.source}`);
  out.push(`- Created: ${report.createdAt}`);
  out.push(
    `- Intervals: 95 % percentile bootstrap, ${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}`,
  );
  for (const r of report.results) out.push(`- ${r.label}: ${r.model} at ${r.endpoint}`);
  const retriever = retrieverLine(report);
  if (retriever) out.push(`- ${retriever}`);
  out.push('', '## Summary', '', summaryTable(report), '');

  if (report.gate) {
    const g = gateSummary(report.gate);
    out.push(
      `## Gate: ${g.verdict}`,
      '',
      ...g.facts.map((f) => `- ${f}`),
      '',
      'Rules:',
      '',
      ...report.gate.reasons.map((r) => `- ${r}`),
      '',
    );
  }

  if (report.bfcl?.length)
    out.push("## BFCL (judged by BFCL's own checker; not gated on)", '', mdTable(bfclRows(report.bfcl)), '');

  if (report.calibration)
    out.push(
      '## Calibration (candidate)',
      '',
      ...calibrationLines(report.calibration),
      '',
      mdTable(calibrationRows(report.calibration)),
      '',
    );

  out.push('## Error types', '', mdTable(errorRows(report)), '');

  const cand = report.results[0];
  if (cand) {
    const m = cand.metrics;
    out.push(
      `## Per tool — ${cand.label}`,
      '',
      m.perTool.length ? mdTable(rateRows('tool', m.perTool)) : '_no cases_',
      '',
    );
    out.push(
      `## Per domain — ${cand.label}`,
      '',
      m.perDomain.length ? mdTable(rateRows('domain', m.perDomain)) : '_no cases_',
      '',
    );
    out.push(`## Confusion matrix — ${cand.label}`, '', 'Rows: target; columns: predicted.', '');
    out.push(m.confusion.labels.length ? mdTable(confusionRows(m.confusion)) : '_no cases_', '');
  }
  return out.join('\n');
}
