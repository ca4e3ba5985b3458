/**
 * The gateway speaks OpenTelemetry out: with `gateway.otel.endpoint` set, each decision is one GenAI inference span
 * (core/traces/otel-span.ts) exported over OTLP/HTTP to a collector, parented under the agent's own trace when its
 * request carries a W3C `traceparent`. Message content only with `captureContent` (off by default, as the
 * convention asks). A collector's file exporter writes what a `traces:` source reads back (format `otel-genai`).
 */
import { context, ROOT_CONTEXT, SpanKind, trace as otelTrace, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { GatewayConfig } from '../core/config/schema.js';
import { decisionSpanAttributes, type DecisionSpan } from '../core/traces/otel-span.js';
import type { Trace } from '../core/traces/types.js';

export type OtelConfig = NonNullable<GatewayConfig['otel']>;

export interface DecisionSpans {
  /** One span per decision, from when the request arrived to now. */
  record(
    trace: Trace,
    d: DecisionSpan,
    startedAt: number,
    headers: Record<string, string | string[] | undefined>,
  ): void;
  /** Export what is buffered, then stop. */
  shutdown(): Promise<void>;
}

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

export function startDecisionSpans(cfg: OtelConfig): DecisionSpans {
  const provider = new TracerProvider({
    // One span per decision, whatever the agent's own sampling said in its traceparent.
    sampler: new AlwaysOnSampler(),
    resource: resourceFromAttributes({ 'service.name': cfg.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${cfg.endpoint.replace(/\/+$/, '')}/v1/traces` }),
        scheduledDelayMillis: cfg.exportIntervalMs,
      }),
    ],
  });
  const tracer = provider.getTracer('mcp-flywheel-gateway');
  // Used directly, so the gateway never touches the process's global propagator.
  const w3c = new W3CTraceContextPropagator();
  return {
    record(trace, d, startedAt, headers) {
      const parent = w3c.extract(ROOT_CONTEXT, headers, headerGetter);
      const span = tracer.startSpan(
        `chat ${d.requestModel}`,
        {
          kind: SpanKind.SERVER,
          startTime: startedAt,
          attributes: decisionSpanAttributes(trace, d, cfg.captureContent),
        },
        otelTrace.getSpan(parent) ? parent : context.active(),
      );
      span.end();
    },
    shutdown: () => provider.shutdown(),
  };
}
