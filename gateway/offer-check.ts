/**
 * The offer check at the gateway (core/offer-check.ts), for any backend. `flywheel serve` answers a call to a tool
 * it was not offered as the tool_not_offered no-call and names the call in `message.flywheel` (notOffered,
 * arguments); another backend returns the call itself. With `render`, the router saw only the retriever's slice:
 * a call to a tool outside it that the agent did offer is the router reaching past the retriever, and is answered
 * as that call.
 */
import { randomUUID } from 'node:crypto';
import { isNotOffered, NOT_OFFERED } from '../core/offer-check.js';
import { decisionOf, type AssistantMessage } from './confidence.js';

export type OfferOutcome =
  | { kind: 'offered' }
  | { kind: 'not-offered'; tool: string }
  | { kind: 'beyond-slice'; tool: string; arguments: Record<string, unknown> };

/** The call the router named, if it named one: from serve's `message.flywheel`, else the answer itself. */
export function namedCall(
  message: AssistantMessage | undefined,
): { tool: string; arguments: Record<string, unknown> } | null {
  const flywheel = message?.flywheel as { notOffered?: unknown; arguments?: unknown } | undefined;
  if (typeof flywheel?.notOffered === 'string') {
    const args = flywheel.arguments;
    return {
      tool: flywheel.notOffered,
      arguments: args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
    };
  }
  const d = decisionOf(message);
  return d.kind === 'call' ? { tool: d.tool, arguments: d.arguments } : null;
}

/** `shown`: the tools the router was offered (the slice, with render); `agent`: the tools the agent sent. */
export function offerOutcome(
  message: AssistantMessage | undefined,
  shown: readonly string[] | undefined,
  agent: readonly string[] | undefined,
): OfferOutcome {
  const named = namedCall(message);
  if (!named || !isNotOffered(named.tool, shown)) return { kind: 'offered' };
  if (agent?.includes(named.tool)) return { kind: 'beyond-slice', ...named };
  return { kind: 'not-offered', tool: named.tool };
}

/** The assistant message the agent gets for an outcome other than `offered`. */
export function answerFor(outcome: Exclude<OfferOutcome, { kind: 'offered' }>): AssistantMessage {
  if (outcome.kind === 'not-offered') return { role: 'assistant', content: JSON.stringify(NOT_OFFERED) };
  return callMessage(outcome.tool, outcome.arguments);
}

/** A call as OpenAI `tool_calls`, the way serve answers one and an agent expects it. */
export function callMessage(tool: string, args: Record<string, unknown>): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
        type: 'function',
        function: { name: tool, arguments: JSON.stringify(args) },
      },
    ],
  };
}
