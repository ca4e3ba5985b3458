import type { ArtifactStore } from '../../core/artifacts/index.js';
import { coverageSummary, type ToolCoverage } from '../../core/dataset/coverage.js';
import { describeCap, type TrainCap } from '../../core/dataset/split.js';
import type { RunStatus } from './runs.js';
import { table } from './output.js';

interface RowStats {
  rows: number;
  byDomain: Record<string, number>;
  byVerdict: Record<string, number>;
  /** Natural phrasing only: rows per request style. */
  byStyle?: Record<string, number>;
  /** Only with rows not generated: rows per source (`generated`, `handwritten`, `trace:<format>`). */
  bySource?: Record<string, number>;
}

/**
 * The stats of a run's dataset: rows per split by verdict and domain, rejections, corruption, and the
 * coverage table per tool (`coverage: 'gaps'` lists only the tools without data, as the demo does).
 */
export async function datasetReport(
  store: ArtifactStore,
  status: RunStatus,
  opts: { coverage: 'full' | 'gaps' } = { coverage: 'full' },
): Promise<string | undefined> {
  const split = status.stages.find((s) => s.name === 'split');
  if (!split?.outputs.train) return undefined;
  const lines: string[] = [];
  const stats: Record<string, RowStats> = {};
  for (const name of ['train', 'val', 'test'])
    stats[name] = (await store.manifest(split.outputs[name]!.sha256)).stats as unknown as RowStats;
  const domains = [...new Set(Object.values(stats).flatMap((s) => Object.keys(s.byDomain)))].sort();
  const verdicts = ['call', 'abstain', 'violation', 'escalate'];
  lines.push(
    table(
      ['split', 'rows', ...verdicts, ...domains],
      Object.entries(stats).map(([n, s]) => [
        n,
        String(s.rows),
        ...verdicts.map((v) => String(s.byVerdict[v] ?? 0)),
        ...domains.map((d) => String(s.byDomain[d] ?? 0)),
      ]),
    ),
  );
  // Where rows came from, when not all were generated: trace rows by the format they were read in.
  const sources = [...new Set(Object.values(stats).flatMap((s) => Object.keys(s.bySource ?? {})))].sort();
  if (sources.length)
    lines.push(
      '\nrows by source',
      table(
        ['split', ...sources],
        Object.entries(stats).map(([n, s]) => [n, ...sources.map((src) => String(s.bySource?.[src] ?? 0))]),
      ),
    );
  // A capped train split says so where the run is reported (the demo caps to fit a CPU's time budget).
  const cap = (await store.manifest(split.outputs.train.sha256)).stats.cap as TrainCap | undefined;
  if (cap) lines.push(`\ntrain split ${describeCap(cap)} (dataset.maxPerTool; without it every row is trained on)`);
  const styles = stats.train?.byStyle;
  if (styles) lines.push(`\n${styleMix(styles)}`);
  const validated = status.stages.find((s) => s.name === 'validate')?.outputs.validated;
  if (validated) {
    const v = (await store.manifest(validated.sha256)).stats as {
      valid: number;
      rejected: number;
      rejectionsByReason: Record<string, number>;
      callsCheckedBy?: Record<string, number>;
      coverage?: ToolCoverage[];
    };
    lines.push(
      `\nvalidation: ${v.valid} valid, ${v.rejected} rejected${
        Object.keys(v.rejectionsByReason).length
          ? ` — ${Object.entries(v.rejectionsByReason)
              .map(([r, n]) => `${r} ${n}`)
              .join(', ')}`
          : ''
      }`,
    );
    if (v.callsCheckedBy)
      lines.push(
        `calls checked by: ${Object.entries(v.callsCheckedBy)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
      );
    if (v.coverage) {
      const distinct = ((await store.manifest(split.outputs.train!.sha256)).stats.distinctByTool ?? {}) as Record<
        string,
        number
      >;
      lines.push(`\ncoverage: ${coverageSummary(v.coverage)}`);
      const shown = opts.coverage === 'full' ? v.coverage : v.coverage.filter((c) => c.valid === 0);
      if (shown.length) lines.push(coverageTable(shown, distinct));
    }
  }
  const augmented = status.stages.find((s) => s.name === 'corrupt')?.outputs.augmented;
  if (augmented) {
    const c = (
      (await store.manifest(augmented.sha256)).stats as {
        corruption: { kept: Record<string, number>; dropped: Record<string, number> };
      }
    ).corruption;
    lines.push(
      `near-miss negatives by operator: ${Object.entries(c.kept)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}${
        Object.keys(c.dropped).length
          ? ` (not proven wrong, dropped: ${Object.entries(c.dropped)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')})`
          : ''
      }`,
    );
  }
  return lines.join('\n');
}

/** The coverage table: one line per tool, distinct training rows from the train split's manifest. */
export function coverageTable(rows: ToolCoverage[], distinct: Record<string, number>): string {
  const counts = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  return table(
    ['tool', 'from', 'intents', 'valid', 'train', 'checked by', 'rejected', 'probe / no data'],
    rows.map((c) => [
      c.tool,
      c.source,
      String(c.intents),
      String(c.valid),
      String(distinct[c.tool] ?? 0),
      counts(c.checkedBy),
      counts(c.rejected),
      c.noData ? `${c.noData}${c.probe ? `; probe ${c.probe}` : ''}` : (c.probe ?? ''),
    ]),
  );
}

/** "request styles (train): command 210 (18 %), question 190 (16 %), …", largest first. */
export function styleMix(byStyle: Record<string, number>): string {
  const total = Object.values(byStyle).reduce((a, b) => a + b, 0);
  return `request styles (train): ${Object.entries(byStyle)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ${n} (${Math.round((100 * n) / total)} %)`)
    .join(', ')}`;
}
