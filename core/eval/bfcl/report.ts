import { bfclRows, mdTable } from '../report-markdown.js';
import type { BfclScore } from './score.js';

/** What was scored, with what judge; the report's first lines. */
export interface BfclRunInfo {
  createdAt: string;
  /** bfcl-eval's data folder and the Python whose BFCL checker judged. */
  judge: { python: string; data: string };
  /** Questions per category (absent: all) and the sample's seed. */
  limit?: number;
  sampleSeed: string;
}

export interface BfclReport extends BfclRunInfo {
  endpoints: BfclScore[];
}

/**
 * One row per category and endpoint: BFCL's accuracy from its own checker, then ours on the same answers
 * (exact against the first acceptable answer, tool accuracy, abstention F1), latency and cost.
 */
export function bfclTable(endpoints: BfclScore[]): string {
  return mdTable(bfclRows(endpoints));
}

/** The report as markdown: the table, then BFCL's error types per category and endpoint. */
export function bfclMarkdown(report: BfclReport): string {
  const errors = report.endpoints.flatMap((e) =>
    e.categories
      .filter((c) => Object.keys(c.errorTypes).length)
      .map(
        (c) =>
          `- ${c.category}, ${e.label}: ${Object.entries(c.errorTypes)
            .sort((a, b) => b[1] - a[1])
            .map(([t, n]) => `${t} ${n}`)
            .join(', ')}`,
      ),
  );
  return [
    `# BFCL: ${report.endpoints.map((e) => e.label).join(' vs ')}`,
    '',
    `${report.createdAt}; judged by BFCL's own checker (bfcl-eval, ${report.judge.python}); ` +
      `${report.limit === undefined ? 'every question' : `at most ${report.limit} questions`} per category, sample seed ${report.sampleSeed}.`,
    '',
    bfclTable(report.endpoints),
    '',
    "BFCL accuracy is its checker's verdict (any acceptable answer; no call for irrelevance). Exact is ours: the first",
    'acceptable answer, argument for argument. Intervals: 95 % bootstrap.',
    ...(errors.length ? ['', "## BFCL's error types", '', ...errors] : []),
    '',
  ].join('\n');
}
