import type { Catalog } from '../catalog/types.js';
import type { Persona, RouterRow, ToolCallTarget } from '../dataset/types.js';
import type { CallValidator } from '../dataset/validate.js';
import { hashOf, shortSha } from '../hash.js';
import { Redactor } from './redact.js';
import type { Trace, TraceMessage, TraceRejection } from './types.js';
import { detectTraceFormat, readTraceRecord, type TraceFormat } from './formats/index.js';
import { readOtelGenai } from './formats/otel-genai.js';
import { TraceError } from './trace-error.js';

export interface ParsedTrace {
  file: string;
  row: number;
  trace: unknown;
  /** The format its source names (a `traces:` entry's `format`); absent: told from each record's shape. */
  format?: TraceFormat;
  /** Its source's server, for a trace without metadata.domain (a `traces:` entry's `domain`). */
  domain?: string;
  /** A conversation already read from OpenTelemetry records (otel-genai), in place of `trace`. */
  assembled?: Trace;
}

/**
 * The records with every OTLP export request (detected, or from a source declaring `otel-genai`) replaced by the
 * conversations its inference spans hold, each at the file and line of its span; spans that cannot be read are
 * rejections.
 */
function withOtelConversations(parsed: ParsedTrace[]): { records: ParsedTrace[]; rejections: TraceRejection[] } {
  const isOtel = (p: ParsedTrace) =>
    (p.format === undefined || p.format === 'otel-genai') && detectTraceFormat(p.trace) === 'otel-genai';
  const otel = parsed.filter(isOtel);
  if (!otel.length) return { records: parsed, rejections: [] };
  const domainAt = new Map(otel.map((p) => [`${p.file}:${p.row}`, p.domain]));
  const { conversations, rejections } = readOtelGenai(
    otel.map((p) => ({ file: p.file, row: p.row, record: p.trace as Record<string, unknown> })),
  );
  const records: ParsedTrace[] = [
    ...parsed.filter((p) => !isOtel(p)),
    ...conversations.map((c) => {
      const domain = domainAt.get(`${c.file}:${c.row}`);
      return { file: c.file, row: c.row, trace: null, assembled: c.trace, ...(domain ? { domain } : {}) };
    }),
  ];
  return { records, rejections };
}

/** JSON (an array of traces, or one trace) or JSONL (one trace per line). Bad JSON is a rejection with its line. */
export function parseTraceFile(
  file: string,
  text: string,
  format?: TraceFormat,
): { traces: ParsedTrace[]; rejections: TraceRejection[] } {
  const parsed = parseRecords(file, text);
  return format ? { ...parsed, traces: parsed.traces.map((t) => ({ ...t, format })) } : parsed;
}

function parseRecords(file: string, text: string): { traces: ParsedTrace[]; rejections: TraceRejection[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') && !/\}\s*\n\s*\{/.test(trimmed)) {
    // One trace, possibly pretty-printed over many lines.
    try {
      return { traces: [{ file, row: 1, trace: JSON.parse(text) }], rejections: [] };
    } catch {
      // Not a single document: read it as JSONL below.
    }
  }
  if (trimmed.startsWith('[')) {
    try {
      return {
        traces: (JSON.parse(text) as unknown[]).map((trace, i) => ({ file, row: i + 1, trace })),
        rejections: [],
      };
    } catch (err) {
      return { traces: [], rejections: [{ file, row: 0, reason: 'invalid_json', detail: (err as Error).message }] };
    }
  }
  const traces: ParsedTrace[] = [];
  const rejections: TraceRejection[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      traces.push({ file, row: i + 1, trace: JSON.parse(line) });
    } catch (err) {
      rejections.push({ file, row: i + 1, reason: 'invalid_json', detail: (err as Error).message });
    }
  });
  return { traces, rejections };
}

/** Shape and pairing checks; returns the trace typed, or throws TraceError naming the problem. */
export function checkTrace(raw: unknown): Trace {
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as Trace).messages))
    throw new TraceError('invalid_shape', 'a trace is an object with a "messages" array');
  const t = raw as Trace;
  const calls = new Map<string, number>();
  t.messages.forEach((m, i) => {
    if (!m || !['system', 'user', 'assistant', 'tool'].includes(m.role))
      throw new TraceError('invalid_shape', `messages[${i}].role must be system, user, assistant or tool`);
    for (const [j, c] of (m.tool_calls ?? []).entries()) {
      if (m.role !== 'assistant')
        throw new TraceError('invalid_shape', `messages[${i}] has tool_calls but is not an assistant message`);
      if (!c?.id || typeof c.function?.name !== 'string' || typeof c.function?.arguments !== 'string')
        throw new TraceError(
          'invalid_shape',
          `messages[${i}].tool_calls[${j}] needs id, function.name and function.arguments (a JSON string)`,
        );
      if (calls.has(c.id)) throw new TraceError('duplicate_tool_call_id', `tool_call_id ${c.id} is used twice`);
      calls.set(c.id, i);
    }
    if (m.role === 'tool') {
      if (!m.tool_call_id)
        throw new TraceError('invalid_shape', `messages[${i}] is a tool result without tool_call_id`);
      const at = calls.get(m.tool_call_id);
      if (at === undefined || at > i)
        throw new TraceError(
          'orphan_tool_result',
          `messages[${i}].tool_call_id ${m.tool_call_id} answers no earlier tool call`,
        );
    }
  });
  const answered = new Set(t.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const last = t.messages.length - 1;
  for (const [id, i] of calls)
    if (!answered.has(id) && i !== last)
      throw new TraceError('unanswered_tool_call', `tool call ${id} in messages[${i}] has no tool result`);
  return t;
}

/** A tool result that reports failure: such a call is not a training target. */
export function isFailedResult(m: TraceMessage): boolean {
  if (m.is_error === true) return true;
  const c = (m.content ?? '').trim();
  if (/^(error|exception)\b/i.test(c)) return true;
  try {
    const j = JSON.parse(c) as { isError?: unknown; error?: unknown };
    return j?.isError === true || (j?.error !== undefined && j?.error !== null);
  } catch {
    return false;
  }
}

/**
 * Redact text and tool arguments with one redactor, so a value gets the same placeholder everywhere.
 * Arguments are redacted as parsed JSON (a card number stored as a JSON number must not turn the string into
 * invalid JSON); unparseable ones stay as they are and are rejected later.
 */
function redactMessages(messages: TraceMessage[], redactor: Redactor): TraceMessage[] {
  return messages.map((m) => {
    const { tool_calls, ...rest } = m;
    const out: TraceMessage = redactor.value(rest);
    if (tool_calls) {
      out.tool_calls = tool_calls.map((c) => {
        let args: unknown;
        try {
          args = JSON.parse(c.function.arguments);
        } catch {
          return c;
        }
        return { ...c, function: { ...c.function, arguments: JSON.stringify(redactor.value(args)) } };
      });
    }
    return out;
  });
}

export interface TraceIngestOptions {
  catalog: Catalog;
  /** Domain for traces without metadata.domain (a catalog server name). */
  defaultDomain?: string;
}

/** Tool name -> the servers that offer it, and the server names: built once per ingest. */
interface ToolIndex {
  servers: string[];
  byTool: Map<string, string[]>;
}

function toolIndex(catalog: Catalog): ToolIndex {
  const byTool = new Map<string, string[]>();
  for (const t of catalog.tools)
    if (!byTool.get(t.name)?.includes(t.server)) byTool.set(t.name, [...(byTool.get(t.name) ?? []), t.server]);
  return { servers: catalog.servers.map((s) => s.name), byTool };
}

/**
 * The server a trace without metadata.domain belongs to, read from the tools it calls. Traces from other
 * systems (plain OpenAI chat logs) carry no domain, but a called tool that only one server offers says
 * where it came from. Every known called tool must agree; the trace's `tools` array only breaks a tie
 * between servers that all offer every called tool. Guessing would put rows under the wrong server.
 */
function attributeDomain(trace: Trace, index: ToolIndex): { domain: string } | { reason: string; detail: string } {
  const hint = "set metadata.domain or the trace source's domain";
  const called = [...new Set(trace.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name))];
  const known = called.filter((n) => index.byTool.has(n));
  if (!known.length) {
    const what = called.length
      ? `calls ${called.map((n) => JSON.stringify(n)).join(', ')}, which match no server`
      : 'calls no tools';
    return {
      reason: 'unknown_domain',
      detail: `no metadata.domain, and the trace ${what} of the catalog (${index.servers.join(', ')})`,
    };
  }
  let candidates = index.byTool.get(known[0]!)!.filter((s) => known.every((n) => index.byTool.get(n)!.includes(s)));
  if (!candidates.length) {
    const spans = known.map((n) => `"${n}" (${index.byTool.get(n)!.join(', ')})`).join(', ');
    return { reason: 'ambiguous_domain', detail: `the called tools belong to different servers: ${spans}; ${hint}` };
  }
  if (candidates.length > 1 && trace.tools) {
    const offered = trace.tools.map((t) => t.function?.name).filter((n) => index.byTool.has(n));
    const narrowed = candidates.filter((s) => offered.every((n) => index.byTool.get(n)!.includes(s)));
    if (narrowed.length) candidates = narrowed;
  }
  if (candidates.length > 1) {
    const tools = known.map((n) => `"${n}"`).join(', ');
    return {
      reason: 'ambiguous_domain',
      detail: `${known.length > 1 ? `tools ${tools} are` : `tool ${tools} is`} offered by servers ${candidates.join(', ')}; ${hint}`,
    };
  }
  return { domain: candidates[0]! };
}

/**
 * A gateway trace whose answer the router gave itself (not escalated, or escalated and the frontier failed): it
 * carries no label the router did not already have. Escalated answers are the frontier's, and are kept.
 */
export function answeredByRouter(trace: Trace): boolean {
  const gateway = trace.metadata?.gateway;
  return !!gateway && typeof gateway === 'object' && (gateway as { escalated?: unknown }).escalated === false;
}

export interface TraceIngestResult {
  rows: RouterRow[];
  rejections: TraceRejection[];
  stats: {
    traces: number;
    rows: number;
    rejectedTraces: number;
    droppedTurns: Record<string, number>;
    duplicates: number;
    redacted: Record<string, number>;
    /** Per format: the records read in it, and the rows they gave (after dedupe). */
    byFormat: Record<string, { traces: number; rows: number }>;
  };
}

/**
 * Turn traces into router rows: redact PII, unroll one row per assistant turn that makes exactly one tool
 * call (earlier reasoning dropped, failed calls and the router's own gateway answers skipped), dedupe, then validate each call like a generated
 * one (catalog, schema, scopes). Every rejection names the file, row and reason.
 */
export function ingestTraces(
  parsed: ParsedTrace[],
  validator: CallValidator,
  opts: TraceIngestOptions,
): TraceIngestResult {
  const rows: RouterRow[] = [];
  // OTLP export requests are read together: their spans and log records join across lines and files.
  const { records, rejections } = withOtelConversations(parsed);
  const seen = new Set<string>();
  const stats: TraceIngestResult['stats'] = {
    traces: records.length + rejections.length,
    rows: 0,
    rejectedTraces: rejections.length,
    droppedTurns: {},
    duplicates: 0,
    redacted: {},
    byFormat: {},
  };
  const drop = (why: string) => (stats.droppedTurns[why] = (stats.droppedTurns[why] ?? 0) + 1);
  const servers = new Set(opts.catalog.servers.map((s) => s.name));
  const index = toolIndex(opts.catalog);
  for (const p of records) {
    let trace: Trace;
    let format: TraceFormat;
    try {
      const read = p.assembled
        ? { format: 'otel-genai' as const, trace: p.assembled }
        : readTraceRecord(p.trace, p.format);
      format = read.format;
      trace = checkTrace(read.trace);
    } catch (err) {
      rejections.push({
        file: p.file,
        row: p.row,
        reason: err instanceof TraceError ? err.reason : 'invalid_shape',
        detail: (err as Error).message,
      });
      stats.rejectedTraces++;
      continue;
    }
    // The router's own answer, logged by the gateway: training on it would confirm the router by itself.
    if (answeredByRouter(trace)) {
      drop('router_answer');
      continue;
    }
    const explicit = trace.metadata?.domain ?? p.domain ?? opts.defaultDomain;
    const attributed =
      explicit == null
        ? attributeDomain(trace, index)
        : servers.has(explicit)
          ? { domain: explicit }
          : {
              reason: 'unknown_domain',
              detail: `metadata.domain ${JSON.stringify(explicit)} is not a server of the catalog (${[...servers].join(', ')})`,
            };
    if ('reason' in attributed) {
      rejections.push({ file: p.file, row: p.row, ...attributed });
      stats.rejectedTraces++;
      continue;
    }
    const domain = attributed.domain;
    const byFormat = (stats.byFormat[format] ??= { traces: 0, rows: 0 });
    byFormat.traces++;
    const redactor = new Redactor();
    const messages = redactMessages(trace.messages, redactor);
    for (const [k, n] of Object.entries(redactor.counts)) stats.redacted[k] = (stats.redacted[k] ?? 0) + n;
    const failed = new Set(messages.filter((m) => m.role === 'tool' && isFailedResult(m)).map((m) => m.tool_call_id));
    const domainTools = opts.catalog.tools.filter((t) => t.server === domain);
    const offered = trace.tools?.map((t) => t.function.name) ?? domainTools.map((t) => t.name);
    // A gateway trace is one decision: its earlier turns are the agent's history, answered by whoever answered them
    // (the router's own answers among them), so only the last assistant turn is a label.
    const decisionAt = trace.metadata?.gateway ? messages.map((m) => m.role).lastIndexOf('assistant') : -1;
    messages.forEach((m, i) => {
      if (m.role !== 'assistant' || !m.tool_calls?.length) return;
      if (decisionAt >= 0 && i !== decisionAt) return void drop('gateway_history');
      if (m.tool_calls.length > 1) return void drop('parallel_calls');
      const call = m.tool_calls[0]!;
      if (failed.has(call.id)) return void drop('failed_result');
      let args: unknown;
      try {
        args = JSON.parse(call.function.arguments);
      } catch {
        rejections.push({
          file: p.file,
          row: p.row,
          reason: 'invalid_arguments_json',
          detail: `messages[${i}] tool call ${call.id}: arguments are not JSON`,
        });
        return;
      }
      const target: ToolCallTarget = { tool: call.function.name, arguments: args as Record<string, unknown> };
      const tool = validator.tool(target.tool, domain);
      const persona: Persona = {
        name: trace.metadata?.persona ?? 'trace',
        domain,
        scopes: trace.metadata?.scopes ?? tool?.scopes ?? [],
      };
      const verdict = validator.checkStatic(target, persona, offered);
      if (!verdict.valid) {
        rejections.push({
          file: p.file,
          row: p.row,
          reason: verdict.reason!,
          detail: `messages[${i}] ${target.tool}: ${verdict.detail ?? ''}`,
        });
        return;
      }
      // Context: everything before this turn, without earlier reasoning.
      const context = messages.slice(0, i).map(({ reasoning_content: _r, ...rest }) => rest);
      const lastUser = [...context].reverse().find((c) => c.role === 'user')?.content ?? '';
      const key = hashOf({ domain, context, target });
      // Call ids are each provider's own: one conversation logged in two formats is one row.
      const same = hashOf({ domain, context: withOrdinalIds(context), target });
      if (seen.has(same)) return void stats.duplicates++;
      seen.add(same);
      byFormat.rows++;
      const traceKey = shortSha(hashOf(messages.filter((x) => x.role === 'user').slice(0, 1)), 16);
      const ids = Object.entries(target.arguments)
        .filter(([k, v]) => /id$/i.test(k) && (typeof v === 'string' || typeof v === 'number'))
        .map(([, v]) => `${domain}:id:${String(v)}`);
      rows.push({
        id: `row-${shortSha(key, 16)}`,
        domain,
        entities: [`${domain}:trace:${traceKey}`, ...ids],
        request: lastUser ?? '',
        messages: context,
        persona: { name: persona.name, scopes: persona.scopes },
        tools: offered,
        target,
        provenance: { source: 'trace', trace: `${p.file}:${p.row}`, ...(format === 'messages' ? {} : { format }) },
      });
    });
  }
  stats.rows = rows.length;
  return { rows, rejections, stats };
}

/** Messages with their tool call ids replaced by their order of appearance (`call_1`, `call_2`, …). */
function withOrdinalIds(messages: TraceMessage[]): TraceMessage[] {
  const ids = new Map<string, string>();
  const ordinal = (id: string) => ids.get(id) ?? (ids.set(id, `call_${ids.size + 1}`), ids.get(id)!);
  return messages.map((m) => ({
    ...m,
    ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: ordinal(c.id) })) } : {}),
    ...(m.tool_call_id ? { tool_call_id: ordinal(m.tool_call_id) } : {}),
  }));
}
