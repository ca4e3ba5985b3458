import type { ArtifactStore, Manifest } from '../artifacts/index.js';
import type { EndpointResult, EvalReport, Estimate } from '../eval/types.js';
import { readTreeJson } from './blobs.js';
import type { LineageIndex } from './lineage-index.js';

/** An adapter's evaluation as the run stored it: eval-results (made from the adapter), eval-report (with the gate). */
export interface Evaluation {
  results: Manifest;
  report?: Manifest;
  data: EvalReport;
}

/**
 * The newest evaluation of an adapter: the eval-results made from it and, when the gate ran, the eval-report
 * made from those (its report.json carries the gate's decision).
 */
export async function findEvaluation(store: ArtifactStore, index: LineageIndex, adapter: Manifest): Promise<Evaluation | undefined> {
  const results = index.children(adapter.sha256, 'eval-results')[0];
  if (!results) return undefined;
  const report = index.children(results.sha256, 'eval-report')[0];
  const fromReport = report ? await readTreeJson<EvalReport>(store, await store.readTree(report.sha256), 'report.json') : undefined;
  return { results, ...(report && fromReport ? { report } : {}), data: fromReport ?? (await store.readJson<EvalReport>(results.sha256)) };
}

/** The adapter's own column of the report: the run labels it "candidate". */
export function candidateResult(report: EvalReport): EndpointResult | undefined {
  return report.results.find((r) => r.label === 'candidate') ?? report.results[0];
}

export interface MetricRow {
  /** model-index metric type (a stable id) and the name people read. */
  type: string;
  name: string;
  value: number | null;
  low?: number | null;
  high?: number | null;
}

const est = (type: string, name: string, e: Estimate): MetricRow => ({ type, name, value: e.value, low: e.low, high: e.high });

/** The headline metrics of one endpoint, in the order the card shows them. */
export function metricRows(r: EndpointResult): MetricRow[] {
  const m = r.metrics;
  return [
    est('exact_match', 'Exact match (tool + arguments)', m.exactMatch),
    est('tool_accuracy', 'Tool accuracy', m.toolAccuracy),
    est('abstention_precision', 'Abstention precision', m.abstention.precision),
    est('abstention_recall', 'Abstention recall', m.abstention.recall),
    est('abstention_f1', 'Abstention F1', m.abstention.f1),
    est('schema_valid_rate', 'Schema-valid rate', m.schemaValidRate),
    { type: 'latency_p50_ms', name: 'Latency p50 (ms)', value: m.latencyMs.p50 },
    { type: 'latency_p95_ms', name: 'Latency p95 (ms)', value: m.latencyMs.p95 },
    { type: 'cost_per_1k_decisions_usd', name: 'Cost per 1K decisions (USD)', value: m.costPer1K.dollars },
  ];
}
