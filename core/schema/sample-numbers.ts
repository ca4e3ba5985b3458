import { nameWords } from './sample-strings.js';

/** A range of numbers an argument plausibly takes, and whether people write them whole. */
export interface NumberMeaning {
  lo: number;
  hi: number;
  whole: boolean;
}

/** Words that count people or what is booked for them: a handful, not fifty. */
const HANDFUL = new Set([
  'tickets',
  'ticket',
  'guests',
  'guest',
  'adults',
  'adult',
  'children',
  'kids',
  'people',
  'persons',
  'passengers',
  'travelers',
  'travellers',
  'seats',
  'rooms',
  'beds',
  'bedrooms',
  'bathrooms',
  'attendees',
  'party',
  'riders',
]);

/**
 * The range a number argument takes by what it means, read from its name and description (the natural phrasing's
 * sampler, sample.ts): a calendar year, a term in years, an angle, a rate in percent, a count of people or bookings,
 * an age, a month, an hour, a coordinate. Undefined: nothing specific, the type's generic range decides. The
 * schema's own bounds still win over these.
 */
export function numberForMeaning(name: string, description: string): NumberMeaning | undefined {
  const w = nameWords(name);
  const head = w[w.length - 1] ?? '';
  const has = (...keys: string[]) => keys.some((k) => w.includes(k));
  const desc = description.toLowerCase();
  const says = (re: RegExp) => re.test(desc);
  if (has('latitude', 'lat')) return { lo: -90, hi: 90, whole: false };
  if (has('longitude', 'lon', 'lng')) return { lo: -180, hi: 180, whole: false };
  if (head === 'year') return { lo: 1950, hi: 2026, whole: true };
  if (head === 'years' || has('term', 'tenure')) return { lo: 1, hi: 40, whole: true };
  if (head === 'age') return { lo: 1, hi: 95, whole: true };
  if (head === 'month') return { lo: 1, hi: 12, whole: true };
  if (head === 'hour') return { lo: 0, hi: 23, whole: true };
  if (head === 'minute' || head === 'minutes') return { lo: 0, hi: 59, whole: true };
  if (has('angle') || (has('degrees', 'inclination', 'elevation') && says(/\bangle\b/)))
    return { lo: 0, hi: 90, whole: true };
  if (has('percent', 'percentage', 'interest', 'apr') || (head === 'rate' && says(/%|\bpercent|\binterest\b/)))
    return { lo: 0.5, hi: 15, whole: false };
  if (w.some((x) => HANDFUL.has(x)) || (has('size') && has('party', 'group', 'team')))
    return { lo: 1, hi: 8, whole: true };
  return undefined;
}
