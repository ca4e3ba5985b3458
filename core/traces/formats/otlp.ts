/**
 * OTLP JSON as an OpenTelemetry Collector's file exporter writes it: one export request per line, either
 * `{"resourceSpans": [...]}` (ExportTraceServiceRequest) or `{"resourceLogs": [...]}` (ExportLogsServiceRequest), in
 * protobuf's JSON mapping (camelCase keys, hex ids, 64-bit integers as strings, attribute values as AnyValue).
 * Decoded here into plain spans and log records with plain attribute values.
 */
import { isObj, type Obj } from './parts.js';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Obj;
  events: Array<{ name: string; attributes: Obj; time: bigint }>;
  /** status.code 2: the span's operation failed. */
  failed: boolean;
  statusMessage: string;
  start: bigint;
  /** Where it was read: file and line, for rejections. */
  file: string;
  row: number;
}

export interface OtlpLogRecord {
  traceId: string;
  spanId: string;
  /** The record's `eventName`, else its `event.name` attribute (older instrumentations). */
  eventName: string;
  attributes: Obj;
  body: unknown;
  time: bigint;
  /** Order of appearance: records of one call often share a timestamp. */
  order: number;
}

export const isOtlpRecord = (record: unknown): boolean =>
  isObj(record) && (Array.isArray(record.resourceSpans) || Array.isArray(record.resourceLogs));

/** An AnyValue as a plain value: strings, numbers, booleans, arrays, objects; an empty AnyValue is undefined. */
export function anyValue(v: unknown): unknown {
  if (!isObj(v)) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return v.bytesValue;
  if (isObj(v.arrayValue)) return (Array.isArray(v.arrayValue.values) ? v.arrayValue.values : []).map(anyValue);
  if (isObj(v.kvlistValue)) return keyValues(v.kvlistValue.values);
  return undefined;
}

/** A KeyValue list as an object (a key without a value is left out). */
export function keyValues(list: unknown): Obj {
  const out: Obj = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObj(kv) || typeof kv.key !== 'string') continue;
    const v = anyValue(kv.value);
    if (v !== undefined) out[kv.key] = v;
  }
  return out;
}

const nanos = (v: unknown): bigint => {
  try {
    return BigInt(typeof v === 'string' || typeof v === 'number' ? v : 0);
  } catch {
    return 0n;
  }
};
const id = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

/** The spans and log records of export requests read from `file` (`row`: its line). */
export function decodeOtlp(
  record: Obj,
  file: string,
  row: number,
  into: { spans: OtlpSpan[]; logs: OtlpLogRecord[] },
): void {
  for (const rs of Array.isArray(record.resourceSpans) ? record.resourceSpans : []) {
    if (!isObj(rs)) continue;
    for (const ss of Array.isArray(rs.scopeSpans) ? rs.scopeSpans : []) {
      if (!isObj(ss)) continue;
      for (const s of Array.isArray(ss.spans) ? ss.spans : []) {
        if (!isObj(s)) continue;
        const status = isObj(s.status) ? s.status : {};
        into.spans.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          name: typeof s.name === 'string' ? s.name : '',
          attributes: keyValues(s.attributes),
          events: (Array.isArray(s.events) ? s.events : []).filter(isObj).map((e) => ({
            name: typeof e.name === 'string' ? e.name : '',
            attributes: keyValues(e.attributes),
            time: nanos(e.timeUnixNano),
          })),
          failed: status.code === 2 || status.code === 'STATUS_CODE_ERROR',
          statusMessage: typeof status.message === 'string' ? status.message : '',
          start: nanos(s.startTimeUnixNano),
          file,
          row,
        });
      }
    }
  }
  for (const rl of Array.isArray(record.resourceLogs) ? record.resourceLogs : []) {
    if (!isObj(rl)) continue;
    for (const sl of Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) {
      if (!isObj(sl)) continue;
      for (const r of Array.isArray(sl.logRecords) ? sl.logRecords : []) {
        if (!isObj(r)) continue;
        const attributes = keyValues(r.attributes);
        const eventName =
          typeof r.eventName === 'string' && r.eventName
            ? r.eventName
            : typeof attributes['event.name'] === 'string'
              ? attributes['event.name']
              : '';
        into.logs.push({
          traceId: id(r.traceId),
          spanId: id(r.spanId),
          eventName,
          attributes,
          body: anyValue(r.body),
          time: nanos(r.timeUnixNano ?? r.observedTimeUnixNano),
          order: into.logs.length,
        });
      }
    }
  }
}
