import { shortSha } from '../hash.js';
import {
  confusionRows,
  errorRows,
  gateSummary,
  rateRows,
  retrieverLine,
  bfclRows,
  calibrationLines,
  calibrationRows,
  summaryRows,
  type TextTable,
} from './report-markdown.js';
import { confusionHeatmap, esc, groupedBars, latencyHistogram, lossCurve, reliabilityDiagram } from './svg.js';
import type { EvalReport } from './types.js';

/**
 * One self-contained HTML file: inline CSS and SVG only, no scripts and no external references,
 * so it opens offline from an artifact store. Same numbers as the markdown (shared formatters).
 */

export const MAX_FAILED_ROWS = 200;

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; } th { background: #f5f5f5; }
table.cases td { text-align: left; } td.detail { max-width: 420px; overflow-wrap: anywhere; }
.meta { color: #555; } .note { color: #666; font-style: italic; }
.gate { padding: .5rem 1rem; border-radius: 4px; } .promote { background: #e8f5e9; } .hold { background: #fdecea; }
.verdict { font-weight: bold; font-size: 1.1rem; }
figure { margin: 1rem 0; } figcaption { color: #555; font-size: 12px; } svg.plot { max-width: 100%; height: auto; }
`;

/** colClass: optional class per column (e.g. wrap long details). */
function table(t: TextTable, cls = '', colClass: string[] = []): string {
  const td = (c: string, i: number): string =>
    colClass[i] ? `<td class="${colClass[i]}">${esc(c)}</td>` : `<td>${esc(c)}</td>`;
  const head = `<tr>${t.header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const body = t.rows.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('\n');
  return `<table${cls ? ` class="${cls}"` : ''}><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

const figure = (svg: string, caption: string): string =>
  svg ? `<figure>${svg}<figcaption>${esc(caption)}</figcaption></figure>` : '';

function gateHtml(report: EvalReport): string {
  if (!report.gate) return '';
  const g = gateSummary(report.gate);
  const facts = g.facts.map((f) => `<li>${esc(f)}</li>`).join('');
  const reasons = report.gate.reasons.map((r) => `<li>${esc(r)}</li>`).join('');
  return `<h2>Gate</h2><div class="gate ${g.verdict === 'PROMOTE' ? 'promote' : 'hold'}"><div class="verdict">${g.verdict}</div><ul>${facts}</ul><p>Rules:</p><ul class="reasons">${reasons}</ul></div>`;
}

function failedCasesHtml(report: EvalReport): string {
  const cand = report.results[0];
  if (!cand) return '';
  const failed = cand.cases.filter((c) => c.outcome !== 'correct');
  const shown = failed.slice(0, MAX_FAILED_ROWS);
  const t: TextTable = {
    header: ['id', 'target', 'predicted', 'outcome', 'detail'],
    rows: shown.map((c) => [c.id, c.targetTool, c.predictedTool, c.outcome, c.detail]),
  };
  const note =
    failed.length > shown.length
      ? `<p class="note">Showing the first ${shown.length} of ${failed.length} failed cases.</p>`
      : '';
  const body = failed.length ? table(t, 'cases', ['', '', '', '', 'detail']) : '<p class="note">No failed cases.</p>';
  return `<h2>Failed cases — ${esc(cand.label)}</h2>${note}${body}`;
}

export function renderHtml(report: EvalReport): string {
  const cand = report.results[0];
  const ts = report.testSet;
  const endpoints = report.results
    .map((r) => `<li>${esc(r.label)}: ${esc(r.model)} at ${esc(r.endpoint)}</li>`)
    .join('');
  const plots = [
    figure(
      confusionHeatmap(cand?.metrics.confusion.labels ?? [], cand?.metrics.confusion.matrix ?? []),
      `Confusion matrix${cand ? ` — ${cand.label}` : ''}: shade is the share of the target row.`,
    ),
    figure(
      groupedBars(
        'plot-tools',
        'Exact match per tool',
        report.results.map((r) => ({
          label: r.label,
          rows: r.metrics.perTool.map((p) => ({ key: p.key, value: p.exact })),
        })),
        'exact match',
      ),
      'Exact match per target tool, one bar per endpoint.',
    ),
    figure(
      latencyHistogram(
        report.results.map((r) => ({ label: r.label, values: r.cases.map((c) => c.measure.latencyMs) })),
      ),
      'Request latency, shared bins across endpoints.',
    ),
    figure(lossCurve(report.trainingCurve ?? []), 'Candidate training curve.'),
  ].join('\n');
  const perCand = cand
    ? `<h2>Per tool — ${esc(cand.label)}</h2>${table(rateRows('tool', cand.metrics.perTool))}` +
      `<h2>Per domain — ${esc(cand.label)}</h2>${table(rateRows('domain', cand.metrics.perDomain))}` +
      (cand.metrics.confusion.labels.length
        ? `<h2>Confusion matrix — ${esc(cand.label)}</h2>${table(confusionRows(cand.metrics.confusion))}`
        : '')
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Eval report ${esc(shortSha(ts.sha256))}</title><style>${STYLE}</style></head>
<body>
<h1>Eval report</h1>
<p class="meta">Test set <code>${esc(shortSha(ts.sha256))}</code> (${esc(String(ts.cases))} cases) from ${esc(ts.source)} · created ${esc(report.createdAt)} · 95 % percentile bootstrap, ${esc(String(report.bootstrap.resamples))} resamples, seed ${esc(String(report.bootstrap.seed))}</p>
<ul class="meta">${endpoints}${retrieverLine(report) ? `<li>${esc(retrieverLine(report)!)}</li>` : ''}</ul>
<h2>Summary</h2>
${table(summaryRows(report), 'summary')}
${gateHtml(report)}
${report.bfcl?.length ? `<h2>BFCL (judged by BFCL's own checker; not gated on)</h2>${table(bfclRows(report.bfcl))}` : ''}
${calibrationHtml(report)}
<h2>Error types</h2>
${table(errorRows(report), 'errors')}
<h2>Plots</h2>
${plots}
${perCand}
${failedCasesHtml(report)}
</body></html>
`;
}

/** The candidate's calibration: what it says, the reliability diagram and the bins. */
function calibrationHtml(report: EvalReport): string {
  const c = report.calibration;
  if (!c) return '';
  const lines = calibrationLines(c)
    .map((l) => `<p>${esc(l).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('');
  const plot = figure(
    reliabilityDiagram(c.bins, c.setting ?? c.threshold?.threshold ?? null),
    'Exact match per confidence bin against the diagonal of a calibrated model.',
  );
  return `<h2>Calibration — candidate</h2>${lines}${plot}${table(calibrationRows(c))}`;
}
