/**
 * Send requests through a running router gateway as an agent would (its conversation, its tools, `metadata.domain`),
 * and read what the gateway says it did from its response headers: whether it escalated, how sure the router was.
 * Each answer is scored against the request's label, so a batch says how often the caller got the right decision.
 */
import OpenAI from 'openai';
import { scoreCase } from '../../core/eval/score.js';
import { parseAnswer, type AnswerMessage } from '../../core/router/answer.js';
import type { TrafficCase } from './bfcl-traffic.js';

export interface SentRequest {
  id: string;
  escalated: boolean;
  /** The router's confidence in its decision (x-flywheel-confidence); null without one. */
  confidence: number | null;
  /** The answer the caller got matched the label. */
  exact: boolean;
  latencyMs: number;
}

export async function sendThroughGateway(
  cases: readonly TrafficCase[],
  gatewayUrl: string,
  opts: { domain: string; model: string; timeoutMs: number; onProgress?: (done: number, total: number) => void },
): Promise<SentRequest[]> {
  const client = new OpenAI({ baseURL: gatewayUrl, apiKey: 'not-needed', maxRetries: 0, timeout: opts.timeoutMs });
  const sent: SentRequest[] = [];
  for (const c of cases) {
    const started = performance.now();
    const { data, response } = await client.chat.completions
      .create({
        model: opts.model,
        messages: c.request.messages as OpenAI.ChatCompletionMessageParam[],
        tools: c.request.tools as OpenAI.ChatCompletionTool[],
        metadata: { domain: opts.domain },
      })
      .withResponse();
    const latencyMs = performance.now() - started;
    const confidence = response.headers.get('x-flywheel-confidence');
    const scored = scoreCase(c.rendered, parseAnswer(data.choices[0]?.message as AnswerMessage | undefined), {
      latencyMs,
      promptTokens: data.usage?.prompt_tokens ?? 0,
      completionTokens: data.usage?.completion_tokens ?? 0,
    });
    sent.push({
      id: c.id,
      escalated: response.headers.get('x-flywheel-escalated') === 'true',
      confidence: confidence === null || confidence === '' ? null : Number(confidence),
      exact: scored.exact,
      latencyMs,
    });
    opts.onProgress?.(sent.length, cases.length);
  }
  return sent;
}
