/**
 * The trace formats read, each into the one trace the pipeline validates (OpenAI chat messages, the offered tools,
 * the caller): `messages` (that trace itself, as the gateway writes it), `openai-chat`, `openai-responses` and
 * `anthropic` (LLM gateways' request/response logs), and `otel-genai` (OpenTelemetry GenAI spans and log records as
 * OTLP JSON, reassembled across records by otel-genai.ts). A `traces:` source may name its format; otherwise each
 * record's is told from its shape.
 */
import { TraceError } from '../trace-error.js';
import type { Trace } from '../types.js';
import { readAnthropic } from './anthropic.js';
import { readOpenAiChat } from './openai-chat.js';
import { readOpenAiResponses } from './openai-responses.js';
import { isOtlpRecord } from './otlp.js';
import { isObj, type Obj } from './parts.js';

export const TRACE_FORMATS = ['messages', 'openai-chat', 'openai-responses', 'anthropic', 'otel-genai'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Read one record at a time; `otel-genai` export requests are read together (otel-genai.ts). */
const READERS: Record<Exclude<TraceFormat, 'messages' | 'otel-genai'>, (record: Obj) => Trace> = {
  'openai-chat': readOpenAiChat,
  'openai-responses': readOpenAiResponses,
  anthropic: readAnthropic,
};

/** A record's format, from its shape; null when it is none of them. */
export function detectTraceFormat(record: unknown): TraceFormat | null {
  if (!isObj(record)) return null;
  if (isOtlpRecord(record)) return 'otel-genai';
  // A `messages` key without a request/response pair is the plain trace, well formed or not (ingest says which).
  if ('messages' in record && !('request' in record) && !('response' in record)) return 'messages';
  const { request, response } = record;
  if (isObj(response)) {
    if (response.object === 'chat.completion' || Array.isArray(response.choices)) return 'openai-chat';
    if (response.object === 'response' || Array.isArray(response.output)) return 'openai-responses';
    if (response.type === 'message' || (response.role === 'assistant' && Array.isArray(response.content)))
      return 'anthropic';
  }
  if (isObj(request)) {
    if ('input' in request || 'instructions' in request) return 'openai-responses';
    if (Array.isArray(request.tools) && request.tools.some((t) => isObj(t) && 'input_schema' in t)) return 'anthropic';
    if (Array.isArray(request.messages)) return 'openai-chat';
  }
  return null;
}

/**
 * A record read into a trace (not yet checked: ingest pairs calls with results). `declared`: the format its source
 * names; a record of another shape is rejected as `format_mismatch`.
 */
export function readTraceRecord(record: unknown, declared?: TraceFormat): { format: TraceFormat; trace: Trace } {
  const detected = detectTraceFormat(record);
  if (declared && detected && detected !== declared)
    throw new TraceError('format_mismatch', `the record reads as ${detected}, not ${declared} as its source says`);
  const format = declared ?? detected;
  if (!format)
    throw new TraceError(
      'unknown_format',
      `not a trace in any format read (${TRACE_FORMATS.join(', ')}): expected {"messages": [...]} or a {"request", "response"} log`,
    );
  // Checked by ingest (checkTrace), as every format's trace is.
  if (format === 'messages') return { format, trace: record as Trace };
  if (format === 'otel-genai')
    throw new TraceError('invalid_shape', 'OTLP export requests are read together, by readOtelGenai');
  if (!isObj(record)) throw new TraceError('invalid_shape', 'a log record is an object with request and response');
  return { format, trace: READERS[format](record) };
}
