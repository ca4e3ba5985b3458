/**
 * OpenTelemetry GenAI traces (semantic conventions for generative AI, still marked Development; read as of v1.37,
 * and the per-message events those attributes replaced): each inference span (`gen_ai.operation.name` chat,
 * text_completion or generate_content) is one model call, and becomes one trace: its input messages, then its output.
 * Where its content lives, newest first:
 *   - `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.definitions` on
 *     the span, or on its `gen_ai.client.inference.operation.details` log records (parts `text`,
 *     `tool_call{id,name,arguments}`, `tool_call_response{id,response|result}`);
 *   - the older per-message events, as span events or log records linked to the span: `gen_ai.system.message`,
 *     `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`.
 * Spans and log records are joined by trace and span id across every file read. An `execute_tool` span whose status
 * is an error marks its call (by `gen_ai.tool.call.id`) as failed, so it is not trained on. Content capture is off
 * by default in the convention: a span without its messages' content is rejected as `content_not_captured`.
 */
import { TraceError } from '../trace-error.js';
import type { Trace, TraceMessage, TraceRejection } from '../types.js';
import { FLYWHEEL_ATTRIBUTES } from '../otel-span.js';
import { decodeOtlp, type OtlpLogRecord, type OtlpSpan } from './otlp.js';
import { isObj, type Obj } from './parts.js';

const INFERENCE = new Set(['chat', 'text_completion', 'generate_content']);
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';
const MESSAGE_EVENTS = new Set([
  'gen_ai.system.message',
  'gen_ai.user.message',
  'gen_ai.assistant.message',
  'gen_ai.tool.message',
  'gen_ai.choice',
]);
const CAPTURE_HINT =
  'capture is off by default; turn it on in the instrumentation (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)';

export interface OtelConversation {
  file: string;
  row: number;
  spanId: string;
  trace: Trace;
}

/** Conversations from OTLP export requests (each with the file and line it came from); bad spans are rejections. */
export function readOtelGenai(records: Array<{ file: string; row: number; record: Obj }>): {
  conversations: OtelConversation[];
  rejections: TraceRejection[];
} {
  const decoded = { spans: [] as OtlpSpan[], logs: [] as OtlpLogRecord[] };
  for (const r of records) decodeOtlp(r.record, r.file, r.row, decoded);
  const key = (traceId: string, spanId: string) => `${traceId}/${spanId}`;
  const logsBySpan = new Map<string, OtlpLogRecord[]>();
  for (const l of decoded.logs) {
    // Only GenAI events linked to a span matter; a collector file may hold every log the service wrote.
    if (!l.spanId || !(MESSAGE_EVENTS.has(l.eventName) || l.eventName === DETAILS_EVENT)) continue;
    const k = key(l.traceId, l.spanId);
    const list = logsBySpan.get(k);
    if (list) list.push(l);
    else logsBySpan.set(k, [l]);
  }
  // Failed tool runs, by trace and call id.
  const failedCalls = new Map<string, string>();
  for (const s of decoded.spans)
    if (s.attributes['gen_ai.operation.name'] === 'execute_tool' && s.failed) {
      const callId = s.attributes['gen_ai.tool.call.id'];
      if (typeof callId === 'string') failedCalls.set(`${s.traceId}/${callId}`, s.statusMessage || 'the tool failed');
    }

  // An agent's client span whose call the flywheel gateway answered (the gateway's span is its child, through the
  // traceparent): the gateway's span is the record of that decision, with whether the router answered it itself.
  const answeredByGateway = new Set(
    decoded.spans
      .filter((s) => s.attributes[FLYWHEEL_ATTRIBUTES.escalated] !== undefined && s.parentSpanId)
      .map((s) => key(s.traceId, s.parentSpanId)),
  );
  const conversations: OtelConversation[] = [];
  const rejections: TraceRejection[] = [];
  const inference = decoded.spans
    .filter((s) => INFERENCE.has(String(s.attributes['gen_ai.operation.name'])))
    .filter((s) => !answeredByGateway.has(key(s.traceId, s.spanId)))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  for (const span of inference) {
    const where = `span ${span.spanId} (${span.name})`;
    try {
      const trace = conversationOf(span, logsBySpan.get(key(span.traceId, span.spanId)) ?? []);
      markFailedCalls(trace.messages, (callId) => failedCalls.get(`${span.traceId}/${callId}`));
      conversations.push({ file: span.file, row: span.row, spanId: span.spanId, trace });
    } catch (err) {
      if (!(err instanceof TraceError)) throw err;
      rejections.push({ file: span.file, row: span.row, reason: err.reason, detail: `${where}: ${err.message}` });
    }
  }
  return { conversations, rejections };
}

/**
 * A call whose tool run failed (its `execute_tool` span's status): its result is marked failed, and a call this
 * conversation holds no result for gets one, so no conversation trains on it.
 */
function markFailedCalls(messages: TraceMessage[], failure: (callId: string) => string | undefined): void {
  const results = new Set(messages.flatMap((m) => (m.role === 'tool' && m.tool_call_id ? [m.tool_call_id] : [])));
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id && failure(m.tool_call_id)) m.is_error = true;
  for (const m of [...messages])
    for (const c of m.tool_calls ?? []) {
      const why = failure(c.id);
      if (why && !results.has(c.id)) messages.push({ role: 'tool', tool_call_id: c.id, content: why, is_error: true });
    }
}

/** The value of an attribute that may be JSON text or structured. */
function structured(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new TraceError('invalid_shape', `an attribute holds text that is not JSON: ${v.slice(0, 60)}`);
  }
}

function conversationOf(span: OtlpSpan, logs: OtlpLogRecord[]): Trace {
  const details = logs.filter((l) => l.eventName === DETAILS_EVENT).map((l) => l.attributes);
  const attr = (name: string) => [span.attributes, ...details].map((a) => a[name]).find((v) => v !== undefined);
  const input = attr('gen_ai.input.messages');
  const output = attr('gen_ai.output.messages');
  const tools = toolsOf(attr('gen_ai.tool.definitions'));
  let messages: TraceMessage[];
  if (input !== undefined || output !== undefined) {
    const inputs = asList(structured(input), 'gen_ai.input.messages').flatMap(partsMessage);
    // Some instrumentations repeat the instructions as the first input message: keep them once.
    const system = instructions(attr('gen_ai.system_instructions')).filter(
      (s) => !inputs.some((m) => m.role === 'system' && m.content === s.content),
    );
    messages = [...system, ...inputs];
    const out = asList(structured(output), 'gen_ai.output.messages')[0];
    if (!isObj(out)) throw new TraceError('no_answer', 'gen_ai.output.messages holds no message');
    if (out.finish_reason === 'length') throw new TraceError('no_answer', 'the answer was cut at max tokens');
    messages.push(...partsMessage({ ...out, role: 'assistant' }));
  } else {
    messages = eventMessages(span, logs);
  }
  if (!captured(messages))
    throw new TraceError('content_not_captured', `its messages were recorded without their content (${CAPTURE_HINT})`);
  const metadata = spanMetadata(span.attributes);
  return { messages, ...(tools ? { tools } : {}), ...(metadata ? { metadata } : {}) };
}

/**
 * The caller and the cascade, where the span says (the flywheel gateway's `flywheel.*` attributes, core/traces/
 * otel-span.ts): a decision the router made itself is then known as such, and is not trained on.
 */
function spanMetadata(a: Obj): Trace['metadata'] | undefined {
  const meta: NonNullable<Trace['metadata']> = {};
  if (typeof a[FLYWHEEL_ATTRIBUTES.domain] === 'string') meta.domain = a[FLYWHEEL_ATTRIBUTES.domain] as string;
  if (typeof a[FLYWHEEL_ATTRIBUTES.caller] === 'string') meta.persona = a[FLYWHEEL_ATTRIBUTES.caller] as string;
  const scopes = a[FLYWHEEL_ATTRIBUTES.scopes];
  if (Array.isArray(scopes) && scopes.every((s) => typeof s === 'string')) meta.scopes = scopes as string[];
  if (typeof a[FLYWHEEL_ATTRIBUTES.escalated] === 'boolean')
    meta.gateway = { escalated: a[FLYWHEEL_ATTRIBUTES.escalated], version: a[FLYWHEEL_ATTRIBUTES.version] ?? null };
  return Object.keys(meta).length ? meta : undefined;
}

const asList = (v: unknown, where: string): unknown[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new TraceError('invalid_shape', `${where} must be a list of messages`);
  return v;
};

/** `gen_ai.system_instructions`: text, or a list of parts. */
function instructions(v: unknown): TraceMessage[] {
  const value = typeof v === 'string' && v.trim().startsWith('[') ? structured(v) : v;
  const text = typeof value === 'string' ? value : Array.isArray(value) ? textParts(value) : null;
  return text ? [{ role: 'system', content: text }] : [];
}

function textParts(parts: unknown[]): string | null {
  const texts = parts.flatMap((p) =>
    isObj(p) && p.type === 'text' && typeof p.content === 'string' ? [p.content] : [],
  );
  return texts.length ? texts.join('\n') : null;
}

const argumentsText = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * A message of `{role, parts}`: its text, its tool calls, and each tool result as a tool message. A part's `call_id`
 * (Responses' pairing id, which some instrumentations add beside `id`) is the id calls and results pair by.
 */
function partsMessage(raw: unknown): TraceMessage[] {
  if (!isObj(raw) || !Array.isArray(raw.parts))
    throw new TraceError('invalid_shape', 'a message is {role, parts: [...]}');
  const role = raw.role;
  const results = raw.parts.filter((p) => isObj(p) && p.type === 'tool_call_response') as Obj[];
  if (role === 'tool' || results.length)
    return results.map((p) => ({
      role: 'tool' as const,
      tool_call_id: String(p.call_id || p.id || ''),
      content: argumentsText(p.response ?? p.result) ?? '',
    }));
  const content = textParts(raw.parts);
  if (role === 'system' || role === 'user') return [{ role, content: content ?? undefined } as TraceMessage];
  if (role !== 'assistant')
    throw new TraceError(
      'invalid_shape',
      `a message's role must be system, user, assistant or tool, not ${String(role)}`,
    );
  const calls = raw.parts.filter((p) => isObj(p) && p.type === 'tool_call') as Obj[];
  return [
    {
      role: 'assistant',
      content,
      ...(calls.length
        ? {
            tool_calls: calls.map((c) => ({
              id: String(c.call_id || c.id || ''),
              type: 'function' as const,
              function: { name: String(c.name ?? ''), arguments: argumentsText(c.arguments) as string },
            })),
          }
        : {}),
    },
  ];
}

/** The older shape: one event per message, on the span or as log records linked to it, in order. */
function eventMessages(span: OtlpSpan, logs: OtlpLogRecord[]): TraceMessage[] {
  const events = [
    ...span.events.map((e, i) => ({ name: e.name, body: e.attributes as unknown, time: e.time, order: i })),
    ...logs.map((l) => ({ name: l.eventName, body: l.body, time: l.time, order: span.events.length + l.order })),
  ]
    .filter((e) => MESSAGE_EVENTS.has(e.name))
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.order - b.order));
  if (!events.length)
    throw new TraceError('content_not_captured', `no gen_ai.input.messages and no message events (${CAPTURE_HINT})`);
  const messages: TraceMessage[] = [];
  let answered = false;
  for (const e of events) {
    const body = isObj(e.body) ? e.body : {};
    const text = (v: unknown) =>
      typeof v === 'string'
        ? v
        : Array.isArray(v)
          ? textParts(v.map((p) => (isObj(p) ? { ...p, content: p.content ?? p.text } : p)))
          : undefined;
    if (e.name === 'gen_ai.system.message' || e.name === 'gen_ai.user.message')
      messages.push({
        role: e.name === 'gen_ai.system.message' ? 'system' : 'user',
        content: text(body.content) ?? undefined,
      } as TraceMessage);
    else if (e.name === 'gen_ai.tool.message')
      messages.push({
        role: 'tool',
        tool_call_id: String(body.id ?? ''),
        content: text(body.content) ?? undefined,
      } as TraceMessage);
    else if (e.name === 'gen_ai.assistant.message') messages.push(assistantOf(body, text));
    else if (!answered && (body.index === undefined || body.index === 0)) {
      // gen_ai.choice: the answer (the first choice).
      if (body.finish_reason === 'length') throw new TraceError('no_answer', 'the answer was cut at max tokens');
      messages.push(assistantOf(isObj(body.message) ? body.message : {}, text));
      answered = true;
    }
  }
  if (!answered) throw new TraceError('no_answer', 'no gen_ai.choice event: the call has no recorded answer');
  return messages;
}

function assistantOf(body: Obj, text: (v: unknown) => string | null | undefined): TraceMessage {
  const calls = Array.isArray(body.tool_calls) ? body.tool_calls.filter(isObj) : [];
  return {
    role: 'assistant',
    content: text(body.content) ?? null,
    ...(calls.length
      ? {
          tool_calls: calls.map((c) => {
            const fn = isObj(c.function) ? c.function : {};
            return {
              id: String(c.id ?? ''),
              type: 'function' as const,
              function: { name: String(fn.name ?? ''), arguments: argumentsText(fn.arguments) as string },
            };
          }),
        }
      : {}),
  };
}

/** Content was captured: a user asked, every user and tool message has its text, every call its arguments. */
function captured(messages: TraceMessage[]): boolean {
  return (
    messages.some((m) => m.role === 'user') &&
    messages.every((m) => (m.role !== 'user' && m.role !== 'tool') || typeof m.content === 'string') &&
    messages.every((m) => (m.tool_calls ?? []).every((c) => typeof c.function.arguments === 'string'))
  );
}

/** `gen_ai.tool.definitions`: `{type: function, name, description, parameters}` or OpenAI's `{type, function}`. */
function toolsOf(v: unknown): Trace['tools'] | undefined {
  if (v === undefined) return undefined;
  const list = asList(structured(v), 'gen_ai.tool.definitions');
  const tools = list.flatMap((t) => {
    if (!isObj(t)) return [];
    const fn = isObj(t.function) ? t.function : t;
    if ((t.type !== undefined && t.type !== 'function') || typeof fn.name !== 'string') return [];
    return [
      {
        type: 'function' as const,
        function: {
          name: fn.name,
          ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
          ...(isObj(fn.parameters) ? { parameters: fn.parameters } : {}),
        },
      },
    ];
  });
  return tools.length ? tools : undefined;
}
