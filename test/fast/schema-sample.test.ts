import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../core/rng.js';
import { compileSchema } from '../../core/schema/compile.js';
import {
  sampleArguments,
  sampleability,
  UnsampleableSchema,
  type FieldRef,
  type SampleOptions,
} from '../../core/schema/sample.js';
import { quotedExamples } from '../../core/schema/sample-strings.js';

type Schema = Record<string, unknown>;
type Args = Record<string, unknown>;

const obj = (properties: Schema, required: string[] = Object.keys(properties), extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  required,
  ...extra,
});

/** n draws from one seeded Rng, each checked against the schema with the project's ajv. */
function draws(schema: Schema, n = 50, seed: string | number = 'sample', opts: Partial<SampleOptions> = {}): Args[] {
  const compiled = compileSchema(schema);
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const args = sampleArguments(schema, { rng, ...opts });
    assert.ok(compiled.validate(args), `${JSON.stringify(args)}: ${JSON.stringify(compiled.validate.errors)}`);
    return args;
  });
}
const field = (schema: Schema, n = 50, name = 'x', seed: string | number = 'sample'): unknown[] =>
  draws(obj({ [name]: schema }), n, seed).map((a) => a[name]);
const distinct = (vs: unknown[]): Set<string> => new Set(vs.map((v) => JSON.stringify(v)));

const EDIT_FILE: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          oldText: { type: 'string', description: 'Text to search for - must match exactly' },
          newText: { type: 'string', description: 'Text to replace with' },
        },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
    dryRun: { type: 'boolean', default: false, description: 'Preview changes using git-style diff format' },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
};

const CREATE_ENTITIES: Schema = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The name of the entity' },
          entityType: { type: 'string', description: 'The type of the entity' },
          observations: {
            type: 'array',
            items: { type: 'string' },
            description: 'An array of observation contents associated with the entity',
          },
        },
        required: ['name', 'entityType', 'observations'],
        additionalProperties: false,
      },
    },
  },
  required: ['entities'],
  additionalProperties: false,
};

const TREE: Schema = {
  type: 'object',
  $defs: {
    node: {
      type: 'object',
      properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
      required: ['label'],
    },
  },
  properties: { root: { $ref: '#/$defs/node' } },
  required: ['root'],
};

describe('sampleArguments: every draw validates', () => {
  const cases: Array<[string, Schema]> = [
    ['empty object schema', { type: 'object' }],
    ['no properties, closed', { type: 'object', properties: {}, additionalProperties: false }],
    [
      'scalars',
      obj({
        s: { type: 'string' },
        i: { type: 'integer' },
        n: { type: 'number' },
        b: { type: 'boolean' },
        z: { type: 'null' },
      }),
    ],
    ['union types', obj({ a: { type: ['string', 'null'] }, b: { type: ['integer', 'string'] } })],
    ['untyped', obj({ anything: {}, t: true })],
    ['enum and const', obj({ e: { enum: ['a', 'b', 1, null] }, c: { const: { k: [1] } } })],
    [
      'defaults and examples',
      obj({
        d: { type: 'integer', default: 10 },
        e: { type: 'string', examples: ['x', 'y'] },
        f: { type: 'string', example: 'z' },
      }),
    ],
    [
      'formats',
      obj(
        Object.fromEntries(
          [
            'date',
            'date-time',
            'time',
            'email',
            'uri',
            'url',
            'uri-reference',
            'uuid',
            'hostname',
            'ipv4',
            'ipv6',
            'duration',
            'regex',
            'json-pointer',
            'uri-template',
          ].map((f) => [f, { type: 'string', format: f }]),
        ),
      ),
    ],
    [
      'bounded numbers',
      obj({
        a: { type: 'integer', minimum: -5, maximum: -3 },
        b: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.01 },
        c: { type: 'number', multipleOf: 0.25, minimum: 1000 },
        d: { type: 'integer', minimum: 1e6 },
      }),
    ],
    [
      'strings with bounds and patterns',
      obj({
        a: { type: 'string', minLength: 30, maxLength: 32 },
        b: { type: 'string', maxLength: 2 },
        c: { type: 'string', pattern: '^[a-z0-9-]{3,12}$' },
        d: { type: 'string', pattern: '^\\d+$', minLength: 12 },
      }),
    ],
    ['pattern and format together', obj({ a: { type: 'string', format: 'email', pattern: '@example\\.com$' } })],
    ['nested objects', obj({ a: obj({ b: obj({ c: { type: 'string' } }) }) })],
    [
      'patternProperties and required extra key',
      {
        type: 'object',
        required: ['x-trace'],
        patternProperties: { '^x-': { type: 'integer' } },
        additionalProperties: false,
      },
    ],
    ['tuple 2020', obj({ p: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } })],
    [
      'tuple draft-07',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...obj({ p: { type: 'array', items: [{ type: 'string' }, { type: 'boolean' }], additionalItems: false } }),
      },
    ],
    [
      'unique small enum array',
      obj({ a: { type: 'array', items: { enum: ['r', 'g', 'b'] }, uniqueItems: true, minItems: 3 } }),
    ],
    ['contains', obj({ a: { type: 'array', items: { type: 'integer' }, contains: { const: 42 }, maxItems: 4 } })],
    [
      'oneOf',
      obj({
        a: { oneOf: [{ type: 'string', format: 'email' }, { type: 'integer' }, { type: 'string', maxLength: 3 }] },
      }),
    ],
    ['anyOf with null', obj({ a: { anyOf: [{ type: 'string' }, { type: 'null' }] } })],
    [
      'allOf',
      obj({
        a: {
          allOf: [
            obj({ x: { type: 'integer', minimum: 1 } }),
            obj({ y: { type: 'string' } }),
            { properties: { x: { maximum: 3 } } },
          ],
        },
      }),
    ],
    [
      'if/then/else',
      {
        ...obj({ kind: { enum: ['file', 'url'] }, path: { type: 'string' }, url: { type: 'string', format: 'uri' } }, [
          'kind',
        ]),
        if: { properties: { kind: { const: 'file' } } },
        then: { required: ['path'] },
        else: { required: ['url'] },
      },
    ],
    ['not', obj({ a: { type: 'integer', minimum: 1, maximum: 3, not: { const: 2 } } })],
    [
      'dependentRequired',
      { ...obj({ a: { type: 'string' }, b: { type: 'string' } }, []), dependentRequired: { a: ['b'] } },
    ],
    [
      '$defs refs with siblings',
      {
        ...obj({ a: { $ref: '#/$defs/s', description: 'an id' }, b: { $ref: '#/$defs/o' } }),
        $defs: { s: { type: 'string', minLength: 2 }, o: obj({ c: { $ref: '#/$defs/s' } }) },
      },
    ],
    [
      'draft-07 definitions',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...obj({ a: { $ref: '#/definitions/n' } }),
        definitions: { n: { type: 'integer', maximum: 0 } },
      },
    ],
    [
      'pointer escapes',
      {
        ...obj({ a: { $ref: '#/$defs/a~1b' }, c: { $ref: '#/$defs/c~0d' } }),
        $defs: { 'a/b': { const: 1 }, 'c~d': { const: 2 } },
      },
    ],
    ['recursive tree', TREE],
    [
      'root recursion via #',
      { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } }, required: ['name'] },
    ],
    ['edit_file', EDIT_FILE],
    ['create_entities', CREATE_ENTITIES],
  ];
  for (const [name, schema] of cases) it(name, () => void draws(schema));
});

describe('types, enum, const and hints', () => {
  it('draws every scalar type as that type', () => {
    for (const a of draws(
      obj({ s: { type: 'string' }, i: { type: 'integer' }, n: { type: 'number' }, z: { type: 'null' } }),
    )) {
      assert.equal(typeof a.s, 'string');
      assert.ok(Number.isInteger(a.i));
      assert.equal(typeof a.n, 'number');
      assert.equal(a.z, null);
    }
    assert.deepEqual(distinct(field({ type: 'boolean' })), new Set(['true', 'false']));
  });
  it('prefers the non-null type of a nullable field, but not always', () => {
    const vs = field({ type: ['string', 'null'] }, 200);
    const nulls = vs.filter((v) => v === null).length;
    assert.ok(nulls > 0 && nulls < 50, `${nulls} nulls`);
    const viaAnyOf = field({ anyOf: [{ type: 'null' }, { type: 'integer' }] }, 200);
    assert.ok(viaAnyOf.filter((v) => v === null).length < 50);
  });
  it('picks enum values with variety, and const always', () => {
    const vs = field({ enum: ['asc', 'desc', 'none'] });
    assert.deepEqual(distinct(vs), new Set(['"asc"', '"desc"', '"none"']));
    assert.ok(field({ const: 'v1' }).every((v) => v === 'v1'));
  });
  it('uses default, examples and example often but not always', () => {
    for (const s of [
      { type: 'string', default: 'dflt-value' },
      { type: 'string', examples: ['ex-value'] },
      { type: 'string', example: 'ex-value' },
    ]) {
      const vs = field(s, 100, 'label');
      const hits = vs.filter((v) => v === 'dflt-value' || v === 'ex-value').length;
      assert.ok(hits > 15 && hits < 80, `${JSON.stringify(s)}: ${hits} hits`);
    }
  });
  it('skips a default that does not validate', () => {
    assert.ok(field({ type: 'integer', minimum: 1, maximum: 5, default: 0 }).every((v) => v !== 0));
  });
});

describe('formats and realistic strings', () => {
  const checks: Array<[string, RegExp]> = [
    ['date', /^2026-\d\d-\d\d$/],
    ['date-time', /^2026-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/],
    ['time', /^\d\d:\d\d:\d\dZ$/],
    ['email', /^[a-z]+\.[a-z]+@[a-z.]+$/],
    ['uri', /^https:\/\//],
    ['uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/],
    ['ipv4', /^\d+\.\d+\.\d+\.\d+$/],
    ['duration', /^P/],
  ];
  for (const [format, re] of checks) {
    it(`format ${format} gives plausible values near a fixed today`, () => {
      const vs = field({ type: 'string', format }) as string[];
      for (const v of vs) assert.match(v, re);
      assert.ok(distinct(vs).size > 5);
    });
  }
  it('names give realistic strings when there is no format, pattern or enum', () => {
    const props = Object.fromEntries(
      [
        'email',
        'homepageUrl',
        'filePath',
        'timezone',
        'query',
        'startTime',
        'dueDate',
        'userId',
        'language',
        'currency',
        'description',
        'title',
      ].map((k) => [k, { type: 'string' }]),
    );
    for (const a of draws(obj(props))) {
      assert.match(a.email as string, /@/);
      assert.match(a.homepageUrl as string, /^https:\/\//);
      assert.match(a.filePath as string, /^\//);
      assert.match(a.timezone as string, /^(UTC|[A-Z][a-z]+\/[A-Za-z_]+)$/);
      assert.match(a.query as string, /^[a-z]+( [a-z]+)*$/);
      assert.match(a.startTime as string, /^\d\d:\d\d$/);
      assert.match(a.dueDate as string, /^\d{4}-\d\d-\d\d$/);
      assert.match(a.userId as string, /^[\w-]+$/);
      assert.match(a.language as string, /^[a-z]{2}(-[A-Z]{2})?$/);
      assert.match(a.currency as string, /^[A-Z]{3}$/);
      assert.match(a.description as string, /\.$/);
      assert.ok((a.title as string).length > 0);
    }
  });
  it('honours minLength/maxLength and patterns', () => {
    for (const v of field({ type: 'string', minLength: 40, maxLength: 45 }) as string[])
      assert.ok(v.length >= 40 && v.length <= 45, v);
    const codes = field({ type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' }) as string[];
    for (const v of codes) assert.match(v, /^[A-Z]{3}-\d{4}$/);
    assert.ok(distinct(codes).size > 40);
    for (const v of field({ type: 'string', pattern: '^[a-z]+$', minLength: 20 }) as string[])
      assert.ok(v.length >= 20);
  });
  it('keeps pattern draws short', () => {
    for (const v of field({ type: 'string', pattern: '^a.*z$' }) as string[]) assert.ok(v.length <= 12, v);
  });
  it('uses values quoted in the description when they validate', () => {
    const desc = `Zone name (e.g., 'Mars/Olympus_Mons', "Venus/Maxwell" or \`Io/Loki\`)`;
    const vs = field({ type: 'string', description: desc }, 200, 'zone');
    for (const q of ['Mars/Olympus_Mons', 'Venus/Maxwell', 'Io/Loki']) assert.ok(vs.includes(q), q);
    const strict = field(
      { type: 'string', pattern: '^[a-z]+$', description: "e.g. 'Not Valid' or 'fine'" },
      200,
      'slug',
    );
    assert.ok(!strict.includes('Not Valid'));
    assert.ok(strict.includes('fine'));
  });
  it('reads quotes, not apostrophes', () => {
    assert.deepEqual(quotedExamples("The user's name, e.g. 'Ada' or \"Grace Hopper\"; don't guess"), [
      'Ada',
      'Grace Hopper',
    ]);
  });
});

describe('formats written in the description', () => {
  // A description that says how a value is written ("in the format of 'YYYY-MM-DD'") gives its shape, not a value.
  const named = (name: string, schema: Schema, n: number, meaning?: string[]): unknown[] =>
    draws(obj({ [name]: schema }), n, name, meaning ? { meaning } : {}).map((a) => a[name]);
  it('a date or clock template is filled in, never sent as the value, in either phrasing', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['trip_day', "Day of the trip, in the format of 'YYYY-MM-DD'.", /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/],
      ['pickup', "Pickup time in 24-hour format 'HH:MM'.", /^([01]\d|2[0-3]):[0-5]\d$/],
      [
        'starts',
        'When the meeting starts, formatted as "YYYY-MM-DD HH:mm:ss".',
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
      ],
      ['birthday', 'Birthday (format: MM/DD/YYYY)', /^(0[1-9]|1[0-2])\/(0[1-9]|[12]\d|3[01])\/\d{4}$/],
      [
        'since',
        "Start of the span, in the ISO 8601 format 'YYYY-MM-DDTHH:MM:SSZ'.",
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      ],
      ['vintage', "Year the wine was made, formatted as 'YYYY'; 'unknown' if nobody knows.", /^(\d{4}|unknown)$/],
      ['stay', "Nights booked, as 'YYYY-MM-DD to YYYY-MM-DD'.", /^\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/],
      ['alarm', "Alarm time like 'HH:MM AM/PM'.", /^(0[1-9]|1[0-2]):[0-5]\d (AM|PM)$/],
      ['lap', "Lap time in 'MM:SS'.", /^[0-5]\d:[0-5]\d$/],
      ['gig', "Gig day, e.g. 'DD MMM'.", /^(0[1-9]|[12]\d|3[01]) [A-Z][a-z]{2}$/],
      ['stamp', 'Compact day stamp, format YYYYMMDD', /^\d{4}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/],
      ['slot', "Slot as 'HH:MM DD.MM.YYYY'.", /^\d\d:\d\d (0[1-9]|[12]\d|3[01])\.(0[1-9]|1[0-2])\.\d{4}$/],
      ['check_in', 'Check-in day in DD.MM.YYYY format', /^(0[1-9]|[12]\d|3[01])\.(0[1-9]|1[0-2])\.\d{4}$/],
    ];
    for (const [name, description, shape] of cases)
      for (const meaning of [undefined, ['book', 'trip']])
        for (const v of named(name, { type: 'string', description }, 60, meaning))
          assert.match(String(v), shape, `${description} gave ${String(v)}`);
  });
  it('a range ends after it starts, and a season runs into the next year', () => {
    for (const v of named('stay', { type: 'string', description: "As 'YYYY-MM-DD to YYYY-MM-DD'." }, 40)) {
      const [from, to] = String(v).split(' to ');
      assert.ok(from! < to!, String(v));
    }
    for (const v of named('season', { type: 'string', description: "The season, formatted as 'YYYY-YYYY'." }, 40)) {
      const [a, b] = String(v).split('-').map(Number);
      assert.equal(b, a! + 1, String(v));
    }
  });
  it('a template with a format the sampler does not know still gives the shape', () => {
    const description = "The day, in the format of 'DD/MM/YYYY'.";
    for (const v of named('day', { type: 'string', format: 'binary', description }, 30))
      assert.match(String(v), /^\d\d\/\d\d\/\d{4}$/);
  });
  it('a one-word example after "format" is still an example', () => {
    const vs = named('style', { type: 'string', description: "Output format: 'Markdown' or 'HTML'." }, 100);
    assert.ok(vs.includes('Markdown') && vs.includes('HTML'));
  });
  it('a template that is not a date is not a value either; an example beside it still is', () => {
    const description = "The city, in the format of 'City, State', such as 'Berkeley, CA'.";
    const vs = named('city', { type: 'string', description }, 200);
    assert.ok(!vs.includes('City, State'));
    assert.ok(vs.includes('Berkeley, CA'));
  });
  it('an argument that is itself a format takes the template', () => {
    const description = "How to write the returned date, e.g. 'YYYY-MM-DD' or 'DD/MM/YYYY'.";
    const vs = named('date_format', { type: 'string', description }, 100);
    assert.ok(vs.includes('YYYY-MM-DD') && vs.includes('DD/MM/YYYY'));
  });
  it('a date shape mentioned in passing does not make the argument a date', () => {
    const description = "Filter: = != < >, 'quoted strings', numbers, NULL and YYYY-MM-DD values.";
    for (const v of named('where', { type: 'string', description }, 100))
      assert.doesNotMatch(String(v), /^\d{4}-\d\d-\d\d$/);
  });
});

describe('numbers', () => {
  it('honours inclusive, exclusive and multipleOf bounds', () => {
    assert.deepEqual(distinct(field({ type: 'integer', minimum: 5, maximum: 7 })), new Set(['5', '6', '7']));
    for (const v of field({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }) as number[])
      assert.ok(v > 0 && v < 1);
    for (const v of field({ type: 'integer', exclusiveMinimum: 3, exclusiveMaximum: 6 }) as number[])
      assert.ok(v === 4 || v === 5);
    const fives = field({ type: 'integer', multipleOf: 5, minimum: 1 }) as number[];
    assert.ok(fives.every((v) => v % 5 === 0 && v >= 5));
    assert.ok(distinct(fives).size > 3);
    const money = field(
      { type: 'number', minimum: 0, maximum: 1e12, exclusiveMinimum: 0, multipleOf: 0.01 },
      50,
      'amount',
    ) as number[];
    assert.ok(
      money.every((v) => v > 0 && v <= 1000 && Math.round(v * 100) === Number((v * 100).toFixed(6))),
      money.join(),
    );
  });
  it('keeps counts and limits small when unbounded', () => {
    for (const name of ['limit', 'page', 'offset', 'count', 'maxResults', 'per_page']) {
      for (const v of field({ type: 'integer' }, 30, name) as number[]) assert.ok(v >= 0 && v <= 50, `${name}=${v}`);
    }
    for (const v of field({ type: 'integer', minimum: 1000 }, 30, 'limit') as number[])
      assert.ok(v >= 1000 && v <= 1050);
  });
});

describe('objects and arrays', () => {
  const schema = obj({ a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'boolean' }, d: { type: 'string' } }, [
    'a',
  ]);
  it('always has required properties and a varied mix of optional ones', () => {
    const all = draws(schema, 100);
    assert.ok(all.every((x) => typeof x.a === 'string'));
    for (const k of ['b', 'c', 'd']) {
      const n = all.filter((x) => k in x).length;
      assert.ok(n > 20 && n < 80, `${k} present ${n}/100`);
    }
    assert.ok(distinct(all.map((x) => Object.keys(x).sort())).size >= 6);
  });
  it('optionalShare 0 and 1 mean none and all', () => {
    assert.ok(draws(schema, 20, 1, { optionalShare: 0 }).every((x) => Object.keys(x).join() === 'a'));
    assert.ok(draws(schema, 20, 1, { optionalShare: 1 }).every((x) => Object.keys(x).length === 4));
  });
  it('adds optional properties to reach minProperties and never invents others', () => {
    for (const x of draws({ ...schema, required: [], minProperties: 3, additionalProperties: true })) {
      assert.ok(Object.keys(x).length >= 3);
      assert.ok(Object.keys(x).every((k) => 'abcd'.includes(k)));
    }
  });
  it('draws a required property the object does not declare', () => {
    assert.ok(draws({ type: 'object', required: ['token'] }).every((x) => typeof x.token === 'string'));
  });
  it('honours minItems/maxItems with 1..3 items by default', () => {
    const lens = field({ type: 'array', items: { type: 'string' } }, 100).map((v) => (v as unknown[]).length);
    assert.deepEqual(new Set(lens), new Set([1, 2, 3]));
    for (const v of field({ type: 'array', items: { type: 'integer' }, minItems: 5, maxItems: 6 }) as unknown[][])
      assert.ok(v.length >= 5 && v.length <= 6);
    assert.ok(field({ type: 'array', maxItems: 0 }).every((v) => (v as unknown[]).length === 0));
  });
  it('draws tuples and distinct items', () => {
    for (const v of field({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    }) as unknown[][]) {
      assert.equal(v.length, 2);
      assert.equal(typeof v[0], 'string');
      assert.ok(Number.isInteger(v[1]));
    }
    for (const v of field({ type: 'array', items: { enum: [1, 2, 3] }, uniqueItems: true, minItems: 3 }) as number[][])
      assert.deepEqual([...v].sort(), [1, 2, 3]);
  });
  it('satisfies contains', () => {
    assert.ok(
      field({ type: 'array', items: { type: 'integer' }, contains: { const: 42 } }).every((v) =>
        (v as number[]).includes(42),
      ),
    );
  });
});

describe('combinators and $ref', () => {
  it('oneOf/anyOf draw from several branches', () => {
    const vs = field({ oneOf: [{ type: 'integer' }, { type: 'string', format: 'email' }] });
    assert.deepEqual(new Set(vs.map((v) => typeof v)), new Set(['number', 'string']));
    const any = field({ anyOf: [{ const: 'x' }, { const: 'y' }] });
    assert.deepEqual(distinct(any), new Set(['"x"', '"y"']));
  });
  it('oneOf over required sets gives one or the other, not both', () => {
    const s = {
      ...obj({ id: { type: 'integer' }, number: { type: 'string', pattern: '^\\d{4}$' } }, [], {
        additionalProperties: false,
      }),
      oneOf: [{ required: ['id'] }, { required: ['number'] }],
    };
    const all = draws(s, 100);
    assert.ok(all.every((a) => 'id' in a !== 'number' in a));
    assert.ok(all.some((a) => 'id' in a) && all.some((a) => 'number' in a));
  });
  it('allOf merges properties, required and bounds', () => {
    const vs = field({
      allOf: [
        obj({ x: { type: 'integer', minimum: 1 } }),
        obj({ y: { type: 'string' } }),
        { properties: { x: { maximum: 3 } } },
      ],
    }) as Args[];
    for (const v of vs) assert.ok((v.x as number) >= 1 && (v.x as number) <= 3 && typeof v.y === 'string');
  });
  it('not and if/then/else are respected', () => {
    assert.deepEqual(
      distinct(field({ type: 'integer', minimum: 1, maximum: 3, not: { const: 2 } })),
      new Set(['1', '3']),
    );
    const cond = {
      ...obj({ kind: { enum: ['file', 'url'] }, path: { type: 'string' }, url: { type: 'string', format: 'uri' } }, [
        'kind',
      ]),
      if: { properties: { kind: { const: 'file' } } },
      then: { required: ['path'] },
      else: { required: ['url'] },
    };
    const all = draws(cond, 100);
    assert.deepEqual(new Set(all.map((a) => a.kind)), new Set(['file', 'url']));
  });
  it('recursion stops at maxDepth by omitting optional recursive properties', () => {
    const depth = (n: Args): number => 1 + Math.max(0, ...((n.children as Args[] | undefined) ?? []).map(depth));
    const trees = draws(TREE, 50, 't', { optionalShare: 1, maxDepth: 4 }).map((a) => depth(a.root as Args));
    assert.ok(
      trees.every((d) => d <= 3),
      trees.join(),
    );
    assert.ok(trees.some((d) => d > 1));
  });
});

describe('real values from the server', () => {
  const schema = obj({
    fileId: { type: 'string', pattern: '^f-[0-9]+$' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
  });
  it('are tried first and only when they validate', () => {
    const seen: FieldRef[] = [];
    const values = (f: FieldRef): readonly unknown[] | undefined => {
      seen.push(f);
      if (f.name === 'fileId') return ['f-100', 'f-200', 'BAD', 42];
      if (f.path.join('/') === 'tags/[]') return ['urgent'];
      return undefined;
    };
    const all = draws(schema, 100, 'v', { values });
    const real = all.filter((a) => a.fileId === 'f-100' || a.fileId === 'f-200').length;
    assert.ok(real > 70 && real < 100, `${real} real`);
    assert.ok(all.every((a) => a.fileId !== 'BAD' && a.fileId !== 42));
    assert.ok(all.flatMap((a) => a.tags as string[]).filter((t) => t === 'urgent').length > 50);
    const f = seen.find((s) => s.name === 'fileId')!;
    assert.deepEqual(f.path, ['fileId']);
    assert.equal(f.schema.pattern, '^f-[0-9]+$');
    assert.ok(seen.some((s) => s.name === 'tags' && s.path.join('/') === 'tags/[]'));
  });
  it('are checked against a $ref-ed field schema with its $defs', () => {
    const s = {
      ...obj({ owner: { $ref: '#/$defs/login' } }),
      $defs: { login: { type: 'string', pattern: '^[a-z]+$' } },
    };
    const all = draws(s, 50, 'r', { values: (f) => (f.name === 'owner' ? ['Not-Valid', 'octocat'] : undefined) });
    assert.ok(all.every((a) => a.owner !== 'Not-Valid'));
    assert.ok(all.filter((a) => a.owner === 'octocat').length > 30);
  });
  it('fall back to synthetic values when none validate', () => {
    const all = draws(schema, 20, 'v', { values: () => ['nope'] });
    assert.ok(all.every((a) => /^f-\d+$/.test(a.fileId as string)));
  });
});

describe('determinism and variety', () => {
  it('the same seed gives the same draws', () => {
    for (const s of [EDIT_FILE, CREATE_ENTITIES, TREE]) assert.deepEqual(draws(s, 20, 'same'), draws(s, 20, 'same'));
  });
  it('different seeds give different draws', () => {
    assert.notDeepEqual(draws(CREATE_ENTITIES, 5, 'one'), draws(CREATE_ENTITIES, 5, 'two'));
    assert.ok(distinct(draws(EDIT_FILE, 30)).size > 25);
  });
  it('is fast on simple schemas', () => {
    const rng = new Rng(0);
    sampleArguments(EDIT_FILE, { rng });
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) sampleArguments(EDIT_FILE, { rng });
    const perDraw = (performance.now() - t0) / 1000;
    assert.ok(perDraw < 1, `${perDraw} ms per draw`);
  });
});

describe('realistic MCP tools', () => {
  it('edit_file: path, edits with old/new text, dryRun sometimes (default false often)', () => {
    const all = draws(EDIT_FILE, 100);
    for (const a of all) {
      assert.match(a.path as string, /^\//);
      assert.ok((a.edits as Args[]).length >= 1);
      for (const e of a.edits as Args[]) assert.deepEqual(Object.keys(e), ['oldText', 'newText']);
    }
    const dry = all.filter((a) => 'dryRun' in a);
    assert.ok(dry.length > 20 && dry.length < 80);
    assert.ok(dry.filter((a) => a.dryRun === false).length > dry.length / 2);
  });
  it('create_entities: entities with names, types and string observations', () => {
    for (const a of draws(CREATE_ENTITIES)) {
      for (const e of a.entities as Args[]) {
        assert.equal(typeof e.name, 'string');
        assert.equal(typeof e.entityType, 'string');
        assert.ok((e.observations as unknown[]).every((o) => typeof o === 'string'));
      }
    }
  });
  it('sampleability is ok for good schemas', () => {
    for (const s of [EDIT_FILE, CREATE_ENTITIES, TREE]) assert.deepEqual(sampleability(s, 'cat'), { ok: true });
  });
});

describe('schemas no argument set can be drawn for', () => {
  const req = (schema: Schema): Schema => obj({ a: schema });
  const cases: Array<[string, Schema, RegExp]> = [
    [
      'lookahead pattern',
      req({ type: 'string', pattern: '^(?=a)b$' }),
      /^a: pattern \/\^\(\?=a\)b\$\/ cannot be satisfied/,
    ],
    ['empty character class', req({ type: 'string', pattern: '[^\\s\\S]' }), /pattern .* cannot be satisfied/],
    [
      'pattern against maxLength',
      req({ type: 'string', pattern: '^[a-z]{10}$', maxLength: 5 }),
      /pattern .* cannot be satisfied with length 0\.\.5/,
    ],
    [
      'cyclic required $ref',
      { ...req({ $ref: '#/$defs/node' }), $defs: { node: obj({ next: { $ref: '#/$defs/node' } }) } },
      /cyclic \$ref #\/\$defs\/node through required property "next"/,
    ],
    ['minimum > maximum', req({ type: 'integer', minimum: 10, maximum: 5 }), /^a: minimum 10 > maximum 5/],
    [
      'exclusive bounds with no integer',
      req({ type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 2 }),
      /^a: exclusive minimum 1 > exclusive maximum 2/,
    ],
    ['minLength > maxLength', req({ type: 'string', minLength: 10, maxLength: 5 }), /^a: minLength 10 > maxLength 5/],
    ['minItems > maxItems', req({ type: 'array', minItems: 4, maxItems: 2 }), /^a: minItems 4 > maxItems 2/],
    [
      'minProperties beyond declared',
      req({ type: 'object', properties: { b: { type: 'string' } }, minProperties: 2 }),
      /^a: minProperties 2/,
    ],
    ['false schema for a required property', req(false as unknown as Schema), /^a: schema is false/],
    [
      'required property not in a closed object',
      { type: 'object', properties: {}, required: ['x'], additionalProperties: false },
      /required property "x" is not allowed/,
    ],
    [
      'allOf with disjoint types',
      req({ allOf: [{ type: 'string' }, { type: 'integer' }] }),
      /^a: types .* do not overlap/,
    ],
    ['allOf with different consts', req({ allOf: [{ const: 1 }, { const: 2 }] }), /^a: const 1 conflicts with const 2/],
    [
      'remote $ref',
      req({ $ref: 'https://example.com/schemas/thing.json' }),
      /remote \$ref https:\/\/example\.com\/schemas\/thing\.json/,
    ],
    ['empty enum', req({ enum: [] }), /does not compile: .*enum/],
    ['unknown type', req({ type: 'strin' }), /does not compile: .*type/],
    ['unknown format', req({ type: 'string', format: 'colour' }), /does not compile: .*unknown format "colour"/],
    ['arguments that are not an object', { type: 'string' }, /not describe an object/],
    [
      'uniqueItems beyond the enum',
      req({ type: 'array', items: { enum: [1, 2] }, uniqueItems: true, minItems: 3 }),
      /uniqueItems/,
    ],
  ];
  for (const [name, schema, reason] of cases) {
    it(name, () => {
      assert.throws(
        () => sampleArguments(schema, { rng: new Rng(1) }),
        (err: unknown) =>
          err instanceof UnsampleableSchema &&
          err.name === 'UnsampleableSchema' &&
          reason.test(err.reason) &&
          err.message === err.reason,
      );
      const check = sampleability(schema, 'catalog');
      assert.equal(check.ok, false);
      assert.match((check as { reason: string }).reason, reason);
    });
  }
  it('an optional property that cannot be drawn is left out rather than failing the tool', () => {
    const s = obj({ ok: { type: 'string' }, broken: { type: 'integer', minimum: 3, maximum: 1 } }, ['ok']);
    assert.ok(draws(s, 20, 1, { optionalShare: 1 }).every((a) => !('broken' in a)));
  });
  it('a draw that keeps failing validation reports the ajv error', () => {
    // allOf with additionalProperties:false on one member forbids the other member's required property.
    const s = { allOf: [{ type: 'object', additionalProperties: false }, obj({ x: { type: 'string' } })] };
    assert.throws(
      () => sampleArguments(s, { rng: new Rng(1) }),
      (err: unknown) =>
        err instanceof UnsampleableSchema &&
        /no draw passed validation in 20 attempts: .*additional properties/.test(err.reason),
    );
  });
});
