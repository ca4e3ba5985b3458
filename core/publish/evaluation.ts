import type { ArtifactStore, Manifest } from '../artifacts/index.js';
import type { EndpointResult, EvalReport, Estimate } from '../eval/types.js';
import { shortSha } from '../hash.js';
import { readTreeJson } from './blobs.js';
import { gatedVersions } from './deployed.js';
import type { LineageIndex } from './lineage-index.js';

/** An adapter's evaluation as the run stored it: eval-results (made from the adapter), eval-report (with the gate). */
export interface Evaluation {
  results: Manifest;
  report?: Manifest;
  data: EvalReport;
  /** The deploy registry version whose gate read this report, when it came from the registry. */
  deployed?: { version: string; alias: string };
}

async function load(store: ArtifactStore, results: Manifest, report: Manifest | undefined): Promise<Evaluation> {
  const fromReport = report
    ? await readTreeJson<EvalReport>(store, await store.readTree(report.sha256), 'report.json')
    : undefined;
  return {
    results,
    ...(report && fromReport ? { report } : {}),
    data: fromReport ?? (await store.readJson<EvalReport>(results.sha256)),
  };
}

/**
 * The adapter's evaluation: with a deploy registry, the eval report a deployed version of it was gated on
 * (what people saw before it served traffic); otherwise, or when that report is not in this store, the
 * newest eval-results made from it and, when the gate ran, the eval-report made from those.
 */
export async function findEvaluation(
  store: ArtifactStore,
  index: LineageIndex,
  adapter: Manifest,
  registry?: string,
  notes: string[] = [],
): Promise<Evaluation | undefined> {
  const newest = index.children(adapter.sha256, 'eval-results')[0];
  for (const g of registry ? await gatedVersions(registry, adapter.sha256) : []) {
    const report = index.manifest(g.evalReport);
    const results = index.parentOfKind(report, 'eval-results');
    if (report?.kind !== 'eval-report' || !results?.parents.includes(adapter.sha256)) {
      notes.push(
        `deployed version ${g.version} names eval report ${shortSha(g.evalReport)}, which is not an evaluation of this adapter in this store`,
      );
      continue;
    }
    if (newest && newest.sha256 !== results.sha256)
      notes.push(
        `using the evaluation deployed version ${g.version} was gated on; a newer one exists (eval-results ${shortSha(newest.sha256)})`,
      );
    return { ...(await load(store, results, report)), deployed: { version: g.version, alias: g.alias } };
  }
  return newest ? load(store, newest, index.children(newest.sha256, 'eval-report')[0]) : undefined;
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

const est = (type: string, name: string, e: Estimate): MetricRow => ({
  type,
  name,
  value: e.value,
  low: e.low,
  high: e.high,
});

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
