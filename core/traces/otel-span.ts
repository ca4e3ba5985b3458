/**
 * A gateway decision as the attributes of one OpenTelemetry GenAI inference span (semantic conventions v1.37,
 * Development): what was asked and answered, by which version, and whether it escalated. Content (messages, tool
 * definitions) only when capture is on, as the convention asks. core/traces/formats/otel-genai.ts reads these back.
 */
import type { Trace, TraceMessage } from './types.js';

export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/** The gateway's own attributes beside the convention's: the caller and the cascade, which a next run needs. */
export const FLYWHEEL_ATTRIBUTES = {
  domain: 'flywheel.domain',
  caller: 'flywheel.caller.name',
  scopes: 'flywheel.caller.scopes',
  version: 'flywheel.version',
  escalated: 'flywheel.escalated',
  confidence: 'flywheel.confidence',
  reason: 'flywheel.escalation.reason',
} as const;

export interface DecisionSpan {
  /** The model the agent asked for (an alias or a pinned version). */
  requestModel: string;
  /** Who answered: the version, or the frontier model when it escalated. */
  responseModel: string;
  finishReason: string | null;
  usage: { input: number; output: number } | null;
}

/** Messages in the convention's `{role, parts}` shape: text, tool_call{id,name,arguments}, tool_call_response. */
export function partsOf(messages: readonly TraceMessage[]): Array<Record<string, unknown>> {
  return messages.map((m) => {
    if (m.role === 'tool')
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content ?? '' }] };
    const parts: Array<Record<string, unknown>> = [];
    if (typeof m.content === 'string' && m.content !== '') parts.push({ type: 'text', content: m.content });
    for (const c of m.tool_calls ?? []) {
      let args: unknown = c.function.arguments;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        // Kept as the text the model wrote.
      }
      parts.push({ type: 'tool_call', id: c.id, name: c.function.name, arguments: args });
    }
    return { role: m.role, parts };
  });
}

export function decisionSpanAttributes(trace: Trace, d: DecisionSpan, captureContent: boolean): SpanAttributes {
  const meta = trace.metadata ?? {};
  const gateway = (meta.gateway ?? {}) as {
    version?: string;
    escalated?: boolean;
    confidence?: number | null;
    reason?: string | null;
  };
  const a: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'flywheel',
    'gen_ai.request.model': d.requestModel,
    'gen_ai.response.model': d.responseModel,
  };
  if (d.finishReason) a['gen_ai.response.finish_reasons'] = [d.finishReason];
  if (d.usage) {
    a['gen_ai.usage.input_tokens'] = d.usage.input;
    a['gen_ai.usage.output_tokens'] = d.usage.output;
  }
  if (typeof meta.domain === 'string') a[FLYWHEEL_ATTRIBUTES.domain] = meta.domain;
  if (typeof meta.persona === 'string') a[FLYWHEEL_ATTRIBUTES.caller] = meta.persona;
  if (Array.isArray(meta.scopes)) a[FLYWHEEL_ATTRIBUTES.scopes] = meta.scopes;
  if (gateway.version) a[FLYWHEEL_ATTRIBUTES.version] = gateway.version;
  if (typeof gateway.escalated === 'boolean') a[FLYWHEEL_ATTRIBUTES.escalated] = gateway.escalated;
  if (typeof gateway.confidence === 'number') a[FLYWHEEL_ATTRIBUTES.confidence] = gateway.confidence;
  if (gateway.reason) a[FLYWHEEL_ATTRIBUTES.reason] = gateway.reason;
  if (!captureContent) return a;
  const system = trace.messages.filter((m) => m.role === 'system');
  const conversation = trace.messages.filter((m) => m.role !== 'system');
  const answer = conversation.at(-1);
  if (system.length)
    a['gen_ai.system_instructions'] = JSON.stringify(system.map((m) => ({ type: 'text', content: m.content ?? '' })));
  a['gen_ai.input.messages'] = JSON.stringify(partsOf(conversation.slice(0, -1)));
  if (answer)
    a['gen_ai.output.messages'] = JSON.stringify(
      partsOf([answer]).map((m) => ({ ...m, finish_reason: d.finishReason ?? 'stop' })),
    );
  if (trace.tools?.length)
    a['gen_ai.tool.definitions'] = JSON.stringify(
      trace.tools.map((t) => ({
        type: 'function',
        name: t.function.name,
        ...(t.function.description ? { description: t.function.description } : {}),
        ...(t.function.parameters ? { parameters: t.function.parameters } : {}),
      })),
    );
  return a;
}
