/**
 * An endpoint scored on BFCL categories: every question asked once (the eval harness), every answer judged by
 * BFCL's own checker, and our metrics on the same answers beside BFCL's, per category.
 */
import { estimate } from '../bootstrap.js';
import type { EndpointSpec } from '../client.js';
import { evaluateEndpoint } from '../evaluate-endpoint.js';
import type { EvaluateOptions } from '../evaluate.js';
import type { CaseResult, Estimate, EvalMetrics, Prediction } from '../types.js';
import { toBfclCalls } from './calls.js';
import type { BfclCase } from './cases.js';
import type { BfclCategory, BfclModelResult } from './data.js';
import { judgeBfcl } from './judge.js';

export interface BfclCaseResult extends CaseResult {
  /** The answer as BFCL's checker read it, and its verdict. */
  bfcl: { output: BfclModelResult; valid: boolean; errorType: string; error: string };
}

export interface BfclCategoryScore {
  category: BfclCategory;
  n: number;
  /** BFCL's metric: the share of answers its checker passes (AST match; no call for irrelevance). */
  accuracy: Estimate;
  /** BFCL's error types among the answers it failed, with counts. */
  errorTypes: Record<string, number>;
  /** Ours on the same answers: exact against the first acceptable answer, tool accuracy, abstention F1, latency, cost. */
  ours: EvalMetrics;
  cases: BfclCaseResult[];
}

export interface BfclScore {
  label: string;
  endpoint: string;
  model: string;
  categories: BfclCategoryScore[];
}

export interface BfclScoreOptions extends Omit<EvaluateOptions, 'onProgress' | 'onPrediction'> {
  onProgress?: (category: BfclCategory, done: number, total: number) => void;
}

/** Score one endpoint on each category's cases, category after category. */
export async function scoreBfcl(
  groups: Array<{ category: BfclCategory; cases: BfclCase[] }>,
  spec: EndpointSpec,
  opts: BfclScoreOptions,
): Promise<BfclScore> {
  const categories: BfclCategoryScore[] = [];
  for (const { category, cases } of groups) {
    const predictions = new Map<string, Prediction>();
    const result = await evaluateEndpoint(
      cases.map((c) => c.case),
      spec,
      {
        ...opts,
        onProgress: (done, total) => opts.onProgress?.(category, done, total),
        onPrediction: (c, p) => predictions.set(c.id, p),
      },
    );
    const outputs = cases.map((c) => toBfclCalls(predictions.get(c.case.id)!, c.names));
    const verdicts = await judgeBfcl(cases.map((c, i) => ({ id: c.case.id, category, output: outputs[i]! })));
    const scored: BfclCaseResult[] = result.cases.map((r, i) => ({
      ...r,
      bfcl: {
        output: outputs[i]!,
        valid: verdicts[i]!.valid,
        errorType: verdicts[i]!.error_type,
        error: verdicts[i]!.error,
      },
    }));
    const errorTypes: Record<string, number> = {};
    for (const v of verdicts) if (!v.valid) errorTypes[v.error_type] = (errorTypes[v.error_type] ?? 0) + 1;
    categories.push({
      category,
      n: cases.length,
      accuracy: estimate(
        scored.length,
        (idx) => (idx.length ? idx.filter((i) => scored[i]!.bfcl.valid).length / idx.length : null),
        opts.bootstrap,
      ),
      errorTypes,
      ours: result.metrics,
      cases: scored,
    });
  }
  return { label: spec.label, endpoint: spec.baseUrl, model: spec.model, categories };
}
