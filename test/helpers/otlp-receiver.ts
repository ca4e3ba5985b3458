/**
 * A test-owned OTLP/HTTP receiver on localhost, standing in for an OpenTelemetry Collector with a file exporter:
 * POST /v1/traces with an OTLP JSON export request (what `@opentelemetry/exporter-trace-otlp-http` sends) is
 * checked to be one, then appended as one line to a file, as the collector's file exporter writes it; it answers
 * the empty ExportTraceServiceResponse. Protobuf bodies are refused (415): the JS OpenTelemetry packages serialise
 * export requests but ship no decoder for them.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpReceiver {
  /** The OTLP/HTTP base URL (spans go to URL/v1/traces). */
  url: string;
  /** Export requests received. */
  received: number;
  close(): Promise<void>;
}

export async function startOtlpReceiver(file: string): Promise<OtlpReceiver> {
  const state = { received: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return void res.writeHead(415, { 'content-type': 'application/json' }).end('{"message":"send OTLP JSON"}');
      let request: { resourceSpans?: unknown };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: unknown };
      } catch {
        return void res.writeHead(400).end('{"message":"not JSON"}');
      }
      if (!Array.isArray(request.resourceSpans)) return void res.writeHead(400).end('{"message":"no resourceSpans"}');
      appendFileSync(file, `${JSON.stringify(request)}\n`);
      state.received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get received() {
      return state.received;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
