import randexpModule from 'randexp';
import { addDays, type Rng } from '../rng.js';
import { AFTER_FORMAT, isDateTemplate } from './date-template.js';

/**
 * Strings for the argument sampler (sample.ts): JSON Schema formats, regex patterns, a small generic lexicon
 * keyed on the field's name, and example values quoted in a field's description. Nothing reads the wall
 * clock: "today" is fixed so a seed always gives the same data.
 */

// randexp ships CJS with a default export; under NodeNext it arrives as the module object, under tsx/Node as the class.
type RandExpCtor = typeof randexpModule.default;
const RandExp = ((randexpModule as { default?: unknown }).default ?? randexpModule) as RandExpCtor;

/** The sampler's fixed "today"; dates are drawn around it. */
export const TODAY = '2026-06-15';

const pad2 = (n: number): string => String(n).padStart(2, '0');
const hex = (rng: Rng, n: number): string => Array.from({ length: n }, () => rng.int(0, 15).toString(16)).join('');
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (rng: Rng, n: number): string => Array.from({ length: n }, () => rng.pick([...ALNUM])).join('');

export function isoDate(rng: Rng): string {
  return rng.date(addDays(TODAY, -90), addDays(TODAY, 30));
}
function clock(rng: Rng, seconds: boolean): string {
  const hm = `${pad2(rng.int(7, 19))}:${rng.pick(['00', '15', '30', '45', pad2(rng.int(0, 59))])}`;
  return seconds ? `${hm}:${pad2(rng.pick([0, 0, rng.int(0, 59)]))}` : hm;
}

const FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];
const LAST = ['smith', 'jones', 'garcia', 'chen', 'patel', 'muller', 'rossi', 'kim'];
const DOMAINS = ['example.com', 'example.org', 'acme.test', 'corp.example'];
const WORDS = [
  'report',
  'invoice',
  'budget',
  'roadmap',
  'release',
  'customer',
  'meeting',
  'backup',
  'config',
  'pipeline',
  'notes',
  'draft',
];
const PATH_DIRS = [
  '/home/user/projects/app',
  '/home/user/documents',
  '/var/data',
  '/tmp/work',
  '/home/user/projects/app/src',
];
const FILES = ['README.md', 'index.ts', 'notes.txt', 'config.yaml', 'report.csv', 'main.py', 'data.json'];
const ZONES = [
  'America/New_York',
  'Europe/London',
  'Asia/Tokyo',
  'Europe/Berlin',
  'America/Los_Angeles',
  'Australia/Sydney',
  'UTC',
];
const LOCALES = ['en', 'en-US', 'fr', 'de-DE', 'es', 'ja', 'pt-BR'];
const CITIES = ['Berlin', 'Austin', 'Lyon', 'Osaka', 'Toronto', 'Melbourne'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'JP', 'CA', 'IN'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD'];
const SENTENCES = [
  'Please review the latest changes.',
  'Follow up with the customer about the delayed order.',
  'Summary of the weekly planning meeting.',
  'Fix the typo in the introduction section.',
  'Quarterly numbers look better than expected.',
  'Remember to back up the database before upgrading.',
];
const TITLES = [
  'Quarterly report',
  'Project Alpha',
  'Team sync',
  'Release notes',
  'Onboarding checklist',
  'Budget 2026',
];

function person(rng: Rng): string {
  const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
  return `${cap(rng.pick(FIRST))} ${cap(rng.pick(LAST))}`;
}
export function email(rng: Rng): string {
  return `${rng.pick(FIRST)}.${rng.pick(LAST)}@${rng.pick(DOMAINS)}`;
}
function url(rng: Rng): string {
  const tail = rng.chance(0.5) ? `/${rng.pick(WORDS)}` : `/${rng.pick(WORDS)}/${rng.int(1, 999)}`;
  return `https://${rng.pick(['www.', 'api.', 'docs.', ''])}${rng.pick(DOMAINS)}${tail}`;
}
function path(rng: Rng): string {
  return `${rng.pick(PATH_DIRS)}/${rng.pick(FILES)}`;
}
function words(rng: Rng, n: number): string {
  return Array.from({ length: n }, () => rng.pick(WORDS)).join(' ');
}
function uuid(rng: Rng): string {
  return `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-${rng.pick(['8', '9', 'a', 'b'])}${hex(rng, 3)}-${hex(rng, 12)}`;
}
function ipv4(rng: Rng): string {
  return rng.chance(0.5)
    ? `192.168.${rng.int(0, 9)}.${rng.int(2, 254)}`
    : `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(2, 254)}`;
}

/** A plausible value for a JSON Schema (or ajv-formats) string format; undefined for formats we do not know. */
export function formatValue(format: string, rng: Rng): string | undefined {
  switch (format) {
    case 'date':
      return isoDate(rng);
    case 'date-time':
    case 'iso-date-time':
      return `${isoDate(rng)}T${clock(rng, true)}${rng.pick(['Z', 'Z', '+02:00', '-05:00'])}`;
    case 'time':
    case 'iso-time':
      return `${clock(rng, true)}Z`;
    case 'email':
    case 'idn-email':
      return email(rng);
    case 'uri':
    case 'url':
    case 'iri':
      return url(rng);
    case 'uri-reference':
    case 'iri-reference':
      return rng.chance(0.5) ? url(rng) : `/${rng.pick(WORDS)}/${rng.int(1, 99)}`;
    case 'uri-template':
      return `https://${rng.pick(DOMAINS)}/${rng.pick(WORDS)}/{id}`;
    case 'uuid':
      return uuid(rng);
    case 'hostname':
    case 'idn-hostname':
      return `${rng.pick(['api', 'www', 'db', 'mail'])}.${rng.pick(DOMAINS)}`;
    case 'ipv4':
      return ipv4(rng);
    case 'ipv6':
      return `2001:db8::${hex(rng, 4).replace(/^0+(?=.)/, '')}`;
    case 'duration':
      return rng.pick([`P${rng.int(1, 30)}D`, `PT${rng.int(1, 59)}M`, `PT${rng.int(1, 12)}H`, `P${rng.int(1, 6)}W`]);
    case 'regex':
      return rng.pick(['^[a-z]+$', '\\d{3}-\\d{4}', 'error|warn', '^INV-[0-9]+$']);
    case 'json-pointer':
      return `/${rng.pick(WORDS)}/${rng.int(0, 9)}`;
    case 'relative-json-pointer':
      return `${rng.int(0, 2)}/${rng.pick(WORDS)}`;
    case 'byte':
      return Buffer.from(words(rng, 2)).toString('base64');
    case 'password':
      return `${rng.pick(WORDS)}-${alnum(rng, 6)}!`;
    default:
      return undefined;
  }
}

/** Lower-case words of an identifier: `startDate` → [start, date], `max_results` → [max, results]. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Counts, limits and pages: integers users actually pass are small. */
export function isCountName(name: string): boolean {
  const w = nameWords(name);
  const last = w[w.length - 1] ?? '';
  return (
    [
      'limit',
      'page',
      'offset',
      'count',
      'size',
      'top',
      'skip',
      'depth',
      'n',
      'num',
      'retries',
      'days',
      'hours',
      'minutes',
    ].includes(last) ||
    w[0] === 'max' ||
    w[0] === 'min' ||
    w[0] === 'num' ||
    w.includes('per')
  );
}

/**
 * A realistic string for a field from its name alone (`email`, `filePath`, `timezone`, `query`...).
 * Generic words only: the sampler must work for any server, so no vendor knowledge lives here.
 */
export function stringForName(name: string, rng: Rng): string {
  const w = nameWords(name);
  const has = (...keys: string[]): boolean => keys.some((k) => w.includes(k));
  const last = w[w.length - 1] ?? '';
  if (has('email', 'mail')) return email(rng);
  if (has('url', 'uri', 'link', 'href', 'website', 'endpoint')) return url(rng);
  if (has('timezone', 'tz') || (has('zone') && has('time'))) return rng.pick(ZONES);
  if (has('filename')) return rng.pick(FILES);
  if (has('path', 'file', 'dir', 'directory', 'folder')) return has('name') ? rng.pick(FILES) : path(rng);
  if (last === 'id' || last === 'ids' || has('uuid', 'guid')) return idToken(rng, w[0] !== 'id' ? w[0] : undefined);
  if (has('datetime', 'timestamp') || (last === 'at' && w.length > 1)) return formatValue('date-time', rng)!;
  if (has('date', 'day', 'since', 'until', 'deadline', 'due')) return isoDate(rng);
  if (has('time')) return clock(rng, false);
  if (has('query', 'search', 'term', 'terms', 'keyword', 'keywords', 'q', 'filter')) return words(rng, rng.int(1, 3));
  if (has('language', 'lang', 'locale')) return rng.pick(LOCALES);
  if (has('country')) return rng.pick(COUNTRIES);
  if (has('city')) return rng.pick(CITIES);
  if (has('currency')) return rng.pick(CURRENCIES);
  if (
    has(
      'description',
      'text',
      'content',
      'message',
      'body',
      'note',
      'notes',
      'comment',
      'summary',
      'prompt',
      'instructions',
      'observation',
      'observations',
    )
  )
    return rng.pick(SENTENCES);
  if (has('user', 'username', 'author', 'owner', 'assignee', 'person', 'contact', 'login'))
    return has('name') && !has('username') ? person(rng) : rng.pick(FIRST);
  if (has('title', 'subject', 'label', 'name')) return rng.pick(TITLES);
  if (has('host', 'hostname', 'domain')) return formatValue('hostname', rng)!;
  if (has('ip')) return ipv4(rng);
  if (has('version')) return `${rng.int(0, 3)}.${rng.int(0, 12)}.${rng.int(0, 9)}`;
  if (has('branch')) return rng.pick(['main', 'develop', 'feature/login', 'fix/typo']);
  if (has('sort', 'order', 'direction')) return rng.pick(['asc', 'desc']);
  if (has('status', 'state')) return rng.pick(['open', 'active', 'pending', 'closed']);
  if (has('color', 'colour')) return rng.pick(['#3366ff', 'red', 'green', '#222222']);
  if (has('phone')) return `+1-555-01${pad2(rng.int(0, 99))}`;
  if (has('token', 'secret', 'password', 'key')) return `${alnum(rng, 16)}`;
  if (has('code')) return `${alnum(rng, 3).toUpperCase()}${rng.int(100, 999)}`;
  return rng.chance(0.6) ? rng.pick(WORDS) : words(rng, 2);
}

function idToken(rng: Rng, prefix: string | undefined): string {
  return rng.weighted<() => string>([
    [() => String(rng.int(1, 99_999)), 1],
    [() => `${(prefix ?? 'obj').slice(0, 4)}_${alnum(rng, 8)}`, 1],
    [() => uuid(rng), 1],
  ])();
}

/** Filler text used to reach a minLength. */
export function filler(rng: Rng, n: number): string {
  let s = '';
  while (s.length < n) s += (s ? ' ' : '') + rng.pick(WORDS);
  return s;
}

/**
 * Example values quoted in a description: `IANA timezone (e.g. 'America/New_York', "UTC")` gives both.
 * A quote must not touch a letter on its outer side so apostrophes (`user's`) are not read as quotes. A quote that
 * says how a value is written is not an example: a date or clock template ('YYYY-MM-DD', 'HH:MM'), or
 * a placeholder of title-case words quoted right after "format" ("in the format of 'City, State'"). Unless
 * `keepTemplates`: for an argument that is itself a format ("date_format"), a template is the example.
 */
export function quotedExamples(description: unknown, keepTemplates = false): string[] {
  if (typeof description !== 'string') return [];
  const out: string[] = [];
  const re = /(?<![\p{L}\p{N}])(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"|`([^`\n]{1,80})`)(?![\p{L}\p{N}])/gu;
  for (const m of description.matchAll(re)) {
    const v = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    const placeholder = /^[A-Z][a-z]+(?:,? [A-Z][a-z]+)+$/.test(v) && AFTER_FORMAT.test(description.slice(0, m.index));
    if (!v || out.includes(v) || (!keepTemplates && (isDateTemplate(v) || placeholder))) continue;
    out.push(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- patterns

const parsed = new Map<string, InstanceType<RandExpCtor> | null>();
const compiled = new Map<string, RegExp | null>();

/** The pattern as ajv tests it (ECMAScript, unicode flag, unanchored); null if JS cannot compile it. */
export function patternRegExp(pattern: string): RegExp | null {
  if (!compiled.has(pattern)) {
    let re: RegExp | null;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    compiled.set(pattern, re);
  }
  return compiled.get(pattern) ?? null;
}

/**
 * A string matching a regex, drawn by randexp with our Rng (so it is seeded) and short repetitions.
 * With `minLength`, open repetitions (`+`, `*`, `{n,}`) draw from the upper half of a range wide enough to reach it.
 * randexp ignores lookarounds and some unicode classes, so callers must check the result.
 */
export function fromPattern(pattern: string, rng: Rng, minLength = 0): string | undefined {
  if (!parsed.has(pattern)) {
    let r: InstanceType<RandExpCtor> | null;
    try {
      r = new RandExp(pattern);
    } catch {
      r = null;
    }
    parsed.set(pattern, r);
  }
  const r = parsed.get(pattern);
  if (!r) return undefined;
  const long = minLength > 0;
  const maxRepeat = long ? 2 * minLength + 9 : 8;
  r.max = maxRepeat;
  // randexp draws an open repetition as randInt(min, min + max); everything else (character picks) stays uniform.
  r.randInt = (a: number, b: number): number =>
    long && b - a === maxRepeat ? rng.int(a + Math.ceil(maxRepeat / 2), b) : rng.int(a, b);
  try {
    return r.gen();
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------- by meaning

const HOMES = ['/home/user/code', '/home/user/work', '/srv/app', '/opt/services', '/Users/sam/dev', '~/src'];
const PROJECTS = [
  'inventory-service',
  'website',
  'ml-experiments',
  'payments',
  'docs-site',
  'api-gateway',
  'scheduler',
];
const BRANCHES = ['main', 'develop', 'feature/search-bar', 'fix/login-timeout', 'release/3.1', 'chore/deps'];
/** Who a value names when the argument is a role people play in a request. */
const PERSON_ROLES = [
  'receiver',
  'recipient',
  'payee',
  'payer',
  'sender',
  'friend',
  'guest',
  'attendee',
  'passenger',
  'traveler',
  'traveller',
  'patient',
  'employee',
  'student',
  'player',
  'artist',
  'actor',
  'director',
  'doctor',
];
const AIRPORTS = ['JFK', 'LAX', 'SFO', 'ORD', 'SEA', 'BOS', 'ATL', 'LHR', 'CDG', 'FRA', 'HND', 'YYZ'];
const AIRLINES = ['Delta Airlines', 'United Airlines', 'American Airlines', 'Southwest Airlines', 'Air Canada'];
const STREETS = ['Market St', 'Elm Avenue', 'Harbour Road', 'King Street', 'Park Lane'];
const TABLES = ['customers', 'orders', 'invoices', 'events', 'products', 'employees'];
const COLUMNS = ['name', 'status', 'created_at', 'total', 'email', 'region'];

function sql(toolWords: readonly string[], rng: Rng): string {
  const t = rng.pick(TABLES);
  const c = rng.pick(COLUMNS);
  const has = (...k: string[]) => k.some((x) => toolWords.includes(x));
  if (has('select', 'read') || !has('write', 'insert', 'update', 'delete', 'modify', 'create'))
    return rng.pick([
      `SELECT * FROM ${t} LIMIT ${rng.int(5, 50)}`,
      `SELECT ${c}, COUNT(*) FROM ${t} GROUP BY ${c}`,
      `SELECT * FROM ${t} WHERE status = 'open'`,
    ]);
  if (has('create') && has('table')) return `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, ${c} TEXT, updated_at TEXT)`;
  if (has('delete', 'remove')) return `DELETE FROM ${t} WHERE created_at < '${isoDate(rng)}'`;
  if (has('update', 'modify')) return `UPDATE ${t} SET status = 'archived' WHERE id = ${rng.int(1, 500)}`;
  if (has('insert', 'add')) return `INSERT INTO ${t} (${c}) VALUES ('${rng.pick(FIRST)}')`;
  return rng.pick([
    `INSERT INTO ${t} (${c}) VALUES ('${rng.pick(FIRST)}')`,
    `UPDATE ${t} SET status = 'archived' WHERE id = ${rng.int(1, 500)}`,
    `DELETE FROM ${t} WHERE created_at < '${isoDate(rng)}'`,
  ]);
}

/**
 * A string by what the argument means, read from its name, its description and the words of the tool it belongs
 * to: a directory where a directory is meant (a repository's path, a folder to create), SQL where a query is SQL,
 * a branch, a table, a revision. Undefined: nothing specific, the name lexicon decides.
 */
export function stringForMeaning(
  name: string,
  description: string,
  toolWords: readonly string[],
  rng: Rng,
): string | undefined {
  const w = nameWords(name);
  const has = (...keys: string[]) => keys.some((k) => w.includes(k));
  // The last word says what the value is: a "commit_message" is a message, a "repo_name" a name.
  const head = w[w.length - 1] ?? '';
  const is = (...keys: string[]) => keys.includes(head);
  const desc = description.toLowerCase();
  const says = (re: RegExp) => re.test(desc);
  const tool = (...keys: string[]) => keys.some((k) => toolWords.includes(k));
  const dir = () => `${rng.pick(HOMES)}/${rng.pick(PROJECTS)}`;
  // Someone paid, written to or staying: a person's name ("receiver", "guest_name"), not a title.
  if (has(...PERSON_ROLES) && (is(...PERSON_ROLES) || is('name'))) return person(rng);
  if (has('airport')) return rng.pick(AIRPORTS);
  if (has('airline', 'airlines', 'carrier') && !is('id', 'code')) return rng.pick(AIRLINES);
  // "where_to", "to" a city: a place to go (never a SQL WHERE clause).
  const sqlWhere = has('clause', 'condition', 'filter') || says(/\b(sql|clause|condition|filter)\b/);
  if (!sqlWhere && (has('where') || (is('to', 'from') && says(/\b(city|town|location|destination|place)\b/))))
    return rng.pick(CITIES);
  if (is('id', 'ids', 'uuid', 'key', 'name', 'title', 'label', 'subject', 'message', 'text', 'content', 'body'))
    return has('table') && is('name') ? rng.pick(TABLES) : undefined;
  if (
    has('sql') ||
    (is('query', 'statement') && !says(/\bsearch\b/) && (says(/\bsql\b|\bselect\b/) || tool('sql', 'sqlite')))
  )
    return sql(toolWords, rng);
  // A path is a directory where the argument or its tool speaks of directories and the argument not of a file.
  const aDir =
    has('dir', 'directory', 'folder', 'workspace', 'cwd') ||
    (is('path', 'root') && (has('repo', 'repository') || says(/\b(directory|folder|repository)\b/))) ||
    (is('path') && !says(/\bfile\b/) && tool('directory', 'folder', 'dir'));
  if (aDir) return dir();
  if (is('path', 'file', 'paths', 'files') && !says(/\b(url|uri|name)\b/)) return `${dir()}/${rng.pick(FILES)}`;
  if (is('branch') && !has('type', 'kind')) return rng.pick(BRANCHES);
  if (is('revision', 'sha', 'commit', 'ref', 'rev'))
    return rng.pick(['HEAD', 'HEAD~1', hex(rng, 7), rng.pick(BRANCHES)]);
  if (is('table')) return rng.pick(TABLES);
  const notPlace = says(/\b(path|file|folder|directory|remote|url|branch|server|host|ip|aws|cloud)\b/);
  if (is('address') && !notPlace && !has('email', 'ip', 'mac', 'wallet'))
    return `${rng.int(1, 999)} ${rng.pick(STREETS)}, ${rng.pick(CITIES)}`;
  if (is('city', 'location', 'destination', 'origin', 'place', 'pickup', 'dropoff', 'venue') && !notPlace)
    return rng.pick(CITIES);
  return undefined;
}
