import { addDays, type Rng } from '../rng.js';

/**
 * Date and clock templates written in descriptions ("in the format of 'YYYY-MM-DD'", "'HH:MM AM/PM'",
 * "format: MM/DD/YYYY", "'YYYY-MM-DD to YYYY-MM-DD'"): the shape of a value, never a value. The sampler reads
 * them to write the dates it draws in that shape.
 */

const FIELDS = ['YYYY', 'yyyy', 'MMMM', 'MMM', 'YY', 'yy', 'MM', 'mm', 'DD', 'dd', 'HH', 'hh', 'SS', 'ss'] as const;
type Field = (typeof FIELDS)[number];
type Token = { field: Field } | { sep: string } | { meridiem: string } | { zone: string };

/** Fields that make a template a date or a clock on their own (MM or SS alone could be anything). */
const TELLING = new Set<Field>(['YYYY', 'yyyy', 'YY', 'yy', 'MMMM', 'MMM', 'DD', 'dd', 'HH', 'hh']);
/** "A to B" or "A – B": a range of two dates. */
const RANGE = /\s+to\s+|\s+[–—]\s+/;
/** Month names, January first: how people write a month. */
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The tokens of one template (no range), or undefined when anything in it is not a field or a separator. */
function tokensOf(s: string): Token[] | undefined {
  const out: Token[] = [];
  let rest = s;
  while (rest) {
    const field = FIELDS.find((f) => rest.startsWith(f));
    const sep = /^[-/:., T]{1,3}/.exec(rest)?.[0];
    const meridiem = /^(?:AM\/PM|am\/pm)/.exec(rest)?.[0];
    if (meridiem) out.push({ meridiem });
    else if (field) out.push({ field });
    else if (rest === 'Z') out.push({ zone: 'Z' });
    else if (sep) out.push({ sep });
    else return undefined;
    rest = rest.slice((meridiem ?? field ?? sep ?? 'Z').length);
  }
  return out;
}

/** 'YYYY-MM-DD', 'HH:MM AM/PM', 'MM:SS', 'YYYY', 'YYYYMMDD', 'DD MMM', 'YYYY-MM-DD to YYYY-MM-DD'. */
export function isDateTemplate(s: string): boolean {
  const parts = s.split(RANGE);
  return parts.every((part) => {
    const tokens = tokensOf(part);
    const fields = tokens?.flatMap((t) => ('field' in t ? [t.field] : [])) ?? [];
    const clock = fields.length >= 2 && tokens!.some((t) => 'sep' in t && t.sep.includes(':'));
    return fields.length > 0 && (fields.some((f) => TELLING.has(f)) || clock);
  });
}

/** Text that ends by introducing a format: "in the format of", "formatted as", "format:". */
export const AFTER_FORMAT = /\bformat(?:ted)?(?:\s+(?:of|as|like|is))?\s*:?\s*\(?\s*$/i;

const FIELD_RE = FIELDS.join('|');
const BARE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${FIELD_RE})+(?:(?:[-/:., T]{1,3}|\\s+to\\s+)(?:${FIELD_RE})+)*(?: ?(?:AM/PM|am/pm))?Z?(?![\\p{L}\\p{N}])`,
  'gu',
);

/**
 * The template a description gives for its value: quoted anywhere ("in 24-hour format 'HH:MM'"), or bare where
 * the words around it say it is a format ("format: MM/DD/YYYY", "in DD.MM.YYYY format"). A template mentioned in
 * passing ("numbers, NULL and YYYY-MM-DD values") does not make the argument a date.
 */
export function writtenDateFormat(description: string): string | undefined {
  const quoted = /(?<![\p{L}\p{N}])['"`]([^'"`\n]{2,40})['"`]/gu;
  for (const m of description.matchAll(quoted)) if (isDateTemplate(m[1]!.trim())) return m[1]!.trim();
  for (const m of description.matchAll(BARE)) {
    const before = description.slice(0, m.index);
    const after = description.slice(m.index + m[0].length);
    if (isDateTemplate(m[0]) && (AFTER_FORMAT.test(before) || /^\s*format\b/i.test(after))) return m[0];
  }
  return undefined;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * A drawn date and time written in a template's shape: 'DD.MM.YYYY' → '03.05.2026', 'HH:MM AM/PM' → '02:30 PM';
 * a range's second date comes after its first, a repeated year is the next one ('YYYY-YYYY' → '2026-2027').
 * `draw` gives the (first) date; MM is minutes beside a colon or after an hour, else the month.
 */
export function fillDateTemplate(template: string, rng: Rng, draw: (rng: Rng) => string): string {
  const ranges = template.split(/(\s+to\s+|\s+[–—]\s+)/);
  let date = draw(rng);
  return ranges
    .map((part, i) => {
      if (i % 2 === 1) return part; // the range's own words
      if (i > 0) date = addDays(date, rng.int(1, 14));
      return fillOne(tokensOf(part) ?? [], date, rng);
    })
    .join('');
}

function fillOne(tokens: Token[], date: string, rng: Rng): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const hour = rng.int(7, 19);
  const minute = rng.pick([0, 15, 30, 45, rng.int(0, 59)]);
  const second = rng.pick([0, 0, rng.int(0, 59)]);
  const twelve = tokens.some((t) => 'meridiem' in t);
  const hour12 = ((hour + 11) % 12) + 1;
  const years = { count: 0 };
  const isColon = (t: Token | undefined) => t !== undefined && 'sep' in t && t.sep.includes(':');
  return tokens
    .map((t, i) => {
      if ('sep' in t) return t.sep;
      if ('zone' in t) return t.zone;
      if ('meridiem' in t) return hour < 12 ? 'AM' : 'PM';
      const prev = tokens
        .slice(0, i)
        .reverse()
        .find((x) => 'field' in x);
      switch (t.field) {
        case 'YYYY':
        case 'yyyy':
          return String(year + years.count++);
        case 'YY':
        case 'yy':
          return pad2((year + years.count++) % 100);
        case 'MMMM':
          return MONTHS[month - 1]!;
        case 'MMM':
          return MONTHS[month - 1]!.slice(0, 3);
        case 'DD':
        case 'dd':
          return pad2(day);
        case 'HH':
          return pad2(twelve ? hour12 : hour);
        case 'hh':
          return pad2(hour12);
        case 'SS':
        case 'ss':
          return pad2(second);
        default: {
          // MM or mm
          const afterHour = prev !== undefined && 'field' in prev && (prev.field === 'HH' || prev.field === 'hh');
          return isColon(tokens[i - 1]) || isColon(tokens[i + 1]) || afterHour ? pad2(minute) : pad2(month);
        }
      }
    })
    .join('');
}
