import type { Calibration } from './calibration.js';
import type { CostConfig } from '../config/schema.js';
import type { ChatMessage, RenderedRow } from '../dataset/render.js';
import type { Target } from '../dataset/types.js';
import type { RetrieverRecall } from '../retrieve/recall.js';
import type { ScopeCheck } from '../scope-guard.js';
import type { BfclScore } from './bfcl/score.js';

/**
 * Contracts of the evaluation harness (DESIGN §3 "Eval report"). Pure data: the scorer, the aggregator,
 * the gate and the report renderers all work on these types, without Temporal or the network.
 */

/** One test case: the prompt exactly as training rendered it, the offered tools (with schemas), the target. */
export interface EvalCase {
  id: string;
  /** Server name the row belongs to; null when the test set does not say (standalone files). */
  domain: string | null;
  messages: ChatMessage[];
  tools: RenderedRow['tools'];
  target: Target;
  /** The caller's and the offered tools' scopes, when known: a call the caller may not make is scored as the
   * missing_scope violation the gateway answers in its place (core/scope-guard.ts). */
  scopes?: ScopeCheck;
}

/** What an endpoint answered, parsed (core/router/answer.ts). `kind: 'invalid'` keeps the raw text for the report. */
export type { Prediction } from '../router/answer.js';

/** Per-request measurements; tokens come from the endpoint's `usage`. */
export interface CallMeasure {
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  /** The request failed (HTTP/timeout) after retries; the case scores as invalid output. */
  error?: string;
}

/**
 * Error taxonomy, BFCL-style. Exactly one per case, checked in this order:
 * - correct            exact match (calls: tool + canonical arguments; no-calls: verdict + code)
 * - invalid_output     not router JSON / a tool call at all, or the request failed
 * - spurious_call      more than one call, or a call to a tool that was not offered
 * - missed_abstention  the target is a no-call, the model called a tool
 * - spurious_abstention the target is a call, the model abstained
 * - wrong_verdict      both no-calls, different verdict or code
 * - wrong_tool         both calls, different (offered) tool
 * - missing_required   right tool, a required argument is missing
 * - unexpected_argument right tool, an argument the schema does not define
 * - type_error         right tool, an argument has the wrong JSON type for its schema
 * - value_error        right tool, well-typed arguments, some value differs from the target
 */
export const ERROR_TYPES = [
  'invalid_output',
  'spurious_call',
  'missed_abstention',
  'spurious_abstention',
  'wrong_verdict',
  'wrong_tool',
  'missing_required',
  'unexpected_argument',
  'type_error',
  'value_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];
export type Outcome = 'correct' | ErrorType;

/** One scored case. `predictedTool`/`targetTool` use the label ABSTAIN for no-calls and INVALID for invalid output. */
export interface CaseResult {
  id: string;
  domain: string | null;
  targetTool: string;
  predictedTool: string;
  outcome: Outcome;
  exact: boolean;
  toolMatch: boolean;
  /** Target is a no-call / prediction is a no-call. */
  targetAbstains: boolean;
  predictedAbstains: boolean;
  /** A call whose arguments validate against the offered tool's input schema; null when the prediction is not a call. */
  schemaValid: boolean | null;
  /** Short human detail for errors ("missing required customer_id"). */
  detail: string;
  /** The model called a tool the caller lacks scopes for, answered as missing_scope ("called X; lacks Y"). */
  scopeRefused?: string;
  /**
   * With logprobs asked for: the probability of the decision's tool name tokens (null when they cannot be read: an
   * invalid answer, a decision the checks rewrote, no logprobs returned).
   */
  confidence?: number | null;
  /** The checks after the router (offer, grounding, schema) turned its call into a no-call. */
  rewritten?: boolean;
  measure: CallMeasure;
}

export const ABSTAIN = 'ABSTAIN';
export const INVALID = 'INVALID';

/** A point estimate with its percentile-bootstrap 95 % interval; null where the metric is undefined (no cases). */
export interface Estimate {
  value: number | null;
  low: number | null;
  high: number | null;
}

export interface RateRow {
  key: string;
  n: number;
  exact: number;
  toolAccuracy: number;
}

/** How cost per 1K decisions is computed for an endpoint (config `evaluate.cost`). */
export type CostModel = CostConfig;

export interface EvalMetrics {
  n: number;
  exactMatch: Estimate;
  toolAccuracy: Estimate;
  abstention: { precision: Estimate; recall: Estimate; f1: Estimate; support: number; predicted: number };
  /** Share of predicted calls whose arguments are schema-valid (null when the model made no calls). */
  schemaValidRate: Estimate;
  errors: Record<ErrorType, number>;
  perTool: RateRow[];
  perDomain: RateRow[];
  /** labels: tools + ABSTAIN (+ INVALID when present); matrix[targetIndex][predictedIndex] = count. */
  confusion: { labels: string[]; matrix: number[][] };
  latencyMs: { p50: number | null; p95: number | null; mean: number | null };
  tokens: { prompt: number; completion: number; perDecision: number | null };
  /** Dollars per 1,000 decisions; null with cost kind none. `basis` says how it was computed. */
  costPer1K: { dollars: number | null; basis: string };
  /** Decisions per second over the whole run at the run's concurrency (what gpu-hour cost uses). */
  throughputPerSecond: number | null;
  /** Calls the scope check answered as missing_scope (absent in reports from before it). */
  scopeRefusals?: number;
}

/** One scored endpoint. */
export interface EndpointResult {
  label: string;
  endpoint: string;
  model: string;
  metrics: EvalMetrics;
  cases: CaseResult[];
}

export interface LossPoint {
  step: number;
  loss?: number;
  evalLoss?: number;
}

export interface EvalReport {
  createdAt: string;
  /** sha256 of the test set artifact (or file) the cases came from. */
  testSet: { sha256: string; cases: number; source: string };
  /** Bootstrap resamples and seed, so intervals are reproducible. */
  bootstrap: { resamples: number; seed: number };
  results: EndpointResult[];
  /** The candidate's training curve, when the report comes from a run. */
  trainingCurve?: LossPoint[];
  /** Filled by the gate when the report comes from a run. */
  gate?: GateDecision;
  /** Run reports: the gateway's tool retriever on the frozen test set's calls (what serving parity can reach). */
  retriever?: RetrieverRecall;
  /** With evaluate.bfcl: the candidate (and the base before a first deploy) judged by BFCL's checker; not gated on. */
  bfcl?: BfclScore[];
  /** Run reports: the candidate's confidence against its exact match (core/eval/calibration.ts). */
  calibration?: Calibration;
}

export interface GateConfig {
  /** The candidate may trail production on exact match by at most this much (absolute), judged on the CI low bound of the paired difference. */
  margin: number;
  /** Abstention F1 may drop by at most this much (absolute) versus production. */
  abstentionF1Tolerance: number;
  /** With no production version yet: the candidate's exact match must reach this. */
  minExactMatch: number;
}

export interface GateDecision {
  promote: boolean;
  /** One line per rule checked, pass or fail, with the numbers. */
  reasons: string[];
  /** Paired bootstrap of candidate − production exact match; null when there is no production. */
  exactMatchDelta: Estimate | null;
  abstentionF1Delta: number | null;
  candidate: string;
  production: string | null;
}
