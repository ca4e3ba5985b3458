/**
 * Traces in the formats people have (core/traces/formats/): OpenAI chat completions logs, OpenAI Responses logs and
 * Anthropic Messages logs, each read into the one trace the pipeline validates. The fixtures are one travel
 * conversation written by the real client libraries (test/fixtures/traces/formats/make.ts); the expected traces
 * below are written by hand from that conversation.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Catalog } from '../../core/catalog/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { detectTraceFormat, readTraceRecord } from '../../core/traces/formats/index.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import type { TraceMessage } from '../../core/traces/types.js';
import { makeFormatFixtures } from '../fixtures/traces/formats/make.js';
import { REPO } from '../helpers/fixtures.js';
import { travelCatalog } from '../helpers/travel-catalog.js';

const DIR = join(REPO, 'test', 'fixtures', 'traces', 'formats');
const FILES = {
  'openai-chat': 'openai-chat.jsonl',
  'openai-responses': 'openai-responses.jsonl',
  anthropic: 'anthropic.jsonl',
};
const records = (file: string) =>
  readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const SYSTEM = 'You are a travel assistant. Use the tools to search and book.';
const ASK_FLIGHT = 'Find us a flight from Lisbon to Berlin on 2026-03-14, two of us.';
const FLIGHTS = '{"flights": [{"id": "TP530", "price": 182}, {"id": "LH1167", "price": 240}]}';
const SAID = 'TP530 at 182 EUR is the cheapest.';
const ASK_HOTEL = 'Book a hotel there for 3 nights from the 14th; write to ana.silva@example.com.';

/** The whole conversation as the second record holds it, with this format's call ids. */
function conversation(
  flightId: string,
  hotelId: string,
): Array<Omit<TraceMessage, 'tool_calls'> & { calls?: unknown }> {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: ASK_FLIGHT },
    {
      role: 'assistant',
      content: null,
      calls: [[flightId, 'search_flights', { origin: 'LIS', destination: 'BER', date: '2026-03-14', passengers: 2 }]],
    },
    { role: 'tool', tool_call_id: flightId, content: FLIGHTS },
    { role: 'assistant', content: SAID },
    { role: 'user', content: ASK_HOTEL },
    {
      role: 'assistant',
      content: null,
      calls: [[hotelId, 'book_hotel', { city: 'Berlin', check_in: '2026-03-14', nights: 3, guests: 2 }]],
    },
  ];
}

/** A trace's messages with each call's arguments parsed, to compare with `conversation`. */
const shape = (messages: TraceMessage[]) =>
  messages.map(({ tool_calls, ...m }) => ({
    ...m,
    ...(m.role === 'assistant' ? { content: m.content ?? null } : {}),
    ...(tool_calls ? { calls: tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]) } : {}),
  }));

describe('trace formats', () => {
  it('the fixtures are what the client libraries write', async () => {
    for (const [name, text] of Object.entries(await makeFormatFixtures()))
      assert.equal(text, readFileSync(join(DIR, name), 'utf8'), `${name}: run test/fixtures/traces/formats/make.ts`);
  });

  it('tells each format from its shape, and the plain trace from the gateway as messages', () => {
    for (const [format, file] of Object.entries(FILES))
      for (const r of records(file)) assert.equal(detectTraceFormat(r), format, file);
    const plain = JSON.parse(
      readFileSync(join(REPO, 'test', 'fixtures', 'traces', 'good.jsonl'), 'utf8').split('\n')[0]!,
    );
    assert.equal(detectTraceFormat(plain), 'messages');
    assert.equal(detectTraceFormat({ hello: 'world' }), null);
    assert.equal(detectTraceFormat([1, 2]), null);
  });

  for (const [format, file, flightId, hotelId] of [
    ['openai-chat', FILES['openai-chat'], 'call_flight', 'call_hotel'],
    ['openai-responses', FILES['openai-responses'], 'call_flight', 'call_hotel'],
    ['anthropic', FILES.anthropic, 'toolu_call_flight', 'toolu_call_hotel'],
  ] as const) {
    it(`${format}: the request's conversation, then the response's answer; its tools as OpenAI tools`, () => {
      const [first, second] = records(file).map((r) => readTraceRecord(r));
      assert.deepEqual(shape(first!.trace.messages), conversation(flightId, hotelId).slice(0, 3));
      assert.deepEqual(shape(second!.trace.messages), conversation(flightId, hotelId));
      assert.equal(second!.format, format);
      assert.deepEqual(
        second!.trace.tools!.map((t) => [t.type, t.function.name, Object.keys(t.function.parameters ?? {})]),
        [
          ['function', 'search_flights', ['type', 'properties', 'required']],
          ['function', 'book_hotel', ['type', 'properties', 'required']],
        ],
      );
    });
  }

  it('a source that names its format reads it as that format, and says so when a record is another', () => {
    const chat = records(FILES['openai-chat'])[0]!;
    assert.equal(readTraceRecord(chat, 'openai-chat').format, 'openai-chat');
    assert.throws(() => readTraceRecord(chat, 'anthropic'), /format_mismatch|reads as openai-chat, not anthropic/);
  });
});

describe('what each format reader reads (docs/traces.md)', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'book_hotel', arguments: '{}' } });

  it('openai-chat: developer as system, text parts joined and images left out, caller from request.metadata', () => {
    const { trace } = readTraceRecord({
      request: {
        model: 'm',
        metadata: { domain: 'travel', persona: 'agent' },
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Book it.' },
              { type: 'image_url', image_url: { url: 'data:,' } },
              { type: 'text', text: 'Tonight.' },
            ],
          },
        ],
      },
      response: { object: 'chat.completion', choices: [{ message: { role: 'assistant', tool_calls: [call('c1')] } }] },
    });
    assert.deepEqual(
      trace.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'Be brief.'],
        ['user', 'Book it.\nTonight.'],
        ['assistant', null],
      ],
    );
    assert.deepEqual(trace.metadata, { domain: 'travel', persona: 'agent' });
  });

  it('openai-responses: a string input, reasoning items skipped, built-in tools not offered', () => {
    const { trace } = readTraceRecord({
      request: { input: 'Book it.', tools: [{ type: 'web_search' }, { type: 'function', name: 'book_hotel' }] },
      response: {
        object: 'response',
        status: 'completed',
        output: [
          { type: 'reasoning', summary: [] },
          { type: 'function_call', call_id: 'c1', name: 'book_hotel', arguments: '{}' },
        ],
      },
    });
    assert.deepEqual(
      trace.messages.map((m) => [m.role, m.tool_calls?.[0]?.id ?? m.content]),
      [
        ['user', 'Book it.'],
        ['assistant', 'c1'],
      ],
    );
    assert.deepEqual(
      trace.tools!.map((t) => t.function.name),
      ['book_hotel'],
    );
  });

  it('anthropic: system as blocks, thinking kept apart from the text, server tools not offered', () => {
    const { trace } = readTraceRecord({
      request: {
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [{ role: 'user', content: 'Book it.' }],
        tools: [
          { type: 'web_search_20250305', name: 'web_search' },
          { name: 'book_hotel', input_schema: { type: 'object' } },
        ],
      },
      response: {
        type: 'message',
        role: 'assistant',
        stop_reason: 'tool_use',
        content: [
          { type: 'thinking', thinking: 'They want a hotel.' },
          { type: 'text', text: 'Booking.' },
          { type: 'tool_use', id: 't1', name: 'book_hotel', input: {} },
        ],
      },
    });
    const last = trace.messages.at(-1)!;
    assert.equal(trace.messages[0]!.content, 'Be brief.');
    assert.deepEqual(
      [last.content, last.reasoning_content, last.tool_calls?.[0]?.id],
      ['Booking.', 'They want a hotel.', 't1'],
    );
    assert.deepEqual(
      trace.tools!.map((t) => t.function.name),
      ['book_hotel'],
    );
  });
});

/** Bad records, at least three kinds per format; each names why. */
describe('bad records in each format', () => {
  const chat = () => structuredClone(records(FILES['openai-chat'])[1]!) as any;
  const resp = () => structuredClone(records(FILES['openai-responses'])[1]!) as any;
  const anth = () => structuredClone(records(FILES.anthropic)[1]!) as any;
  const reason = (record: unknown) => {
    try {
      readTraceRecord(record);
    } catch (err) {
      return (err as { reason?: string }).reason;
    }
    return 'read';
  };

  it('openai-chat: no choice, arguments that are not a string, the legacy function_call', () => {
    const noChoice = chat();
    noChoice.response.choices = [];
    assert.equal(reason(noChoice), 'no_answer');
    const args = chat();
    args.response.choices[0].message.tool_calls[0].function.arguments = { city: 'Berlin' };
    assert.equal(reason(args), 'invalid_shape');
    const legacy = chat();
    legacy.response.choices[0].message = {
      role: 'assistant',
      content: null,
      function_call: { name: 'x', arguments: '{}' },
    };
    assert.equal(reason(legacy), 'unsupported');
  });

  it('openai-responses: an incomplete response, a call without call_id, input that is neither text nor a list', () => {
    const incomplete = resp();
    incomplete.response.status = 'incomplete';
    assert.equal(reason(incomplete), 'no_answer');
    const noId = resp();
    delete noId.response.output[0].call_id;
    assert.equal(reason(noId), 'invalid_shape');
    const input = resp();
    input.request.input = 42;
    assert.equal(reason(input), 'invalid_shape');
  });

  it('anthropic: tool input that is not an object, an answer cut at max_tokens, a message without content', () => {
    const input = anth();
    input.response.content[0].input = '{"city": "Berlin"}';
    assert.equal(reason(input), 'invalid_shape');
    const cut = anth();
    cut.response.stop_reason = 'max_tokens';
    assert.equal(reason(cut), 'no_answer');
    const empty = anth();
    delete empty.request.messages[0].content;
    assert.equal(reason(empty), 'invalid_shape');
  });
});

describe('ingesting the formats', () => {
  let catalog: Catalog;
  before(async () => {
    catalog = await travelCatalog();
  });
  const ingest = (files: string[]) => {
    const parsed = files.flatMap((f) => parseTraceFile(f, readFileSync(join(DIR, f), 'utf8')).traces);
    return ingestTraces(parsed, new CallValidator(catalog, async () => ({ ok: true })), { catalog });
  };

  it('each format alone: two rows, the flight search and the hotel booking, the email redacted', () => {
    for (const [format, file] of Object.entries(FILES)) {
      const r = ingest([file]);
      assert.deepEqual(r.rejections, [], format);
      assert.deepEqual(
        r.rows.map((row) => row.target.tool),
        ['search_flights', 'book_hotel'],
        format,
      );
      assert.equal(r.stats.duplicates, 1, `${format}: the first record's call again in the second`);
      assert.ok(!JSON.stringify(r.rows).includes('ana.silva@example.com'), `${format}: email redacted`);
      assert.deepEqual(r.stats.byFormat, { [format]: { traces: 2, rows: 2 } });
      assert.ok(r.rows.every((row) => row.provenance.format === format));
    }
  });

  it('a record in no format read is rejected with its file and line; the rest of the file is read', () => {
    const text = `${JSON.stringify({ hello: 'world' })}\n${readFileSync(join(DIR, FILES.anthropic), 'utf8')}`;
    const parsed = parseTraceFile('mixed.jsonl', text).traces;
    const r = ingestTraces(parsed, new CallValidator(catalog, async () => ({ ok: true })), { catalog });
    assert.deepEqual(
      r.rejections.map((x) => [x.file, x.row, x.reason]),
      [['mixed.jsonl', 1, 'unknown_format']],
    );
    assert.equal(r.rows.length, 2);
  });

  it('one conversation in three formats is counted once', () => {
    const r = ingest(Object.values(FILES));
    assert.equal(r.rows.length, 2);
    assert.equal(r.stats.duplicates, 7);
  });

  it('an Anthropic tool_result marked is_error is a failed call, not a training target', () => {
    const text = readFileSync(join(DIR, FILES.anthropic), 'utf8').replace(
      '"type":"tool_result","tool_use_id":"toolu_call_flight"',
      '"type":"tool_result","is_error":true,"tool_use_id":"toolu_call_flight"',
    );
    const parsed = parseTraceFile('anthropic.jsonl', text).traces.slice(1);
    const r = ingestTraces(parsed, new CallValidator(catalog, async () => ({ ok: true })), { catalog });
    assert.deepEqual(
      r.rows.map((row) => row.target.tool),
      ['book_hotel'],
    );
    assert.equal(r.stats.droppedTurns.failed_result, 1);
  });
});
