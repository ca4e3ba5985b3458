/**
 * Natural phrasing draws an argument's value by what it means in its tool (its name, its description and the
 * tool's words): a year looks like a year, an angle like an angle, a count of people is a handful, an airport is an
 * airport and a payment's receiver a person. Written before the sampler learnt these, on schemas shaped like
 * public servers' (booking, payments, finance, physics calculators), none of them a BFCL function. Without
 * `meaning` (the described phrasing) the sampler draws what it always drew.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleArguments } from '../../core/schema/sample.js';
import { Rng } from '../../core/rng.js';

type Props = Record<string, Record<string, unknown>>;
const schema = (properties: Props) => ({ type: 'object', properties, required: Object.keys(properties) });
const meaning = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Every value drawn for `field` over 60 seeds. */
function drawn(properties: Props, field: string, toolWords: string, withMeaning = true): unknown[] {
  return Array.from({ length: 60 }, (_, seed) => {
    const args = sampleArguments(schema(properties), {
      rng: new Rng(`values:${seed}`),
      ...(withMeaning ? { meaning: meaning(toolWords) } : {}),
    });
    return args[field];
  });
}
const within = (values: unknown[], lo: number, hi: number, what: string) => {
  for (const v of values) assert.ok(typeof v === 'number' && v >= lo && v <= hi, `${what}: ${String(v)}`);
  assert.ok(new Set(values).size > 3, `${what}: values vary`);
};

describe('values drawn by meaning', () => {
  it('a calendar year is a recent year; a term in years is a few of them', () => {
    within(
      drawn({ year: { type: 'integer', description: 'The year the event took place.' } }, 'year', 'get event details'),
      1950,
      2026,
      'year',
    );
    within(
      drawn(
        { release_year: { type: 'integer', description: 'Year the album came out' } },
        'release_year',
        'find album',
      ),
      1950,
      2026,
      'release_year',
    );
    within(
      drawn({ years: { type: 'integer', description: 'Loan term in years.' } }, 'years', 'calculate mortgage payment'),
      1,
      40,
      'years',
    );
  });

  it('an angle is in degrees of a quarter turn, a rate in percent is a small number', () => {
    within(
      drawn(
        { angle: { type: 'number', description: 'Launch angle in degrees.' } },
        'angle',
        'calculate projectile range',
      ),
      0,
      90,
      'angle',
    );
    within(
      drawn(
        { annual_rate: { type: 'number', description: 'Annual interest rate in percent.' } },
        'annual_rate',
        'calculate mortgage payment',
      ),
      0,
      20,
      'annual_rate',
    );
    within(
      drawn({ interest_rate: { type: 'number' } }, 'interest_rate', 'compound interest calculator'),
      0,
      20,
      'interest_rate',
    );
  });

  it('people, tickets, rooms and seats come in handfuls; an age is an age; months, hours and coordinates in range', () => {
    const cases: Array<[string, Record<string, unknown>, number, number]> = [
      ['number_of_tickets', { type: 'integer', description: 'Number of tickets to buy.' }, 1, 8],
      ['guests', { type: 'integer', description: 'How many guests are coming.' }, 1, 8],
      ['number_of_adults', { type: 'integer' }, 1, 8],
      ['passengers', { type: 'integer', description: 'Passengers travelling' }, 1, 8],
      ['rooms', { type: 'integer', description: 'Rooms to reserve' }, 1, 8],
      ['party_size', { type: 'integer' }, 1, 8],
      ['age', { type: 'integer', description: 'Age of the patient in years' }, 1, 95],
      ['month', { type: 'integer', description: 'Month of the year' }, 1, 12],
      ['hour', { type: 'integer' }, 0, 23],
      ['latitude', { type: 'number' }, -90, 90],
      ['longitude', { type: 'number' }, -180, 180],
    ];
    for (const [name, prop, lo, hi] of cases) within(drawn({ [name]: prop }, name, 'book reserve'), lo, hi, name);
  });

  it("the schema's bounds still win over what a name suggests", () => {
    within(
      drawn({ number_of_tickets: { type: 'integer', minimum: 10, maximum: 40 } }, 'number_of_tickets', 'buy tickets'),
      10,
      40,
      'bounded tickets',
    );
  });

  it('an airport is an airport code, a place to go a city, a receiver or a guest a person', () => {
    for (const v of drawn(
      { origin_airport: { type: 'string', description: 'The departure airport.' } },
      'origin_airport',
      'search one way flights',
    ))
      assert.match(String(v), /^[A-Z]{3}$/);
    const cities = drawn(
      { where_to: { type: 'string', description: 'Where the house is, e.g. a city.' } },
      'where_to',
      'search house',
    );
    for (const v of cities) assert.match(String(v), /^[A-Z][a-z]+(?: [A-Z][a-z]+)*$/, `where_to: ${String(v)}`);
    for (const [field, tool] of [
      ['receiver', 'request payment'],
      ['recipient_name', 'send money'],
      ['guest_name', 'reserve hotel room'],
    ] as const)
      for (const v of drawn({ [field]: { type: 'string' } }, field, tool))
        assert.match(String(v), /^[A-Z][a-z]+ [A-Z][a-z]+$/, `${field}: ${String(v)}`);
  });

  it('without meaning (the described phrasing), a count of tickets is drawn as before, up to 50', () => {
    const plain = drawn(
      { number_of_tickets: { type: 'integer', description: 'Number of tickets to buy.' } },
      'number_of_tickets',
      '',
      false,
    );
    assert.ok(
      plain.some((v) => (v as number) > 8),
      'the old range',
    );
  });
});
