import { pool } from '../pool.js';
import type { Ask, EndpointSpec } from './client.js';
import { aggregate } from './metrics.js';
import { parseAnswer } from '../router/answer.js';
import { checkAnswer } from '../router/checks.js';
import { decisionConfidence } from '../router/confidence.js';
import { scoreCase } from './score.js';
import type { CaseResult, EndpointResult, EvalCase, Prediction } from './types.js';

export interface EvaluateOptions {
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  /** Tokens an answer may take (the client's default when unset). */
  maxTokens?: number;
  bootstrap: { resamples: number; seed: number };
  /** Called after every case (heartbeats, progress lines). */
  onProgress?: (done: number, total: number) => void;
  /** Called with each answer as the checks left it, the answer a user gets (BFCL's checker judges this one); a
   * failed request is an invalid prediction. */
  onPrediction?: (c: EvalCase, p: Prediction) => void;
  /** False: no grounding or schema check (core/router/checks.ts), to score the arguments as the weights wrote
   * them. Default on. */
  argumentChecks?: boolean;
}

/**
 * Score one endpoint on the cases, asking it through `ask` (what `chatClient` makes of the spec, in
 * core/eval/evaluate-endpoint.ts): every case is asked once, parsed, scored; the aggregate carries bootstrap
 * intervals and the cost per 1K decisions at the throughput measured here. A request that still fails after
 * the SDK's retries scores as invalid output (its error is kept on the case), so one flaky case cannot sink
 * the whole evaluation — but an endpoint that fails every request is an error, not a score of zero.
 */
export async function scoreEndpoint(
  cases: EvalCase[],
  spec: EndpointSpec,
  ask: Ask,
  opts: EvaluateOptions,
): Promise<EndpointResult> {
  let done = 0;
  const started = performance.now();
  const results: CaseResult[] = await pool(cases, opts.concurrency, async (c) => {
    let result: CaseResult;
    const asked = performance.now();
    try {
      const answer = await ask(c.messages, c.tools);
      const parsed = parseAnswer(answer.message);
      // The checks every path applies after the router (core/router/checks.ts), whatever the endpoint.
      const checked = checkAnswer(parsed, {
        offered: c.tools.map((t) => t.function.name),
        tools: c.tools,
        messages: c.messages,
        argumentChecks: opts.argumentChecks !== false,
        ...(c.scopes ? { scopes: c.scopes } : {}),
      });
      opts.onPrediction?.(c, checked.prediction);
      result = scoreCase(c, checked.prediction, {
        latencyMs: answer.latencyMs,
        promptTokens: answer.promptTokens,
        completionTokens: answer.completionTokens,
      });
      // The schema-valid rate is the answer's as written: a call the schema check turned into a no-call broke it.
      if (checked.offSchema) result = { ...result, schemaValid: false };
      // The router's call refused by the contract's checks: the gateway escalates it by rule (escalation.on rewritten).
      if (checked.prediction.kind === 'no-call' && (checked.notOffered || checked.ungrounded || checked.offSchema))
        result.rewritten = true;
      // How sure it was of the decision it stands by, read as the gateway reads it before escalating.
      if (spec.logprobs) {
        const p = checked.prediction;
        result.confidence =
          p.kind === 'invalid'
            ? null
            : decisionConfidence(spec.confidence ?? 'tool', answer.logprobs, p.kind === 'call' ? p.tool : null);
      }
    } catch (err) {
      // The time spent failing counts (a flaky endpoint must not look fast); no usage came back, so no tokens.
      const error = (err as Error).message;
      opts.onPrediction?.(c, { kind: 'invalid', raw: '', problem: error });
      result = scoreCase(
        c,
        { kind: 'invalid', raw: '', problem: error },
        { latencyMs: performance.now() - asked, promptTokens: 0, completionTokens: 0, error },
      );
    }
    opts.onProgress?.(++done, cases.length);
    return result;
  });
  const failed = results.filter((r) => r.measure.error);
  if (cases.length > 0 && failed.length === cases.length) {
    throw new Error(
      `${spec.label} (${spec.baseUrl}, model ${spec.model}): every request failed; first error: ${failed[0]!.measure.error}`,
    );
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const metrics = aggregate(results, { bootstrap: opts.bootstrap, cost: spec.cost, wallSeconds });
  return { label: spec.label, endpoint: spec.baseUrl, model: spec.model, metrics, cases: results };
}
