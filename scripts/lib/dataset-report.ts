import type { ArtifactStore } from '../../core/artifacts/index.js';
import type { RunStatus } from './runs.js';
import { table } from './output.js';

interface RowStats {
  rows: number;
  byDomain: Record<string, number>;
  byVerdict: Record<string, number>;
}

/** The stats table of a run's dataset: rows per split by verdict and domain, rejections and corruption. */
export async function datasetReport(store: ArtifactStore, status: RunStatus): Promise<string | undefined> {
  const split = status.stages.find((s) => s.name === 'split');
  if (!split?.outputs.train) return undefined;
  const lines: string[] = [];
  const stats: Record<string, RowStats> = {};
  for (const name of ['train', 'val', 'test']) stats[name] = (await store.manifest(split.outputs[name]!.sha256)).stats as unknown as RowStats;
  const domains = [...new Set(Object.values(stats).flatMap((s) => Object.keys(s.byDomain)))].sort();
  const verdicts = ['call', 'abstain', 'violation', 'escalate'];
  lines.push(table(['split', 'rows', ...verdicts, ...domains], Object.entries(stats).map(([n, s]) => [n, String(s.rows), ...verdicts.map((v) => String(s.byVerdict[v] ?? 0)), ...domains.map((d) => String(s.byDomain[d] ?? 0))])));
  const validated = status.stages.find((s) => s.name === 'validate')?.outputs.validated;
  if (validated) {
    const v = (await store.manifest(validated.sha256)).stats as { valid: number; rejected: number; rejectionsByReason: Record<string, number> };
    lines.push(`\nvalidation: ${v.valid} valid, ${v.rejected} rejected${Object.keys(v.rejectionsByReason).length ? ` — ${Object.entries(v.rejectionsByReason).map(([r, n]) => `${r} ${n}`).join(', ')}` : ''}`);
  }
  const augmented = status.stages.find((s) => s.name === 'corrupt')?.outputs.augmented;
  if (augmented) {
    const c = ((await store.manifest(augmented.sha256)).stats as { corruption: { kept: Record<string, number>; dropped: Record<string, number> } }).corruption;
    lines.push(`near-miss negatives by operator: ${Object.entries(c.kept).map(([k, n]) => `${k} ${n}`).join(', ')}${Object.keys(c.dropped).length ? ` (not proven wrong, dropped: ${Object.entries(c.dropped).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}`);
  }
  return lines.join('\n');
}
