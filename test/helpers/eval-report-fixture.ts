import {
  ABSTAIN,
  ERROR_TYPES,
  INVALID,
  type CaseResult,
  type ErrorType,
  type EvalMetrics,
  type EvalReport,
  type Outcome,
} from '../../core/eval/types.js';

/**
 * Hand-made EvalReports for the renderer tests. Metrics are literal values written to match the
 * cases (not computed), so these tests do not depend on the metrics code.
 */

/** A tool name that breaks HTML if unescaped, and a markdown table if `|` is not escaped. */
export const NASTY_TOOL = `evil<b>&"|'tool`;
const LABELS = ['get_customer', 'search_orders', NASTY_TOOL, ABSTAIN, INVALID];

function kase(
  id: string,
  domain: string | null,
  target: string,
  predicted: string,
  outcome: Outcome,
  latencyMs: number,
  detail = '',
): CaseResult {
  const call = (t: string): boolean => t !== ABSTAIN && t !== INVALID;
  return {
    id,
    domain,
    targetTool: target,
    predictedTool: predicted,
    outcome,
    exact: outcome === 'correct',
    toolMatch: target === predicted,
    targetAbstains: target === ABSTAIN,
    predictedAbstains: predicted === ABSTAIN,
    schemaValid: call(predicted) ? !['missing_required', 'unexpected_argument', 'type_error'].includes(outcome) : null,
    detail,
    measure: { latencyMs, promptTokens: 400, completionTokens: 30 },
  };
}

function errors(partial: Partial<Record<ErrorType, number>>): Record<ErrorType, number> {
  return Object.fromEntries(ERROR_TYPES.map((t) => [t, partial[t] ?? 0])) as Record<ErrorType, number>;
}

const est = (value: number | null, low: number | null, high: number | null) => ({ value, low, high });

export function sampleReport(): EvalReport {
  const candidateCases = [
    kase('c1', 'crm', 'get_customer', 'get_customer', 'correct', 110),
    kase('c2', 'shop', 'search_orders', 'search_orders', 'correct', 125),
    kase('c3', 'crm', ABSTAIN, ABSTAIN, 'correct', 90),
    kase('c4', 'shop', NASTY_TOOL, NASTY_TOOL, 'correct', 140),
    kase('c5', 'crm', 'get_customer', ABSTAIN, 'spurious_abstention', 95, 'abstained: <no tool fits>'),
    kase('c6', 'shop', 'search_orders', INVALID, 'invalid_output', 300, 'not JSON: "<html>"'),
  ];
  const productionCases = [
    kase('c1', 'crm', 'get_customer', 'get_customer', 'correct', 210),
    kase('c2', 'shop', 'search_orders', 'get_customer', 'wrong_tool', 230, 'called get_customer'),
    kase('c3', 'crm', ABSTAIN, 'search_orders', 'missed_abstention', 250, 'called search_orders'),
    kase('c4', 'shop', NASTY_TOOL, NASTY_TOOL, 'correct', 190),
    kase('c5', 'crm', 'get_customer', 'get_customer', 'correct', 220),
    kase('c6', 'shop', 'search_orders', 'search_orders', 'missing_required', 480, 'missing required status'),
  ];
  const candidate: EvalMetrics = {
    n: 6,
    exactMatch: est(0.667, 0.333, 1),
    toolAccuracy: est(0.667, 0.333, 1),
    abstention: { precision: est(0.5, 0, 1), recall: est(1, 1, 1), f1: est(0.667, 0, 1), support: 1, predicted: 2 },
    schemaValidRate: est(1, 1, 1),
    errors: errors({ spurious_abstention: 1, invalid_output: 1 }),
    perTool: [
      { key: 'get_customer', n: 2, exact: 0.5, toolAccuracy: 0.5 },
      { key: 'search_orders', n: 2, exact: 0.5, toolAccuracy: 0.5 },
      { key: NASTY_TOOL, n: 1, exact: 1, toolAccuracy: 1 },
      { key: ABSTAIN, n: 1, exact: 1, toolAccuracy: 1 },
    ],
    perDomain: [
      { key: 'crm', n: 3, exact: 0.667, toolAccuracy: 0.667 },
      { key: 'shop', n: 3, exact: 0.667, toolAccuracy: 0.667 },
    ],
    confusion: {
      labels: LABELS,
      matrix: [
        [1, 0, 0, 1, 0],
        [0, 1, 0, 0, 1],
        [0, 0, 1, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 0],
      ],
    },
    latencyMs: { p50: 117.5, p95: 260, mean: 143.3 },
    tokens: { prompt: 2400, completion: 180, perDecision: 430 },
    costPer1K: { dollars: 0.0123, basis: 'gpu-hour $1.20 at 27.1 decisions/s' },
    throughputPerSecond: 27.1,
  };
  const production: EvalMetrics = {
    n: 6,
    exactMatch: est(0.5, 0.167, 0.833),
    toolAccuracy: est(0.667, 0.333, 1),
    // Production never abstained: precision is undefined.
    abstention: {
      precision: est(null, null, null),
      recall: est(0, 0, 0),
      f1: est(null, null, null),
      support: 1,
      predicted: 0,
    },
    schemaValidRate: est(0.833, 0.5, 1),
    errors: errors({ wrong_tool: 1, missed_abstention: 1, missing_required: 1 }),
    perTool: [
      { key: 'get_customer', n: 2, exact: 1, toolAccuracy: 1 },
      { key: 'search_orders', n: 2, exact: 0, toolAccuracy: 0.5 },
      { key: NASTY_TOOL, n: 1, exact: 1, toolAccuracy: 1 },
      { key: ABSTAIN, n: 1, exact: 0, toolAccuracy: 0 },
    ],
    perDomain: [
      { key: 'crm', n: 3, exact: 0.667, toolAccuracy: 0.667 },
      { key: 'shop', n: 3, exact: 0.333, toolAccuracy: 0.667 },
    ],
    confusion: {
      labels: LABELS.slice(0, 4),
      matrix: [
        [2, 0, 0, 0],
        [1, 1, 0, 0],
        [0, 0, 1, 0],
        [0, 1, 0, 0],
      ],
    },
    latencyMs: { p50: 225, p95: 420, mean: 263.3 },
    tokens: { prompt: 2400, completion: 200, perDecision: 433.3 },
    costPer1K: { dollars: 0.0188, basis: 'gpu-hour $1.20 at 17.7 decisions/s' },
    throughputPerSecond: 17.7,
  };
  return {
    createdAt: '2025-01-02T03:04:05.000Z',
    testSet: { sha256: 'abcdef0123456789'.repeat(4), cases: 6, source: 'artifact://testset/v3' },
    bootstrap: { resamples: 1000, seed: 7 },
    results: [
      {
        label: 'candidate',
        endpoint: 'http://127.0.0.1:8001/v1',
        model: 'router-v4',
        metrics: candidate,
        cases: candidateCases,
      },
      {
        label: 'production',
        endpoint: 'http://127.0.0.1:8002/v1',
        model: 'router-v3',
        metrics: production,
        cases: productionCases,
      },
    ],
    trainingCurve: [
      { step: 0, loss: 2.4 },
      { step: 50, loss: 1.1, evalLoss: 1.3 },
      { step: 100, loss: 0.7 },
      { step: 150, loss: 0.5, evalLoss: 0.8 },
      { step: 200, loss: 0.42, evalLoss: 0.75 },
    ],
    gate: {
      promote: true,
      reasons: [
        'exact match Δ low bound +0.01 ≥ -0.02 (margin 0.02): pass',
        'abstention F1: production has none, not compared: pass',
      ],
      exactMatchDelta: est(0.167, 0.01, 0.33),
      abstentionF1Delta: null,
      candidate: 'router-v4',
      production: 'router-v3',
    },
  };
}

/** One endpoint with no cases: every estimate and measure null, empty tables. */
export function emptyReport(): EvalReport {
  const none = est(null, null, null);
  const metrics: EvalMetrics = {
    n: 0,
    exactMatch: none,
    toolAccuracy: none,
    abstention: { precision: none, recall: none, f1: none, support: 0, predicted: 0 },
    schemaValidRate: none,
    errors: errors({}),
    perTool: [],
    perDomain: [],
    confusion: { labels: [], matrix: [] },
    latencyMs: { p50: null, p95: null, mean: null },
    tokens: { prompt: 0, completion: 0, perDecision: null },
    costPer1K: { dollars: null, basis: 'none' },
    throughputPerSecond: null,
  };
  return {
    createdAt: '2025-01-02T03:04:05.000Z',
    testSet: { sha256: '0'.repeat(64), cases: 0, source: 'empty.jsonl' },
    bootstrap: { resamples: 1000, seed: 7 },
    results: [{ label: 'candidate', endpoint: 'http://127.0.0.1:8001/v1', model: 'router-v4', metrics, cases: [] }],
  };
}
