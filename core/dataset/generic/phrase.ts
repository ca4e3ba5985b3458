/**
 * Phrase user requests for any MCP tool from what its server told us (name, title, description, input schema)
 * plus one concrete argument object. Every argument value is put in a slot and every phrasing names every slot,
 * so a router trained on the filled text can always copy the values it has to emit.
 */
import type { CatalogTool } from '../../catalog/types.js';
import type { Rng } from '../../rng.js';

export interface Phrased {
  /** Templates whose only `{x}` placeholders are slots below; literal braces from descriptions are neutralised. */
  phrasings: string[];
  /** Slot values: every argument value rendered as text (strings as-is, numbers as numbers, booleans/arrays/objects readable). */
  slots: Record<string, string | number>;
}

/** "entityNames" / "entity_names" / "entity-names" -> "entity names". */
export function humanize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[\s_\-./:]+/g, ' ')
    .trim()
    .toLowerCase();
}

// ---------------------------------------------------------------- action phrase

/** Base forms of verbs tools commonly start with; anything else gets "get" in front (noun-phrase descriptions). Also how the template teacher tells an imperative request. */
export const VERBS = new Set(
  (
    'get list read write create update delete remove add search find fetch retrieve query run execute send post convert move copy ' +
    'rename edit make set show open close start stop check validate generate calculate compute translate summarize analyze ' +
    'upload download install build deploy apply merge push pull commit clone insert append replace modify change save load export ' +
    'import schedule cancel book navigate click type take capture scroll fill select submit upsert sync refresh reset enable disable ' +
    'assign invite share subscribe publish archive restore look describe explain count compare format parse extract resolve lookup ' +
    'scrape crawl browse call invoke trigger log record track monitor watch notify reply comment mark tag label approve reject review ' +
    'test evaluate estimate predict recommend suggest plan transfer pay refund grant revoke verify authenticate register sign encrypt ' +
    'decrypt encode decode compress render draw plot visualize view display print echo wait ping connect disconnect attach detach ' +
    'kill terminate restart pause resume scale configure initialize store remember recall forget identify detect classify rank sort ' +
    'filter group aggregate split truncate clear drop undo retry manage access use perform do inspect diagnose debug lint fix patch ' +
    'upgrade rollback revert checkout fork follow like pin unpin resize crop rotate highlight annotate draft compose forward ' +
    'open lock unlock link unlink evaluate take'
  ).split(' '),
);
/** Descriptions that say what comes back ("Returns the list of …") read as a request to get it. */
const GETISH = new Set([
  'return',
  'returns',
  'provide',
  'provides',
  'obtain',
  'obtains',
  'give',
  'gives',
  'returning',
  'providing',
]);
const STOP_TAIL = new Set(
  'a an the of to for with and or in on at by from into that which this its your as using via is are be'.split(' '),
);
const CLAUSE = new Set(['which', 'that', 'when', 'while', 'if', 'so', 'including', 'where', 'because']);
/** Boilerplate openers that say nothing about the action. Applied repeatedly, so they may stack. */
const FLUFF = [
  /^(?:this|the|a)\s+(?:tool|function|endpoint|method|api|command)\s+(?:that\s+|which\s+|will\s+|can\s+|is\s+used\s+to\s+|is\s+used\s+for\s+|lets\s+you\s+|allows\s+you\s+to\s+|enables\s+you\s+to\s+|is\s+for\s+|to\s+|for\s+)?/i,
  /^(?:use|call)\s+this(?:\s+(?:tool|function|endpoint))?\s+(?:to|for|when\s+you\s+(?:need|want)\s+to|whenever\s+you\s+(?:need|want)\s+to)\s+/i,
  /^(?:a\s+)?tool\s+(?:to|for|that|which)\s+/i,
  /^(?:allows|lets|enables|helps)\s+(?:you|users?|the\s+user|the\s+agent|agents|clients?)\s+(?:to\s+)?/i,
  /^(?:used|designed|intended)\s+(?:to|for)\s+/i,
  /^(?:you\s+can|can\s+be\s+used\s+to|can)\s+/i,
];

export const neutralise = (s: string) => s.replace(/\{/g, '(').replace(/\}/g, ')');
/** Drop parenthetical asides, innermost first, then any parenthesis left unbalanced by a cut. */
const dropAsides = (s: string) => {
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(/(^|\s)\([^()]*\)/g, '');
  }
  return s.split('(').length === s.split(')').length ? s : s.replace(/[()]/g, '');
};
const stripMarkdown = (s: string) =>
  s
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/\*+|__/g, '')
    .replace(/^\s*(?:#+|>|[-*+]\s)\s*/gm, '');
const isAcronym = (w: string) => /^[A-Z0-9]{2,}s?$/.test(w) || /[a-z][A-Z]/.test(w);
const lowerFirst = (w: string) => (isAcronym(w) ? w : w.charAt(0).toLowerCase() + w.slice(1));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "Reads"/"Searches"/"Applies"/"Reading" -> the known base verb, or undefined. */
export function baseVerb(word: string): string | undefined {
  const w = word.toLowerCase();
  const cands = [
    w,
    w.replace(/ies$/, 'y'),
    w.replace(/es$/, ''),
    w.replace(/s$/, ''),
    w.replace(/ing$/, ''),
    w.replace(/ing$/, 'e'),
    w.replace(/(.)\1ing$/, '$1'),
  ];
  return cands.find((c) => VERBS.has(c));
}

/** Turn the leading word into an imperative; a leading noun phrase becomes "get …". */
function imperative(words: string[]): string[] {
  const first = words[0]!.replace(/[^\w-]/g, '');
  if (GETISH.has(first.toLowerCase())) return ['get', ...words.slice(1)];
  const base = baseVerb(first);
  if (base) return [base, ...words.slice(1)];
  // "Recursively lists …": keep the adverb, fix the verb after it.
  const next = words[1] && baseVerb(words[1]);
  if (/ly$/i.test(first) && next) return [first.toLowerCase(), next, ...words.slice(2)];
  return ['get', lowerFirst(words[0]!), ...words.slice(1)];
}

/** First clause of a free text as a short imperative, or '' if nothing usable is left. */
function fromText(text: string): string {
  // A standalone placeholder ("renders a {{template}}") reads as its word; other braces become parentheses.
  let t = neutralise(stripMarkdown(text).replace(/(^|\s)\{+\s*(\w+)\s*\}+/g, '$1$2'))
    .replace(/\b(e\.g|i\.e|etc|vs)\./gi, '$1')
    .trim();
  const dropFluff = (s: string) => {
    for (let changed = true; changed;) {
      changed = false;
      for (const re of FLUFF) {
        const next = s.replace(re, '');
        if (next === s) continue;
        s = next;
        changed = true;
      }
    }
    return s;
  };
  t = dropFluff(t).split(/\.(?:\s|$)|[;!?\n]|:\s|\s[-–—]\s/)[0] ?? '';
  t = dropAsides(dropFluff(t.trim()));
  let words = t.split(/\s+/).filter((w) => /\w/.test(w));
  if (words.length === 0) return '';
  if (words.length > 14) {
    // Prefer a clause boundary inside the first 14 words over a hard cut.
    let cut = 14;
    for (let i = 14; i >= 3; i--) if (words[i - 1]!.endsWith(',') || CLAUSE.has(words[i]!.toLowerCase())) cut = i;
    words = words.slice(0, cut);
  }
  // Title Case headings ("Read Text File") read better fully lower-cased; proper nouns with inner capitals survive.
  if (words.length > 1 && words.every((w) => !/^[a-z]/.test(w)))
    words = words.map((w) => (/^[A-Z][a-z]+$/.test(w) ? w.toLowerCase() : w));
  words = imperative(words.map((w) => w.replace(/[,:]+$/, '')));
  while (words.length > 1 && STOP_TAIL.has(words[words.length - 1]!.toLowerCase())) words.pop();
  return words.join(' ').replace(/[\s.,:;]+$/, '');
}

/** The tool's action as a short lower-case verb phrase, e.g. "read the complete contents of a file" (from description, title or name). */
export function actionPhrase(tool: CatalogTool): string {
  for (const src of [tool.description, tool.title]) {
    const a = src ? fromText(src) : '';
    if (a) return a;
  }
  const words = neutralise(humanize(tool.name)).split(' ').filter(Boolean);
  return words.length ? imperative(words).join(' ') : 'use this tool';
}

// ---------------------------------------------------------------- argument rendering

/** "a", "a and b", "a, b and c". */
export function joinAnd(items: string[]): string {
  if (items.length === 0) return 'none';
  if (items.length === 1) return items[0]!;
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** A value nested inside a list or object: strings quoted so boundaries stay visible, objects in parentheses. */
function inner(v: unknown, flag: [string, string]): string {
  if (typeof v === 'string') return `"${v}"`;
  if (Array.isArray(v)) return joinAnd(v.map((x) => inner(x, flag)));
  if (v && typeof v === 'object') return `(${objectText(v as Record<string, unknown>, flag)})`;
  return scalar(v, flag);
}

function scalar(v: unknown, flag: [string, string]): string {
  if (typeof v === 'boolean') return v ? flag[0] : flag[1];
  if (v === null || v === undefined) return 'none';
  return String(v);
}

const objectText = (o: Record<string, unknown>, flag: [string, string]) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${humanize(k)} ${inner(v, flag)}`)
    .join(', ') || 'nothing';

/** Top-level rendering: strings verbatim; lists bare unless an item needs quotes; a lone object unwrapped. */
function render(v: unknown, flag: [string, string]): string | number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v === '' ? '""' : v;
  if (Array.isArray(v)) {
    if (v.length === 1 && v[0] && typeof v[0] === 'object' && !Array.isArray(v[0]))
      return objectText(v[0] as Record<string, unknown>, flag);
    const bare =
      v.every((x) => typeof x !== 'object' || x === null) &&
      v.every((x) => typeof x !== 'string' || (x !== '' && !/[\s,"]/.test(x)));
    return joinAnd(v.map((x) => (bare ? scalar(x, flag) : inner(x, flag))));
  }
  if (v && typeof v === 'object') return objectText(v as Record<string, unknown>, flag);
  return scalar(v, flag);
}

/** A short property description that names the same thing ("Source timezone") beats the raw name; otherwise humanize it. */
function labelFor(name: string, prop: unknown): string {
  const human = humanize(name) || 'value';
  const desc = prop && typeof prop === 'object' ? (prop as { description?: unknown }).description : undefined;
  if (typeof desc !== 'string') return neutralise(human);
  const first = dropAsides(neutralise(stripMarkdown(desc)).split(/\.(?:\s|$)|[;:\n]/)[0] ?? '').trim();
  const words = first
    .replace(/^(?:the|a|an)\s+/i, '')
    .split(/\s+/)
    .filter(Boolean);
  const stem = (w: string) =>
    w
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .replace(/s$/, '');
  const shared = new Set(human.split(' ').map(stem));
  if (words.length === 0 || words.length > 4 || !words.some((w) => shared.has(stem(w)))) return neutralise(human);
  return words.map((w, i) => (i === 0 ? lowerFirst(w) : w)).join(' ');
}

// ---------------------------------------------------------------- surface forms

/** One argument of a draw as the phrasings name it. */
export interface Arg {
  /** The property's name in the schema, its value and its schema (what the natural phrasings read meaning from). */
  name: string;
  value: unknown;
  schema: Record<string, unknown>;
  slot: string;
  label: string;
  bool: boolean;
  plural: boolean;
  /** Object-valued: reads badly after a bare "for". */
  nested: boolean;
}

const CONTEXTS = [
  "I'm putting together a quick report",
  "I'm cleaning up a few loose ends",
  "I'm helping a teammate with something",
  "I'm getting ready for a meeting",
  "I'm working through my task list",
  "I'm following up on an earlier request",
];

export function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const ph = (a: Arg) => `{${a.slot}}`;
// Argument blocks: each names every argument; booleans always keep their label so the flag round-trips.
const colon = (args: Arg[]) => args.map((a) => `${a.label}: ${ph(a)}`).join(', ');
const withSet = (args: Arg[]) => `with ${joinAnd(args.map((a) => `${a.label} set to ${ph(a)}`))}`;
const using = (args: Arg[]) =>
  `using ${joinAnd(args.map((a) => (a.bool ? `${a.label} set to ${ph(a)}` : `${ph(a)} as the ${a.label}`)))}`;
const isSentence = (args: Arg[]) =>
  joinAnd(
    args.map((a) => (a.bool ? `${a.label} should be ${ph(a)}` : `the ${a.label} ${a.plural ? 'are' : 'is'} ${ph(a)}`)),
  );
const terse = (args: Arg[]) =>
  args.length === 1 && !args[0]!.bool && !args[0]!.nested
    ? ph(args[0]!)
    : args.map((a) => `${a.label}${a.nested ? ':' : ''} ${ph(a)}`).join(', ');
/** "for {x}" only when one argument: with several, the unlabelled one would be ambiguous. */
const forOrWith = (args: Arg[]) =>
  args.length === 1 && !args[0]!.bool && !args[0]!.nested ? `for ${ph(args[0]!)}` : withSet(args);

type Form = (A: string, args: Arg[], rng: Rng, name: string) => string;
// Each surface form: variants with arguments, variants without. One of each form is always emitted.
const FORMS: Array<{ withArgs: Form[]; noArgs: Form[] }> = [
  {
    // imperative
    withArgs: [
      (A, g) => `${cap(A)} — ${colon(g)}.`,
      (A, g) => `${cap(A)} ${withSet(g)}.`,
      (A, g) => `${cap(A)} ${forOrWith(g)}.`,
    ],
    noArgs: [(A) => `${cap(A)}.`, (A) => `${cap(A)} now.`, (A) => `Go ahead and ${A}.`],
  },
  {
    // question
    withArgs: [
      (A, g) => `Can you ${A} ${forOrWith(g)}?`,
      (A, g) => `Could you ${A} ${using(g)}?`,
      (A, g) => `Is it possible to ${A} ${withSet(g)}?`,
    ],
    noArgs: [(A) => `Can you ${A}?`, (A) => `Could you ${A} for me?`, (A) => `Is it possible to ${A}?`],
  },
  {
    // indirect
    withArgs: [
      (A, g) => `I need to ${A} — ${isSentence(g)}.`,
      (A, g) => `I'd like to ${A}; ${isSentence(g)}.`,
      (A, g) => `I want to ${A} ${withSet(g)}.`,
    ],
    noArgs: [(A) => `I need to ${A}.`, (A) => `I'd like to ${A}.`, (A) => `I want to ${A}, please.`],
  },
  {
    // with context
    withArgs: [
      (A, g, r) => `${r.pick(CONTEXTS)}; please ${A} ${withSet(g)}.`,
      (A, g, r) => `${r.pick(CONTEXTS)}, so I need you to ${A} ${using(g)}.`,
    ],
    noArgs: [
      (A, _g, r) => `${r.pick(CONTEXTS)}; please ${A}.`,
      (A, _g, r) => `${r.pick(CONTEXTS)}, so I need you to ${A}.`,
    ],
  },
  {
    // terse: the tool's own name reads like a command line
    withArgs: [(A, g) => `${A} ${terse(g)}`, (_A, g, _r, n) => `${n} ${terse(g)}`],
    noArgs: [(A) => A, (_A, _g, _r, n) => n],
  },
  {
    // polite request
    withArgs: [
      (A, g) => `Could you please ${A} ${withSet(g)}?`,
      (A, g) => `Please ${A} ${using(g)}.`,
      (A, g) => `Please ${A} — ${colon(g)}.`,
    ],
    noArgs: [(A) => `Could you please ${A}?`, (A) => `Please ${A}.`, (A) => `Would you mind if we ${A}?`],
  },
];

/** The draw's arguments as slots: every value rendered as text once, each with its label (booleans as yes/no or true/false). */
export function argumentSlots(
  tool: CatalogTool,
  args: Record<string, unknown>,
  rng: Rng,
): { slots: Record<string, string | number>; list: Arg[] } {
  const props = ((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {}) as Record<
    string,
    unknown
  >;
  const flag: [string, string] = rng.chance(0.5) ? ['yes', 'no'] : ['true', 'false'];
  const slots: Record<string, string | number> = {};
  const list: Arg[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    let slot = name.replace(/\W/g, '_') || 'arg';
    while (slot in slots) slot += '_';
    slots[slot] = render(value, flag);
    const prop = props[name];
    list.push({
      name,
      value,
      schema: prop && typeof prop === 'object' ? (prop as Record<string, unknown>) : {},
      slot,
      label: labelFor(name, prop),
      bool: typeof value === 'boolean',
      plural: Array.isArray(value) || /[^su]s$/.test(name),
      nested:
        typeof value === 'object' &&
        value !== null &&
        (!Array.isArray(value) || value.some((x) => typeof x === 'object' && x !== null)),
    });
  }
  return { slots, list };
}

/** 6-10 distinct phrasings of a request for `tool` with exactly `args`, in several surface forms. Deterministic for the rng. */
export function phraseRequest(tool: CatalogTool, args: Record<string, unknown>, rng: Rng): Phrased {
  const { slots, list } = argumentSlots(tool, args, rng);
  return { phrasings: describedPhrasings(tool, list, rng), slots };
}

/** Phrasings built on the tool's action phrase (from its description) and the arguments' labels. */
export function describedPhrasings(tool: CatalogTool, list: Arg[], rng: Rng, target?: number): string[] {
  const A = actionPhrase(tool);
  const name = neutralise(humanize(tool.name)) || A;
  const make = (form: (typeof FORMS)[number]) => {
    const variants = list.length ? form.withArgs : form.noArgs;
    return rng.pick(variants)(A, shuffle(list, rng), rng, name);
  };
  const out = new Set<string>(FORMS.map(make));
  const want = target ?? rng.int(6, 10);
  for (let tries = 0; out.size < want && tries < 60; tries++) out.add(make(rng.pick(FORMS)));
  return shuffle([...out], rng);
}
