/** What the router decided, and how sure it was: pure functions over an OpenAI chat completion choice. */

export interface AssistantMessage {
  role?: string;
  content?: string | null;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string } }>;
  [k: string]: unknown;
}

export type Decision =
  | { kind: 'call'; tool: string; arguments: Record<string, unknown>; callId: string | null }
  | { kind: 'abstain'; verdict: string | null; code: string | null; reason: string | null }
  | { kind: 'invalid'; detail: string };

export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: unknown[];
}

/** `choices[i].logprobs` as OpenAI (and vLLM, and the trainer's serve) return it. */
export interface ChoiceLogprobs {
  content?: TokenLogprob[] | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Hermes-format adapters answer `<tool_call>{"name", "arguments"}</tool_call>` when the backend does not convert it. */
const HERMES = /^\s*<tool_call>\s*(\{[\s\S]*\})\s*<\/tool_call>\s*$/;

/**
 * A call (OpenAI tool_calls, or router JSON `{"tool": NAME, "arguments": {...}}` in content), an abstention
 * (router JSON with `"tool": null`), or invalid (anything else). With `offered`, a call to a tool that was
 * not offered is invalid too.
 */
export function decisionOf(message: AssistantMessage | null | undefined, offered?: string[]): Decision {
  if (!message) return { kind: 'invalid', detail: 'no assistant message' };
  const calls = message.tool_calls ?? [];
  if (calls.length > 1)
    return { kind: 'invalid', detail: `${calls.length} parallel tool calls; a router decision is one call` };
  if (calls.length === 1) {
    const c = calls[0]!;
    const name = c.function?.name;
    if (typeof name !== 'string' || !name) return { kind: 'invalid', detail: 'tool call without function.name' };
    let args: unknown;
    try {
      args = JSON.parse(c.function?.arguments || '{}');
    } catch {
      return { kind: 'invalid', detail: `tool call ${name}: arguments are not JSON` };
    }
    return callOf(name, args, c.id ?? null, offered);
  }
  const text = typeof message.content === 'string' ? message.content.trim() : '';
  if (!text) return { kind: 'invalid', detail: 'empty answer: no tool call and no content' };
  const hermes = HERMES.exec(text);
  let obj: unknown;
  try {
    obj = JSON.parse(hermes ? hermes[1]! : text);
  } catch {
    return { kind: 'invalid', detail: `content is not router JSON: ${text.slice(0, 80)}` };
  }
  if (!isObject(obj)) return { kind: 'invalid', detail: 'content JSON is not an object' };
  if (hermes)
    return typeof obj.name === 'string'
      ? callOf(obj.name, obj.arguments ?? {}, null, offered)
      : { kind: 'invalid', detail: 'hermes tool_call without a name' };
  if (!('tool' in obj)) return { kind: 'invalid', detail: 'content JSON has no "tool" key' };
  if (obj.tool === null) {
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return { kind: 'abstain', verdict: str(obj.verdict), code: str(obj.code), reason: str(obj.reason) };
  }
  if (typeof obj.tool !== 'string' || !obj.tool)
    return { kind: 'invalid', detail: '"tool" is neither a tool name nor null' };
  return callOf(obj.tool, obj.arguments ?? {}, null, offered);
}

function callOf(tool: string, args: unknown, callId: string | null, offered?: string[]): Decision {
  if (!isObject(args)) return { kind: 'invalid', detail: `call ${tool}: arguments are not a JSON object` };
  if (offered && !offered.includes(tool))
    return { kind: 'invalid', detail: `call ${tool}: not one of the offered tools` };
  return { kind: 'call', tool, arguments: args, callId };
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
