import { aggregate } from './metrics.js';
import type { CostModel, EndpointResult } from './types.js';

/**
 * Chunks of one evaluation (each scored every endpoint on its slice of the cases, in order) as one result per
 * endpoint: the cases concatenated in chunk order and the metrics aggregated over all of them, so rates, intervals
 * and confusion are those of an unchunked run on the same answers. Throughput and cost count the chunks' own time
 * added up (device time), not the wall clock of chunks that ran side by side.
 */
export function mergeEndpointResults(
  chunks: EndpointResult[][],
  opts: { bootstrap: { resamples: number; seed: number }; costOf: (label: string) => CostModel },
): EndpointResult[] {
  const first = chunks[0] ?? [];
  return first.map((endpoint) => {
    const parts = chunks.map((chunk, i) => {
      const match = chunk.find((r) => r.label === endpoint.label);
      if (!match) throw new Error(`chunk ${i} of the evaluation has no ${endpoint.label} results`);
      return match;
    });
    const cases = parts.flatMap((p) => p.cases);
    const wallSeconds = parts.reduce(
      (s, p) => s + (p.metrics.throughputPerSecond ? p.metrics.n / p.metrics.throughputPerSecond : 0),
      0,
    );
    return {
      ...endpoint,
      cases,
      metrics: aggregate(cases, { bootstrap: opts.bootstrap, cost: opts.costOf(endpoint.label), wallSeconds }),
    };
  });
}
