import { chatClient, type EndpointSpec } from './client.js';
import { scoreEndpoint, type EvaluateOptions } from './evaluate.js';
import type { EndpointResult, EvalCase } from './types.js';

/** Score an OpenAI-compatible endpoint on the cases: its chat client, then the scoring (core/eval/evaluate.ts). */
export function evaluateEndpoint(
  cases: EvalCase[],
  spec: EndpointSpec,
  opts: EvaluateOptions,
): Promise<EndpointResult> {
  return scoreEndpoint(cases, spec, chatClient(spec, opts), opts);
}
