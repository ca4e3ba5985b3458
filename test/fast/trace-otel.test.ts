/**
 * OpenTelemetry GenAI traces (core/traces/formats/otel-genai.ts): OTLP JSON as a collector's file exporter writes it,
 * reassembled into conversations by trace and span id. The fixtures are the travel conversation recorded by the real
 * `@opentelemetry/instrumentation-openai` around the real `openai` client (test/fixtures/traces/formats/make.ts),
 * with content captured and without, through chat completions (per-message log records) and Responses
 * (`gen_ai.input.messages` / `gen_ai.output.messages`); the hand-written records below cover the span-attribute form.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Catalog } from '../../core/catalog/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { detectTraceFormat } from '../../core/traces/formats/index.js';
import { readOtelGenai } from '../../core/traces/formats/otel-genai.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import { decisionSpanAttributes } from '../../core/traces/otel-span.js';
import type { TraceMessage } from '../../core/traces/types.js';
import { REPO } from '../helpers/fixtures.js';
import { travelCatalog } from '../helpers/travel-catalog.js';

const DIR = join(REPO, 'test', 'fixtures', 'traces', 'formats');
const text = (file: string) => readFileSync(join(DIR, file), 'utf8');
const lines = (file: string, body = text(file)) =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l, i) => ({ file, row: i + 1, record: JSON.parse(l) as Record<string, unknown> }));

const FLIGHT = { origin: 'LIS', destination: 'BER', date: '2026-03-14', passengers: 2 };
const HOTEL = { city: 'Berlin', check_in: '2026-03-14', nights: 3, guests: 2 };
const CONVERSATION = [
  ['system', 'You are a travel assistant. Use the tools to search and book.'],
  ['user', 'Find us a flight from Lisbon to Berlin on 2026-03-14, two of us.'],
  ['assistant', null, ['call_flight', 'search_flights', FLIGHT]],
  ['tool', '{"flights": [{"id": "TP530", "price": 182}, {"id": "LH1167", "price": 240}]}', 'call_flight'],
  ['assistant', 'TP530 at 182 EUR is the cheapest.'],
  ['user', 'Book a hotel there for 3 nights from the 14th; write to ana.silva@example.com.'],
  ['assistant', null, ['call_hotel', 'book_hotel', HOTEL]],
];
const shape = (messages: TraceMessage[]) =>
  messages.map((m) =>
    m.role === 'tool'
      ? [m.role, m.content, m.tool_call_id]
      : m.tool_calls
        ? [
            m.role,
            m.content ?? null,
            ...m.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
          ]
        : [m.role, m.content ?? null],
  );

/** One export request holding `spans` (attributes as plain strings), as a collector writes it. */
function exportRequest(spans: Array<{ spanId: string; name: string; attributes: Record<string, string> }>) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: 'an-agent-framework' },
            spans: spans.map((s, i) => ({
              traceId: 'ab'.repeat(16),
              spanId: s.spanId,
              name: s.name,
              kind: 3,
              startTimeUnixNano: String(1_767_225_600_000_000_000n + BigInt(i)),
              attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: { stringValue: v } })),
            })),
          },
        ],
      },
    ],
  };
}

describe('OpenTelemetry GenAI traces', () => {
  it('tells OTLP export requests, spans and logs alike, from their shape', () => {
    for (const { record } of lines('otel-genai-chat.jsonl')) assert.equal(detectTraceFormat(record), 'otel-genai');
  });

  for (const file of ['otel-genai-chat.jsonl', 'otel-genai-responses.jsonl']) {
    it(`${file}: one conversation per inference span, joined with its log records by span id`, () => {
      const { conversations, rejections } = readOtelGenai(lines(file));
      assert.deepEqual(rejections, []);
      assert.equal(conversations.length, 2, 'two chat calls; the agent and tool spans are not calls');
      assert.deepEqual(shape(conversations[0]!.trace.messages), CONVERSATION.slice(0, 3));
      assert.deepEqual(shape(conversations[1]!.trace.messages), CONVERSATION);
      assert.ok(
        conversations.every((c) => c.file === file && c.row === 1),
        'each at its span: line 1',
      );
      assert.equal(conversations[0]!.trace.tools, undefined, 'this instrumentation does not record tool definitions');
    });
  }

  it('content not captured: each span rejected with its id and the reason, no row', () => {
    const { conversations, rejections } = readOtelGenai(lines('otel-genai-chat-no-content.jsonl'));
    assert.equal(conversations.length, 0);
    assert.deepEqual(
      rejections.map((r) => [r.row, r.reason, r.detail.split(':')[0]]),
      [
        [1, 'content_not_captured', 'span 0000000000000003 (chat gpt-4.1-mini)'],
        [1, 'content_not_captured', 'span 0000000000000005 (chat gpt-4.1-mini)'],
      ],
    );
    assert.match(rejections[0]!.detail, /OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true/);
  });

  it('span attributes: instructions, parts messages with tool results, and tool definitions', () => {
    const record = exportRequest([
      {
        spanId: '00000000000000aa',
        name: 'chat travel-model',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'Flights LIS to BER on the 14th?' }] },
            { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'search_flights', arguments: FLIGHT }] },
            { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { flights: [] } }] },
            { role: 'user', parts: [{ type: 'text', content: 'Then a hotel, 3 nights.' }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: 'c2', name: 'book_hotel', arguments: HOTEL }],
              finish_reason: 'tool_call',
            },
          ]),
          'gen_ai.tool.definitions': JSON.stringify([
            { type: 'function', name: 'book_hotel', description: 'Reserve a room.', parameters: { type: 'object' } },
          ]),
        },
      },
    ]);
    const { conversations, rejections } = readOtelGenai([{ file: 'spans.jsonl', row: 1, record }]);
    assert.deepEqual(rejections, []);
    assert.deepEqual(shape(conversations[0]!.trace.messages), [
      ['system', 'Be brief.'],
      ['user', 'Flights LIS to BER on the 14th?'],
      ['assistant', null, ['c1', 'search_flights', FLIGHT]],
      ['tool', '{"flights":[]}', 'c1'],
      ['user', 'Then a hotel, 3 nights.'],
      ['assistant', null, ['c2', 'book_hotel', HOTEL]],
    ]);
    assert.deepEqual(conversations[0]!.trace.tools, [
      {
        type: 'function',
        function: { name: 'book_hotel', description: 'Reserve a room.', parameters: { type: 'object' } },
      },
    ]);
  });

  it('bad spans are named: messages that are not a list, an answer cut at max tokens, no answer', () => {
    const span = (spanId: string, attributes: Record<string, string>) => ({
      spanId,
      name: 'chat m',
      attributes: { 'gen_ai.operation.name': 'chat', ...attributes },
    });
    const record = exportRequest([
      span('0000000000000001', { 'gen_ai.input.messages': '{"role": "user"}' }),
      span('0000000000000002', {
        'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]',
        'gen_ai.output.messages': '[{"role":"assistant","parts":[],"finish_reason":"length"}]',
      }),
      span('0000000000000003', {
        'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]',
      }),
    ]);
    const { rejections } = readOtelGenai([{ file: 'bad.jsonl', row: 7, record }]);
    assert.deepEqual(
      rejections.map((r) => [r.file, r.row, r.reason, r.detail.split(' ')[1]]),
      [
        ['bad.jsonl', 7, 'invalid_shape', '0000000000000001'],
        ['bad.jsonl', 7, 'no_answer', '0000000000000002'],
        ['bad.jsonl', 7, 'no_answer', '0000000000000003'],
      ],
    );
  });
});

describe('ingesting OpenTelemetry traces', () => {
  let catalog: Catalog;
  before(async () => {
    catalog = await travelCatalog();
  });
  const ingest = (files: Array<[string, string]>, format?: 'otel-genai' | 'openai-chat') =>
    ingestTraces(
      files.flatMap(([name, body]) => parseTraceFile(name, body, format).traces),
      new CallValidator(catalog, async () => ({ ok: true })),
      { catalog },
    );

  it('two rows from the chat and the Responses recordings; the email redacted; counted per format', () => {
    for (const file of ['otel-genai-chat.jsonl', 'otel-genai-responses.jsonl']) {
      const r = ingest([[file, text(file)]], 'otel-genai');
      assert.deepEqual(r.rejections, [], file);
      assert.deepEqual(
        r.rows.map((row) => row.target.tool),
        ['search_flights', 'book_hotel'],
      );
      assert.ok(!JSON.stringify(r.rows).includes('ana.silva@example.com'), `${file}: email redacted`);
      assert.deepEqual(r.stats.byFormat, { 'otel-genai': { traces: 2, rows: 2 } });
      assert.ok(r.rows.every((row) => row.provenance.format === 'otel-genai'));
    }
  });

  it('spans and log records in separate files are joined; a conversation also logged as OpenAI chat is one row', () => {
    const [spans, logs] = text('otel-genai-chat.jsonl').trim().split('\n');
    const r = ingest([
      ['spans.jsonl', `${spans}\n`],
      ['logs.jsonl', `${logs}\n`],
      ['openai-chat.jsonl', text('openai-chat.jsonl')],
    ]);
    assert.deepEqual(r.rejections, []);
    assert.equal(r.rows.length, 2);
    assert.deepEqual(r.stats.byFormat['otel-genai'], { traces: 2, rows: 0 });
  });

  it('a failed execute_tool span marks its call as failed: not a training target', () => {
    const failed = text('otel-genai-chat.jsonl').replace(
      /("name":"execute_tool search_flights".*?"status":\{)"code":0\}/,
      '$1"code":2,"message":"upstream timeout"}',
    );
    assert.notEqual(failed, text('otel-genai-chat.jsonl'));
    const r = ingest([['otel.jsonl', failed]]);
    assert.deepEqual(
      r.rows.map((row) => row.target.tool),
      ['book_hotel'],
    );
    assert.equal(r.stats.droppedTurns.failed_result, 2, 'in both conversations that hold the call');
  });

  it('content not captured is a rejection per span; a source naming another format is a mismatch', () => {
    const r = ingest([['off.jsonl', text('otel-genai-chat-no-content.jsonl')]]);
    assert.equal(r.rows.length, 0);
    assert.deepEqual(
      r.rejections.map((x) => x.reason),
      ['content_not_captured', 'content_not_captured'],
    );
    const mismatch = ingest([['otel.jsonl', text('otel-genai-chat.jsonl')]], 'openai-chat');
    assert.deepEqual(
      mismatch.rejections.map((x) => [x.row, x.reason]),
      [
        [1, 'format_mismatch'],
        [2, 'format_mismatch'],
      ],
    );
  });
});

describe("the gateway's decision spans (core/traces/otel-span.ts)", () => {
  const trace = {
    messages: [
      { role: 'system' as const, content: 'Route the request.' },
      { role: 'user' as const, content: 'Flights LIS to BER on the 14th?' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function' as const,
            function: { name: 'search_flights', arguments: JSON.stringify(FLIGHT) },
          },
        ],
      },
    ],
    tools: [{ type: 'function' as const, function: { name: 'search_flights', parameters: { type: 'object' } } }],
    metadata: {
      domain: 'travel',
      persona: 'agent',
      scopes: ['t.read'],
      gateway: { version: 'router@v1', escalated: true, confidence: 0.2, reason: 'confidence 0.200 < 0.5' },
    },
  };
  const decision = {
    requestModel: 'router',
    responseModel: 'frontier-x',
    finishReason: 'tool_calls',
    usage: { input: 50, output: 9 },
  };
  const asRecord = (attributes: Record<string, unknown>) => ({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId: 'cd'.repeat(16),
                parentSpanId: undefined as string | undefined,
                spanId: '00000000000000bb',
                name: 'chat router',
                attributes: Object.entries(attributes).map(([key, v]) => ({
                  key,
                  value:
                    typeof v === 'string'
                      ? { stringValue: v }
                      : typeof v === 'boolean'
                        ? { boolValue: v }
                        : typeof v === 'number'
                          ? { doubleValue: v }
                          : { arrayValue: { values: (v as string[]).map((s) => ({ stringValue: s })) } },
                })),
              },
            ],
          },
        ],
      },
    ],
  });

  it('with capture on, the reader gets the conversation, the tools, the caller and the cascade back', () => {
    const a = decisionSpanAttributes(trace, decision, true);
    assert.equal(a['gen_ai.response.model'], 'frontier-x');
    assert.equal(a['flywheel.escalated'], true);
    const { conversations, rejections } = readOtelGenai([{ file: 'f', row: 1, record: asRecord(a) }]);
    assert.deepEqual(rejections, []);
    assert.deepEqual(conversations[0]!.trace.messages, trace.messages);
    assert.deepEqual(conversations[0]!.trace.tools, trace.tools);
    assert.deepEqual(conversations[0]!.trace.metadata, {
      domain: 'travel',
      persona: 'agent',
      scopes: ['t.read'],
      gateway: { escalated: true, version: 'router@v1' },
    });
  });

  it("an agent's own span of a call the gateway answered is not a second record of it", () => {
    const own = decisionSpanAttributes(
      { ...trace, metadata: { ...trace.metadata, gateway: { escalated: false } } },
      decision,
      true,
    );
    const client = Object.fromEntries(Object.entries(own).filter(([k]) => !k.startsWith('flywheel.')));
    const record = asRecord(client);
    const agentSpan = record.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    const gatewaySpan = {
      ...asRecord(own).resourceSpans[0]!.scopeSpans[0]!.spans[0]!,
      spanId: '00000000000000cc',
      parentSpanId: agentSpan.spanId,
    };
    record.resourceSpans[0]!.scopeSpans[0]!.spans.push(gatewaySpan);
    const { conversations } = readOtelGenai([{ file: 'f', row: 1, record }]);
    assert.deepEqual(
      conversations.map((c) => [c.spanId, (c.trace.metadata?.gateway as { escalated: boolean }).escalated]),
      [['00000000000000cc', false]],
    );
  });

  it('a span with an answer but no request is not a conversation', () => {
    const a = decisionSpanAttributes(trace, decision, true);
    delete a['gen_ai.input.messages'];
    const { rejections } = readOtelGenai([{ file: 'f', row: 1, record: asRecord(a) }]);
    assert.deepEqual(
      rejections.map((r) => r.reason),
      ['content_not_captured'],
    );
  });

  it('with capture off (the default), no content leaves the gateway, and the reader says so', () => {
    const a = decisionSpanAttributes(trace, decision, false);
    assert.ok(!JSON.stringify(a).includes('LIS'), 'no message text on the span');
    assert.equal(a['gen_ai.input.messages'], undefined);
    const { rejections } = readOtelGenai([{ file: 'f', row: 1, record: asRecord(a) }]);
    assert.deepEqual(
      rejections.map((r) => r.reason),
      ['content_not_captured'],
    );
  });
});
