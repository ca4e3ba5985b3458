/**
 * The grounding check (core/router/grounding.ts, applied by core/router/checks.ts): which values must come from
 * the conversation, and what a call becomes when one does not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Prediction } from '../../core/router/answer.js';
import { checkGrounding } from '../../core/router/checks.js';
import { grounded, sourceWords, ungrounded } from '../../core/router/grounding.js';

const CONVERSATION = [
  { role: 'system', content: 'Caller: controller; workspace 99999' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Invoice cust 20234 for the Support renewal, 3 seats at $4,082 each' },
      { type: 'text', text: 'account 0018d00000000J4QAA, ticket INV-48213' },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'find', arguments: '{"orderId": 777123}' } }],
  },
  { role: 'tool', content: '{"jeHeaderId": 40607}' },
];
const SOURCE = sourceWords(CONVERSATION);

const tool = (properties: Record<string, unknown>, required: string[], extra: Record<string, unknown> = {}) => [
  { type: 'function', function: { name: 't', parameters: { type: 'object', properties, required, ...extra } } },
];
const call = (args: Record<string, unknown>): Prediction => ({
  kind: 'call',
  tool: 't',
  arguments: args,
  extraCalls: 0,
});

describe('grounding', () => {
  it('an id must be copied whole from any turn of the conversation', () => {
    assert.ok(grounded(20234, SOURCE));
    assert.ok(grounded(40607, SOURCE), 'tool results');
    assert.ok(grounded(777123, SOURCE), "earlier calls' arguments");
    assert.ok(grounded(99999, SOURCE), "the system prompt (an agent's workspace id)");
    assert.ok(grounded('0018d00000000J4QAA', SOURCE), 'content parts, as OpenAI SDKs send them');
    assert.ok(grounded(4082, SOURCE), 'thousands separators aside');
    assert.ok(!grounded(20235, SOURCE));
    assert.ok(!grounded('0018d0000000J4QAA1', SOURCE), 'a miscopied id');
    assert.ok(!grounded('INV-482', SOURCE), 'a truncated one: whole words only');
    assert.ok(grounded('INV-48213', SOURCE));
  });

  it('what is not an id is left alone', () => {
    assert.ok(grounded(7, SOURCE), 'a quantity');
    assert.ok(grounded(12.5, SOURCE), 'a fraction');
    assert.ok(grounded('', SOURCE) && grounded('   ', SOURCE));
    assert.ok(grounded('SELECT id FROM t WHERE n > 2024', SOURCE), 'free text (whitespace)');
    assert.ok(grounded(`${'x'.repeat(100)}1`, SOURCE), 'too long for an id');
    assert.ok(grounded(true, SOURCE));
  });

  it('only keys that name an identifier are checked', () => {
    const props = {
      jeHeaderId: { type: 'integer' },
      quantity: { type: 'integer' },
      url: { type: 'string' },
      periodCode: { type: 'string', enum: ['P1'] },
      issue_number: { type: 'number' },
      dueDate: { type: 'string' },
    };
    const args = {
      jeHeaderId: 51234,
      quantity: 3000,
      url: 'https://docs.python.org/3.12/',
      periodCode: 'P1',
      issue_number: 8812,
      dueDate: '2031-01-01',
    };
    assert.deepEqual(ungrounded(args, { type: 'object', properties: props, required: Object.keys(props) }, SOURCE), {
      missing: ['jeHeaderId', 'issue_number'],
      droppable: [],
    });
    assert.deepEqual(ungrounded({ x: 1 }, undefined, SOURCE), { missing: [], droppable: [] });
  });

  it('a required ungrounded id makes the answer missing_argument', () => {
    const tools = tool({ jeHeaderId: { type: 'integer' } }, ['jeHeaderId']);
    assert.deepEqual(checkGrounding(call({ jeHeaderId: 51234 }), { tools, messages: CONVERSATION }), {
      prediction: { kind: 'no-call', verdict: 'abstain', code: 'missing_argument' },
      ungrounded: ['jeHeaderId'],
    });
    const ok = call({ jeHeaderId: 40607 });
    assert.deepEqual(checkGrounding(ok, { tools, messages: CONVERSATION }), { prediction: ok });
  });

  it('an optional ungrounded id is dropped unless an alternative requires it', () => {
    const props = {
      custAccountId: { type: 'integer' },
      accountNumber: { type: 'string' },
      status: { type: 'string', enum: ['OP'] },
      trxNumber: { type: 'string' },
      when: { type: 'string', format: 'date' },
    };
    const tools = tool(props, ['custAccountId'], {
      oneOf: [{ required: ['trxNumber'] }, { required: ['custAccountId'] }],
    });
    const answer = call({
      accountNumber: 'C123456789',
      custAccountId: 20234,
      status: 'OP',
      trxNumber: '77777',
      when: '2031-01-01',
    });
    const checked = checkGrounding(answer, { tools, messages: CONVERSATION });
    assert.deepEqual(checked.prediction, {
      kind: 'call',
      tool: 't',
      arguments: { custAccountId: 20234, status: 'OP', trxNumber: '77777', when: '2031-01-01' },
      extraCalls: 0,
    });
    assert.deepEqual(checked.dropped, { accountNumber: 'C123456789' }, 'enum and format values are not checked');
    const noCall: Prediction = { kind: 'no-call', verdict: 'abstain', code: 'no_tool' };
    assert.deepEqual(checkGrounding(noCall, { tools, messages: CONVERSATION }), { prediction: noCall });
    const other: Prediction = { kind: 'call', tool: 'other', arguments: { someId: 'zzz9' }, extraCalls: 0 };
    assert.deepEqual(checkGrounding(other, { tools, messages: CONVERSATION }), { prediction: other }, 'not offered');
  });
});
