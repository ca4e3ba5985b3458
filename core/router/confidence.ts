/**
 * How sure the router was of its decision: a pure function over an OpenAI chat completion choice. What it decided
 * is read by the router contract (core/router/answer.ts).
 */

export interface AssistantMessage {
  role?: string;
  content?: string | null;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string } }>;
  [k: string]: unknown;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: unknown[];
}

/** `choices[i].logprobs` as OpenAI (and vLLM, and the trainer's serve) return it. */
export interface ChoiceLogprobs {
  content?: TokenLogprob[] | null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The probability the model gave its choice: exp of the summed logprobs of the tokens that overlap the tool
 * name (or, for an abstention, the `null` after `"tool":`) in the generated text. The text is the concatenation
 * of the logprob tokens. The last `"tool":` (or Hermes `"name":`) key holding that value is used: canonical
 * router JSON puts `tool` after `arguments`, and a quote inside a string value is escaped, so neither can fake it.
 * Null when there are no logprobs or the choice cannot be found in them.
 */
export function toolConfidence(logprobs: ChoiceLogprobs | null | undefined, toolName: string | null): number | null {
  const tokens = logprobs?.content;
  if (!Array.isArray(tokens) || tokens.length === 0) return null;
  const text = tokens.map((t) => t.token).join('');
  const value = toolName === null ? 'null' : `"${escapeRegExp(JSON.stringify(toolName).slice(1, -1))}"`;
  const keys = toolName === null ? 'tool' : '(?:tool|name)';
  const re = new RegExp(`(?<!\\\\)"${keys}"\\s*:\\s*(${value})`, 'g');
  let span: [number, number] | null = null;
  for (const m of text.matchAll(re)) {
    const at = m.index! + m[0].length - m[1]!.length;
    // For a name, the span is inside the quotes; for null, the literal itself.
    span = toolName === null ? [at, at + m[1]!.length] : [at + 1, at + m[1]!.length - 1];
  }
  if (!span) return null;
  let sum = 0;
  let pos = 0;
  let overlapped = false;
  for (const t of tokens) {
    const end = pos + t.token.length;
    if (pos < span[1] && end > span[0]) {
      if (typeof t.logprob !== 'number' || Number.isNaN(t.logprob)) return null;
      sum += t.logprob;
      overlapped = true;
    }
    pos = end;
  }
  return overlapped ? Math.exp(sum) : null;
}

/** What the router's confidence is the probability of: its chosen tool's name (or abstention), or its whole answer. */
export const CONFIDENCE_SIGNALS = ['tool', 'answer'] as const;
export type ConfidenceSignal = (typeof CONFIDENCE_SIGNALS)[number];

/**
 * The probability the model gave its whole answer as written: exp of the summed logprobs of every token. A router
 * that names the right tool can still write a wrong value, and once a request's words point at a tool its name is
 * near certain, so the name alone says little about the values. Null where toolConfidence is null (no logprobs, or
 * an answer whose tokens do not spell the decision, as when the offer check rewrote it).
 */
export function answerConfidence(logprobs: ChoiceLogprobs | null | undefined, toolName: string | null): number | null {
  if (toolConfidence(logprobs, toolName) === null) return null;
  let sum = 0;
  for (const t of logprobs!.content!) {
    if (typeof t.logprob !== 'number' || Number.isNaN(t.logprob)) return null;
    sum += t.logprob;
  }
  return Math.exp(sum);
}

/** The decision's confidence read as `signal` says (the gateway's `confidence`, the eval's `calibration.confidence`). */
export function decisionConfidence(
  signal: ConfidenceSignal,
  logprobs: ChoiceLogprobs | null | undefined,
  toolName: string | null,
): number | null {
  return signal === 'answer' ? answerConfidence(logprobs, toolName) : toolConfidence(logprobs, toolName);
}
