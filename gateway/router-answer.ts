/**
 * The router's answer at the gateway: read by the one contract (core/router/answer.ts) and put through the checks
 * every path applies (core/router/checks.ts: offer, grounding of ids, the tool's schema), whatever the backend. What the agent gets:
 * a call as OpenAI `tool_calls` (an engine under the answer schema writes it as router JSON in content), a no-call
 * as router JSON. With render the router saw only the retriever's slice: a call to a tool outside it that the agent
 * did offer is the router reaching past the retriever, and is answered as that call.
 */
import { decide, noCallJson, parseAnswer, toolCallMessage, type Decision } from '../core/router/answer.js';
import { checkAnswer, type AnswerContext } from '../core/router/checks.js';
import type { AssistantMessage } from '../core/router/confidence.js';

export interface RouterAnswer {
  decision: Decision;
  /** The message the agent gets (the backend's own when no check changed it). */
  message: AssistantMessage;
  /** The finish reason that goes with `message`, when it was rewritten. */
  finishReason?: string;
  notOffered?: string;
  beyondSlice?: string;
  ungrounded?: string[];
  dropped?: Record<string, unknown>;
  offSchema?: string;
  /** Why the checks turned the router's call into a no-call (the router's own decision was refused), if they did. */
  rewritten?: string;
}

export interface RouterAnswerContext {
  /** The tools the router was shown (the slice, with render); unknown when absent. */
  shown: readonly string[] | undefined;
  /** The tools the agent sent. */
  agent: readonly string[] | undefined;
  /** The agent's tool definitions and the conversation the router saw, for the grounding and schema checks. */
  tools: AnswerContext['tools'];
  messages: AnswerContext['messages'];
}

export function routerAnswer(message: AssistantMessage | undefined, ctx: RouterAnswerContext): RouterAnswer {
  const parsed = parseAnswer(message);
  const named = parsed.kind === 'call' && parsed.extraCalls === 0 ? parsed.tool : null;
  const beyondSlice =
    named && ctx.shown && !ctx.shown.includes(named) && ctx.agent?.includes(named) ? named : undefined;
  const checked = checkAnswer(parsed, {
    offered: ctx.shown && beyondSlice ? [...ctx.shown, beyondSlice] : ctx.shown,
    ...(ctx.tools ? { tools: ctx.tools } : {}),
    ...(ctx.messages ? { messages: ctx.messages } : {}),
  });
  const decision = decide(checked.prediction);
  const notes = {
    ...(checked.notOffered ? { notOffered: checked.notOffered } : {}),
    ...(beyondSlice ? { beyondSlice } : {}),
    ...(checked.ungrounded ? { ungrounded: checked.ungrounded } : {}),
    ...(checked.dropped ? { dropped: checked.dropped } : {}),
    ...(checked.offSchema ? { offSchema: checked.offSchema } : {}),
  };
  const original = message ?? { role: 'assistant', content: null };
  if (decision.kind === 'call') {
    const asIs = original.tool_calls?.length === 1 && !checked.dropped;
    return asIs
      ? { decision, message: original, ...notes }
      : {
          decision,
          message: toolCallMessage(decision.tool, decision.arguments) as AssistantMessage,
          finishReason: 'tool_calls',
          ...notes,
        };
  }
  if (decision.kind === 'no-call' && (checked.notOffered || checked.ungrounded || checked.offSchema))
    return {
      decision,
      message: { role: 'assistant', content: noCallJson(decision.verdict, decision.code) },
      finishReason: 'stop',
      ...notes,
      rewritten: checked.notOffered
        ? `${checked.notOffered} not offered`
        : checked.ungrounded
          ? `ungrounded ${checked.ungrounded.join(', ')}`
          : `off schema: ${checked.offSchema}`,
    };
  return { decision, message: original, ...notes };
}
