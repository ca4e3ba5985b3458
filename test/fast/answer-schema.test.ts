/**
 * The router answer's JSON Schema, as an engine with structured outputs (vLLM) decodes inside it: what it lets
 * through and what it keeps out, checked with ajv.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import type { RenderedRow } from '../../core/dataset/render.js';
import { answerConstraint, routerAnswerSchema } from '../../core/eval/answer-schema.js';

const tool = (name: string, parameters: Record<string, unknown>): RenderedRow['tools'][number] => ({
  type: 'function',
  function: { name, description: '', parameters },
});
const tools = [
  tool('get_invoice', {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { number: { type: 'string' }, year: { type: 'integer' } },
    required: ['number'],
  }),
  tool('list_accounts', { type: 'object', properties: { region: { enum: ['emea', 'apac'] } }, required: ['region'] }),
  tool('linked', {
    type: 'object',
    properties: { node: { $ref: '#/$defs/node' } },
    $defs: { node: { type: 'object', properties: { id: { type: 'string' } } } },
  }),
];
const valid = new Ajv({ strict: false }).compile(routerAnswerSchema(tools));

describe('the router answer schema over the offered tools', () => {
  it('lets through a call to an offered tool with valid arguments, and every known no-call', () => {
    for (const answer of [
      { tool: 'get_invoice', arguments: { number: '2500' } },
      { tool: 'get_invoice', arguments: { number: '2500', year: 2026 } },
      { tool: 'list_accounts', arguments: { region: 'apac' } },
      { tool: null, verdict: 'abstain', code: 'no_tool' },
      { tool: null, verdict: 'violation', code: 'missing_scope' },
      { tool: null, verdict: 'escalate', code: 'prompt_injection' },
    ])
      assert.ok(valid(answer), `${JSON.stringify(answer)}: ${JSON.stringify(valid.errors)}`);
  });

  it('keeps out a tool not offered, arguments off its schema, a code under another verdict, extra keys', () => {
    for (const answer of [
      { tool: 'delete_invoice', arguments: { number: '2500' } },
      { tool: 'get_invoice', arguments: {} },
      { tool: 'get_invoice', arguments: { number: 2500 } },
      { tool: 'list_accounts', arguments: { region: 'mars' } },
      { tool: 'get_invoice' },
      { tool: null, verdict: 'abstain', code: 'missing_scope' },
      { tool: null, verdict: 'maybe', code: 'no_tool' },
      { tool: null, verdict: 'abstain' },
      { tool: 'get_invoice', arguments: { number: '1' }, reason: 'extra' },
    ])
      assert.ok(!valid(answer), `${JSON.stringify(answer)} should be refused`);
  });

  it("with the adapter's catalog tools, names those too (as serve lets it), while the prompt offers only the request's", () => {
    const catalog = [tool('delete_invoice', { type: 'object', properties: { number: { type: 'string' } } }), tools[0]!];
    const fields = answerConstraint([tools[0]!], catalog) as {
      tool_choice: string;
      response_format: { json_schema: { schema: Record<string, unknown> } };
    };
    const check = new Ajv({ strict: false }).compile(fields.response_format.json_schema.schema);
    assert.ok(check({ tool: 'delete_invoice', arguments: { number: '7' } }), 'a catalog tool the request lacks');
    assert.ok(check({ tool: 'get_invoice', arguments: { number: '7' } }));
    assert.ok(!check({ tool: 'list_accounts', arguments: { region: 'apac' } }), 'neither offered nor in the catalog');
    assert.equal((fields.response_format.json_schema.schema.anyOf as unknown[]).length, 2 + 3, 'get_invoice once');
    assert.equal(fields.tool_choice, 'none');
  });

  it("leaves a tool whose schema has $ref as any object (its references point at the tool schema's root)", () => {
    assert.ok(valid({ tool: 'linked', arguments: { node: { id: 'n1' } } }));
    assert.ok(valid({ tool: 'linked', arguments: { anything: true } }));
  });

  it("says in the words engines compile: oneOf as anyOf, and no keyword vLLM's grammar backends refuse, at any depth", () => {
    const awkward = tool('apply_receipt', {
      type: 'object',
      properties: {
        payer: {
          oneOf: [
            { type: 'string', format: 'email' },
            { type: 'integer', minimum: 1 },
          ],
        },
        lines: {
          type: 'array',
          uniqueItems: true,
          minItems: 1,
          items: { type: 'object', properties: { on: { type: 'string', format: 'date' } }, not: { required: ['x'] } },
        },
        site: { type: 'string', format: 'uri-reference', pattern: '^/', maxLength: 40 },
      },
      required: ['payer'],
      minProperties: 1,
    });
    const schema = routerAnswerSchema([awkward]);
    const text = JSON.stringify(schema);
    for (const refused of ['oneOf', 'uniqueItems', '"not"', 'uri-reference', 'minProperties'])
      assert.ok(!text.includes(refused), `${refused} left in ${text}`);
    // What engines take stays: bounds, patterns, the formats they know, the alternatives as anyOf.
    for (const kept of [
      '"anyOf":[{"type":"string","format":"email"}',
      '"minItems":1',
      '"pattern":"^/"',
      '"format":"email"',
      '"format":"date"',
      '"minimum":1',
    ])
      assert.ok(text.includes(kept), `${kept} missing from ${text}`);
    const lowered = new Ajv({ strict: false }).compile(schema);
    assert.ok(lowered({ tool: 'apply_receipt', arguments: { payer: 7, lines: [{ on: '2026-01-02' }] } }));
    assert.ok(!lowered({ tool: 'apply_receipt', arguments: { payer: true } }), 'a value neither branch takes');
  });

  it('takes no argument a schema does not list, as serve does, unless the schema or a sibling branch allows it', () => {
    const shapes = tool('shapes', {
      type: 'object',
      properties: {
        point: { type: 'object', properties: { x: { type: 'number' } } },
        free: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
        both: {
          allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } } }],
        },
      },
    });
    const check = new Ajv({ strict: false }).compile(routerAnswerSchema([shapes]));
    assert.ok(check({ tool: 'shapes', arguments: { point: { x: 1 } } }));
    assert.ok(!check({ tool: 'shapes', arguments: { point: { x: 1 }, extra: 1 } }), 'an argument the tool lacks');
    assert.ok(!check({ tool: 'shapes', arguments: { point: { x: 1, y: 2 } } }), 'a key a nested object lacks');
    assert.ok(check({ tool: 'shapes', arguments: { free: { a: 'x', z: 1 } } }), 'additionalProperties: true');
    assert.ok(
      check({ tool: 'shapes', arguments: { both: { a: 'x', b: 'y' } } }),
      "each allOf branch lists the other's",
    );
  });

  it('loosens what engines refuse: a oneOf beside an anyOf keeps both, patternProperties take additionalProperties with them', () => {
    const both = tool('both', {
      type: 'object',
      properties: {
        v: { anyOf: [{ type: 'string' }, { type: 'integer' }], oneOf: [{ type: 'integer' }, { type: 'boolean' }] },
        tags: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
      },
    });
    const check = new Ajv({ strict: false }).compile(routerAnswerSchema([both]));
    assert.ok(check({ tool: 'both', arguments: { v: 3 } }), 'in both the anyOf and the oneOf');
    assert.ok(!check({ tool: 'both', arguments: { v: 'x' } }), 'the anyOf alone is not enough');
    assert.ok(check({ tool: 'both', arguments: { tags: { 'x-a': 'b' } } }), 'what the patternProperties allowed');
  });
});
