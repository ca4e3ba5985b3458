/**
 * Style transforms for the template teacher: the same ask written the ways employees type it. Each request
 * draws a few, seeded: a context sentence, an indirect ask, a terse command, abbreviations, a typo, dates and
 * amounts written another way, politeness. Text transforms touch only the template's own words, never a
 * {slot}: the values the router has to copy stay intact (a date or an amount may be *written* another way,
 * its argument stays the same value, so the router learns to normalise it).
 */
import type { Rng } from '../../rng.js';
import { VERBS } from '../generic/phrase.js';
import { MONTHS } from '../../schema/date-template.js';

const CONTEXTS = [
  'Quick one before my meeting.',
  "I'm on a call with the customer right now.",
  "Following up on yesterday's email.",
  'For the month-end close:',
  'My manager asked me to sort this out.',
  'Heads up, this is time-sensitive.',
  'Got a ticket about this.',
  'Context: audit prep.',
  'Doing some cleanup today.',
  'Per our conversation,',
  'One more thing from the team sync.',
  'Sorry to bug you again.',
];
const INDIRECT = [
  'Could you ',
  'Can you ',
  'I need you to ',
  "I'd like you to ",
  'Would you please ',
  'Can I get you to ',
  'I was hoping you could ',
  'Mind helping me ',
];
const OPENERS = ['Hi, ', 'Hey — ', 'Hello! ', 'Morning. ', 'Quick one: ', 'Can you help? ', 'Please: '];
const CLOSERS = [
  ' Thanks!',
  ' Thank you.',
  ' ASAP please.',
  ' Cheers.',
  ' thx',
  ' Appreciate it.',
  ' When you get a chance.',
];
const ABBREVIATIONS: Record<string, string> = {
  please: 'pls',
  account: 'acct',
  accounts: 'accts',
  invoice: 'inv',
  invoices: 'invs',
  customer: 'cust',
  number: 'no.',
  opportunity: 'opp',
  opportunities: 'opps',
  quantity: 'qty',
  with: 'w/',
  without: 'w/o',
  because: 'bc',
  amount: 'amt',
  information: 'info',
  department: 'dept',
  message: 'msg',
  description: 'desc',
  reference: 'ref',
  receipt: 'rcpt',
  journal: 'jrnl',
  period: 'pd',
  between: 'btwn',
  about: 'abt',
  you: 'u',
  and: '&',
  thanks: 'thx',
  tomorrow: 'tmrw',
};
/** Slot names whose numbers people write with separators (never ids: "10,234" is no invoice id). */
const MONEYISH = /amount|price|total|cost|balance|limit|salary|budget|revenue|value|quantity|qty/i;

/** A template's own text and its {slot} placeholders, in order (odd indexes are the slots). */
const slotParts = (template: string): string[] => template.split(/(\{\w+\})/);
const isSlot = (part: string) => /^\{\w+\}$/.test(part);

/** Transform a template's own words, never its {slot} placeholders. */
function outsideSlots(template: string, fn: (text: string) => string): string {
  return slotParts(template)
    .map((part) => (isSlot(part) ? part : fn(part)))
    .join('');
}

function abbreviate(text: string, rng: Rng): string {
  return text.replace(/\b[A-Za-z]+\b/g, (w) => {
    const short = ABBREVIATIONS[w.toLowerCase()];
    return short && rng.chance(0.7) ? short : w;
  });
}

/** One typo in one longer word: two inner letters swapped, or one dropped. */
function typo(text: string, rng: Rng): string {
  const words = [...text.matchAll(/\b[a-z]{5,}\b/g)];
  if (words.length === 0) return text;
  const m = rng.pick(words);
  const w = m[0];
  const i = rng.int(1, w.length - 3);
  const changed = rng.chance(0.5) ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w.slice(0, i) + w.slice(i + 1);
  return text.slice(0, m.index) + changed + text.slice(m.index! + w.length);
}

/** Terse: no politeness, no articles, no final period, lower case. */
function terse(text: string): string {
  return text
    .replace(/\bplease\b,?\s*/gi, '')
    .replace(/\b(the|a|an)\s+/gi, '')
    .replace(/[.!]\s*$/, '')
    .toLowerCase();
}

/** "2026-06-30" as people write it; the argument stays ISO. */
function writeDate(iso: string, rng: Rng): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const month = MONTHS[m - 1]!;
  return rng.pick([
    `${month} ${d}, ${y}`,
    `${d} ${month.slice(0, 3)} ${y}`,
    `${m}/${d}/${y}`,
    `${month.slice(0, 3)} ${d} ${y}`,
    `${d} ${month} ${y}`,
  ]);
}

function writeNumber(n: number, rng: Rng): string {
  const grouped = n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return rng.pick(n >= 1000 && Number.isInteger(n / 1000) ? [grouped, `${n / 1000}k`] : [grouped]);
}

/** Slot values as text, some dates and amounts written another way. */
export function styleSlots(slots: Record<string, string | number>, rng: Rng): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(slots)) {
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) && rng.chance(0.35))
      out[k] = writeDate(v, rng);
    else if (typeof v === 'number' && v >= 1000 && MONEYISH.test(k) && rng.chance(0.35)) out[k] = writeNumber(v, rng);
    else out[k] = v;
  }
  return out;
}

/** The template restyled (still with its {slot} placeholders). */
export function styleTemplate(template: string, rng: Rng): string {
  let t = template.trim();
  const firstWord = t.split(/\s+/)[0]?.toLowerCase() ?? '';
  const imperative = VERBS.has(firstWord) && !t.startsWith('{');
  if (imperative && rng.chance(0.3))
    t = `${rng.pick(INDIRECT)}${t.charAt(0).toLowerCase()}${t.slice(1)}`.replace(/\.$/, '?');
  if (rng.chance(0.2)) t = outsideSlots(t, (s) => abbreviate(s, rng));
  if (rng.chance(0.15)) t = outsideSlots(t, terse);
  // eslint-disable-next-line no-dupe-else-if -- each chance() draws anew
  else if (rng.chance(0.15)) t = t.charAt(0).toLowerCase() + t.slice(1);
  if (rng.chance(0.12)) {
    const parts = slotParts(t);
    const i = rng.pick(parts.map((p, j) => (isSlot(p) ? -1 : j)).filter((j) => j >= 0));
    parts[i] = typo(parts[i]!, rng);
    t = parts.join('');
  }
  if (rng.chance(0.2)) t = `${rng.pick(CONTEXTS)} ${t}`;
  else if (rng.chance(0.25)) t = `${rng.pick(OPENERS)}${t}`;
  if (rng.chance(0.25)) t = `${t.replace(/\s+$/, '')}${rng.pick(CLOSERS)}`;
  return t;
}
