/**
 * Requests for any MCP tool phrased from what it does, not from its description string: the tool's action as a
 * verb class (from its name, else its description) said with everyday verbs, its object in everyday nouns, and
 * each argument mentioned the way its meaning is said ("in /repo", "since 2026-03-01", `saying "…"`, "just 5"),
 * in any order, as commands, questions, indirect asks and terse notes, some after a sentence that has nothing to do
 * with the call, and some as a clarifying exchange (the user asks, the assistant asks for one value, the user gives
 * it). Every non-boolean value stays in a {slot}, so the router can copy it. Deterministic for the rng.
 */
import type { CatalogTool } from '../../catalog/types.js';
import type { Rng } from '../../rng.js';
import type { Dialogue } from '../types.js';
import { actionPhrase, type Arg, baseVerb, humanize, joinAnd, neutralise, shuffle } from './phrase.js';

export interface NaturalPhrasings {
  phrasings: string[];
  /** The style of each phrasing (`dataset stats` counts them). */
  styles: NaturalStyle[];
  dialogues: Dialogue[];
}

export type NaturalStyle = 'command' | 'question' | 'indirect' | 'terse' | 'values-first' | 'aside';

type VerbClass = 'get' | 'list' | 'search' | 'create' | 'update' | 'delete' | 'send' | 'run' | 'convert' | 'write';

/** Verb classes by the base verb a tool's name or description starts with. */
const CLASS_OF: Record<string, VerbClass> = {};
const CLASS_WORDS: Record<VerbClass, string> = {
  get: 'get read fetch retrieve show view describe display print check inspect load see obtain look lookup inspect',
  list: 'list enumerate',
  search: 'search find query filter browse scrape crawl',
  create: 'create add make insert register build generate initialize new open start book schedule draft compose',
  update: 'update edit modify set change patch rename replace configure upsert mark assign move',
  delete: 'delete remove drop clear destroy purge unlink revoke cancel archive close kill terminate stop',
  send: 'send post notify reply forward publish share invite comment',
  run: 'run execute invoke trigger call perform evaluate calculate compute navigate click',
  convert: 'convert translate transform format parse encode decode compress summarize',
  write: 'write save store append upload commit record remember push',
};
for (const [cls, words] of Object.entries(CLASS_WORDS))
  for (const w of words.split(' ')) CLASS_OF[w] ??= cls as VerbClass;

/** Everyday verbs per class: usable after "can you", "I need to" and alone. */
const VERBS_FOR: Record<VerbClass, string[]> = {
  get: ['show', 'pull up', 'get', 'grab', 'look up', 'check', 'fetch', 'bring up'],
  list: ['list', 'show', 'go through', 'pull up', 'get'],
  search: ['find', 'look for', 'search for', 'dig up', 'track down', 'hunt for'],
  create: ['create', 'make', 'set up', 'add', 'start', 'put together'],
  update: ['update', 'change', 'edit', 'tweak', 'modify', 'fix up'],
  delete: ['delete', 'remove', 'get rid of', 'drop', 'clear out', 'trash'],
  send: ['send', 'fire off', 'post', 'shoot over'],
  run: ['run', 'do', 'kick off', 'execute', 'go ahead with'],
  convert: ['convert', 'turn', 'translate', 'change'],
  write: ['save', 'write', 'store', 'put', 'record'],
};
/** Extra openers that only read right at the start of a command or after "can you". */
const COMMAND_VERBS: Partial<Record<VerbClass, string[]>> = {
  get: ['show me', 'give me', 'tell me', 'let me see'],
  list: ['show me', 'give me', 'list out'],
  search: ['see if you can find'],
};
/** Words a name may start with that read as a noun when nothing follows ("git_log", "run_query" aside). */
const NOUNISH = new Set(
  'log query record type test plan comment label tag schedule review format map list search status diff draft note'.split(
    ' ',
  ),
);
/** Objects a tool runs, whatever its verb says. */
const RUNNABLE = new Set(['query', 'sql', 'command', 'script', 'statement', 'code', 'workflow', 'job', 'pipeline']);
/** Everyday words for schema nouns. */
const NOUNS: Record<string, string[]> = {
  directory: ['folder', 'directory', 'dir'],
  directories: ['folders', 'directories'],
  repository: ['repo', 'repository'],
  repositories: ['repos', 'repositories'],
  message: ['message', 'note'],
  document: ['doc', 'document'],
  documents: ['docs', 'documents'],
  image: ['image', 'picture'],
  information: ['info', 'details'],
  info: ['info', 'details'],
  details: ['details', 'info'],
  entities: ['entities', 'entries'],
  record: ['record', 'entry'],
  records: ['records', 'entries'],
  issue: ['issue', 'ticket'],
  issues: ['issues', 'tickets'],
  configuration: ['config', 'settings'],
  config: ['config', 'settings'],
};
const FILLER = new Set(
  'a an the of to for with and or in on at by from into that which this its your as via all any'.split(' '),
);
/** Sentences that have nothing to do with the call. */
const ASIDES = [
  'ok so.',
  'Morning!',
  'quick one.',
  "I'm on my phone, sorry for typos.",
  'The boss wants this before lunch.',
  'Thanks for the help earlier.',
  'While I remember —',
  'Not urgent, but',
  'Long day already.',
  'This is for the demo later.',
  'Small thing:',
  'Back from the standup.',
  'hey, me again.',
  'Before I forget:',
  'Coffee first, then this:',
];
const QUESTIONS = [
  'Sure — which {L}?',
  'Which {L} should I use?',
  "Okay. What's the {L}?",
  'Happy to. Which {L} do you mean?',
];
const ANSWERS = ['{S}', "it's {S}", '{S} please', 'use {S}', 'the {L} is {S}', '{M}'];

interface Sense {
  cls: VerbClass;
  /** The tool's own verb, when it has one (said sometimes, beside the class's everyday verbs). */
  own?: string;
  /** Everyday noun phrase for what the tool acts on ('' when its name says only the action). */
  object: string;
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function plural(noun: string): string {
  if (!noun || /s$/.test(noun)) return noun;
  if (/(x|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** Words most of a server's tool names start with ("git", "browser"): they name the server, not the action. */
export function namePrefix(siblings: readonly CatalogTool[]): Set<string> {
  const firsts = new Map<string, number>();
  for (const t of siblings) {
    const w = humanize(t.name).split(' ')[0];
    if (w) firsts.set(w, (firsts.get(w) ?? 0) + 1);
  }
  return new Set(
    [...firsts].filter(([w, n]) => siblings.length >= 3 && n / siblings.length >= 0.6 && !baseVerb(w)).map(([w]) => w),
  );
}

/** What the tool does: its verb class and object, from its name, else its description. */
/**
 * The words of a name that say the action: after its last "." (`OpenWeatherMap.get_current_weather`), without a
 * renamed duplicate's `__2`, after a numbered service prefix (`Flights_4_SearchRoundtripFlights`), without the
 * server's shared prefix and without bare numbers or braces.
 */
export function actionWords(name: string, prefix: ReadonlySet<string>): string[] {
  const segment =
    name
      .replace(/__\d+$/, '')
      .split('.')
      .at(-1) || name;
  let w = humanize(segment).split(' ');
  const lastNumber = w.map((x) => /^\d+$/.test(x)).lastIndexOf(true);
  if (lastNumber >= 0 && lastNumber < w.length - 1) w = w.slice(lastNumber + 1);
  return w.filter((x) => /^[a-z][a-z0-9]*$/.test(x) && !prefix.has(x));
}

export function toolSense(tool: CatalogTool, prefix: ReadonlySet<string>): Sense {
  const name = actionWords(tool.name, prefix);
  // The first verb-like word says the action ("slack_post_message"); a gerund is a noun ("ride sharing").
  let at = name.findIndex((w) => baseVerb(w) !== undefined && !/ing$/.test(w));
  // "git_log", "status": a noun-like verb with nothing after it is the object, not the action.
  if (at >= 0 && NOUNISH.has(name[at]!) && name.length === 1) at = -1;
  const described = actionPhrase(tool).split(' ');
  // actionPhrase puts "get" before a description that starts with a noun: only a verb the description says counts.
  const describedVerb = baseVerb(words(tool.description ?? tool.title ?? '')[0] ?? '') && baseVerb(described[0] ?? '');
  const verb = at >= 0 ? baseVerb(name[at]!)! : (describedVerb ?? 'get');
  let object = name.filter((_, i) => i !== at).filter((w) => !FILLER.has(w));
  if (object.length === 0 || (at < 0 && object.length === 1 && NOUNISH.has(object[0]!) && describedVerb)) {
    // From the description: the words after its verb, up to a preposition or clause, at most three.
    const rest: string[] = [];
    for (const w of described.slice(describedVerb ? 1 : 0)) {
      const lw = w.toLowerCase();
      if (rest.length && (FILLER.has(lw) || rest.length >= 3)) break;
      if (!FILLER.has(lw) && /^[a-z0-9-]+$/i.test(w)) rest.push(lw);
    }
    if (rest.length) object = rest;
  }
  const own = at >= 0 || !CLASS_OF[verb] ? { own: verb } : {};
  // "read_query", "execute_command": reading or writing a query or a script runs it (deleting one does not).
  const cls = CLASS_OF[verb] ?? 'run';
  const runs = RUNNABLE.has(object.at(-1) ?? '') && ['get', 'write', 'run'].includes(cls);
  return { cls: runs ? 'run' : cls, ...own, object: object.join(' ') };
}

// ---------------------------------------------------------------- argument mentions

type Kind =
  | 'flag'
  | 'choice'
  | 'directory'
  | 'file'
  | 'url'
  | 'email'
  | 'timezone'
  | 'date'
  | 'time'
  | 'count'
  | 'number'
  | 'code'
  | 'query'
  | 'text'
  | 'title'
  | 'id'
  | 'person'
  | 'generic';

function kindOf(a: Arg, sense: Sense): Kind {
  const w = humanize(a.name).split(' ');
  const has = (...keys: string[]) => keys.some((k) => w.includes(k));
  const desc = typeof a.schema.description === 'string' ? a.schema.description.toLowerCase() : '';
  if (a.bool) return 'flag';
  if (Array.isArray(a.schema.enum)) return 'choice';
  if (typeof a.value === 'number')
    return has('limit', 'max', 'count', 'top', 'lines', 'size', 'depth', 'results', 'n', 'num') ? 'count' : 'number';
  if (typeof a.value !== 'string' && !Array.isArray(a.value)) return 'generic';
  // The last word is what the argument is: "message_id" is an id, "repo_name" a name, whatever comes before.
  const head = w.at(-1)!;
  if (['id', 'ids', 'uuid', 'key', 'code', 'number', 'no', 'sha', 'hash'].includes(head)) return 'id';
  if (['name', 'title', 'subject', 'label'].includes(head)) return 'title';
  if (has('dir', 'directory', 'folder', 'repo', 'repository', 'workspace', 'cwd', 'root') && !/\bname\b/.test(desc))
    return 'directory';
  if (has('path') && (/\b(directory|folder)\b/.test(desc) || /\b(dir|directory|folder)\b/.test(sense.object)))
    return 'directory';
  if (has('path', 'file', 'filename', 'files', 'paths')) return 'file';
  if (has('url', 'uri', 'link', 'href', 'website')) return 'url';
  if (has('email', 'emails')) return 'email';
  if (has('timezone', 'tz') || (has('zone') && has('time'))) return 'timezone';
  if (has('date', 'day', 'since', 'until', 'deadline', 'timestamp', 'datetime', 'before', 'after')) return 'date';
  if (has('time')) return 'time';
  if (has('sql', 'script', 'command', 'cmd', 'expression', 'regex', 'pattern', 'selector', 'jq')) return 'code';
  if (has('query') && /\bsql\b|select|statement/.test(`${desc} ${sense.object}`)) return 'code';
  if (has('query', 'search', 'term', 'terms', 'keyword', 'keywords', 'q', 'filter')) return 'query';
  if (
    has('message', 'text', 'content', 'body', 'note', 'comment', 'description', 'prompt', 'summary', 'insight', 'msg')
  )
    return 'text';
  if (has('name', 'title', 'subject', 'label')) return 'title';
  if (has('uuid', 'key', 'sha', 'hash', 'revision', 'ref')) return 'id';
  if (has('user', 'author', 'owner', 'assignee', 'person', 'recipient', 'to', 'login', 'username')) return 'person';
  return 'generic';
}

/** "source_timezone" → from, "target_branch" → to. */
function roleOf(a: Arg): 'from' | 'to' | undefined {
  const w = humanize(a.name).split(' ');
  if (w.some((x) => ['source', 'from', 'origin', 'src', 'old', 'start', 'since', 'after'].includes(x))) return 'from';
  if (w.some((x) => ['target', 'to', 'destination', 'dest', 'dst', 'new', 'end', 'until', 'before'].includes(x)))
    return 'to';
  return undefined;
}

/** The label without words that only say "identifier", "name" or "count": "branch name" → "branch". */
function noun(a: Arg, drop: string[]): string {
  return a.label
    .split(' ')
    .filter((x) => !drop.includes(x.toLowerCase()))
    .join(' ');
}

/** Ways to mention one argument, `{S}` standing for its slot; not its label again where the object already says it. */
function mentionsFor(a: Arg, sense: Sense): string[] {
  const all = mentionsOf(a, sense);
  if (a.bool) return all;
  const objectWords = new Set(sense.object.split(' ').flatMap((w) => [w, plural(w)]));
  const shared = words(a.label).filter((w) => objectWords.has(w));
  if (!shared.length) return all;
  const bare = all.filter((m) => !shared.some((w) => m.toLowerCase().includes(`${w} `)));
  return bare.length ? bare : ['{S}', '"{S}"'];
}

function mentionsOf(a: Arg, sense: Sense): string[] {
  const L = a.label;
  const role = roleOf(a);
  const kind = kindOf(a, sense);
  if (kind === 'flag') {
    const yes = a.value === true;
    return yes
      ? [`with ${L}`, `including ${L}`, `${L} on`, `${L}: {S}`]
      : [`without ${L}`, `no ${L}`, `${L} off`, `${L}: {S}`];
  }
  if (role && (kind === 'date' || kind === 'time'))
    return role === 'from' ? ['since {S}', 'from {S}', 'after {S}'] : ['until {S}', 'before {S}', 'up to {S}'];
  if (role === 'from' && kind !== 'count') return ['from {S}', `${L} {S}`, `starting from {S}`];
  if (role === 'to' && kind !== 'count')
    return ['to {S}', `${L} {S}`, ...(['convert', 'update', 'create'].includes(sense.cls) ? ['into {S}'] : [])];
  switch (kind) {
    case 'choice':
      return ['{S}', `${L} {S}`, `set ${L} to {S}`, `${L}: {S}`];
    case 'directory':
      return /\b(dir|directory|folder)\b/.test(sense.object) && sense.cls === 'create'
        ? ['{S}', 'at {S}', 'called {S}']
        : ['in {S}', 'under {S}', 'for {S}', 'in the {S} folder', 'at {S}'];
    case 'file':
      return ['{S}', '{S}', `the ${a.plural ? 'files' : 'file'} {S}`, 'in {S}'];
    case 'url':
      return ['{S}', 'at {S}', 'this link: {S}', 'from {S}'];
    case 'email':
      return ['{S}', 'for {S}', 'to {S}'];
    case 'timezone':
      return ['in {S}', 'for {S}', '{S} time'];
    case 'date':
      return ['on {S}', 'for {S}', 'dated {S}'];
    case 'time':
      return ['at {S}', 'for {S}'];
    case 'count': {
      const things = noun(a, ['max', 'maximum', 'limit', 'count', 'num', 'number', 'of', 'n', 'top']);
      return [`${'{S}'} ${things || 'results'}`, 'at most {S}', 'up to {S}', 'just {S}', `${L} {S}`];
    }
    case 'number':
      return /s$/.test(L) ? [`{S} ${L}`, `{S} ${L}`, `${L}: {S}`] : [`${L} {S}`, `${L}: {S}`, `with ${L} {S}`];
    case 'code':
      return ['this: {S}', '{S}', `the ${L} {S}`, '`{S}`'];
    case 'query':
      return ['for {S}', 'matching {S}', 'about {S}', 'on "{S}"'];
    case 'text':
      return ['saying "{S}"', 'that says "{S}"', `with the ${L} "{S}"`, '— "{S}"'];
    case 'title': {
      const what = noun(a, ['name', 'title']);
      return what ? [`${what} {S}`, `the ${what} {S}`, `${what} "{S}"`] : ['called {S}', 'named {S}', 'titled "{S}"'];
    }
    case 'id': {
      const what = noun(a, ['id', 'ids', 'identifier', 'uuid', 'key', 'no']);
      return what ? [`${what} {S}`, `${what} {S}`, `the ${what} with id {S}`, '{S}'] : ['{S}', 'id {S}', '#{S}'];
    }
    case 'person':
      return ['for {S}', '{S}', `${L} {S}`];
    default:
      return [`${L} {S}`, `${L}: {S}`, `with ${L} {S}`, `{S} as the ${L}`, `using {S} for the ${L}`];
  }
}

const mention = (template: string, a: Arg) => template.replace('{S}', () => `{${a.slot}}`);

// ---------------------------------------------------------------- sentences

function everyday(object: string, rng: Rng): string {
  return object
    .split(' ')
    .map((w) => (NOUNS[w] ? rng.pick(NOUNS[w]) : w))
    .join(' ');
}

function verbFor(sense: Sense, rng: Rng, commandOnly: boolean): string {
  const bank = [...VERBS_FOR[sense.cls], ...(commandOnly ? (COMMAND_VERBS[sense.cls] ?? []) : [])];
  return sense.own && rng.chance(0.4) ? sense.own : rng.pick(bank);
}

/** "a new folder", "the repo", "all the tables" or "" (a tool whose name says only the action). */
function objectFor(sense: Sense, rng: Rng): string {
  if (!sense.object) return '';
  const o = everyday(sense.object, rng);
  if (sense.cls === 'list' || sense.cls === 'search')
    return rng.pick([plural(o), `all the ${plural(o)}`, `the ${plural(o)}`]);
  if (sense.cls === 'create') return rng.pick([`a new ${o}`, `a ${o}`, o]);
  return rng.pick([`the ${o}`, `my ${o}`, o, `the ${o}`]);
}

function joinMentions(ms: string[], rng: Rng): string {
  if (ms.length < 2) return ms[0] ?? '';
  return rng.pick([ms.join(' '), ms.join(', '), joinAnd(ms)]);
}

const clean = (s: string) =>
  s
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.?!:])/g, '$1')
    .trim();

/** One sentence of a style, naming every argument of `list` once. */
function sentence(style: NaturalStyle, sense: Sense, list: Arg[], rng: Rng): string {
  // Two arguments of one kind ("owner" and "repo", two counts) said the same bare way could not be told apart:
  // after the first of a kind, each says its label.
  const kinds = new Set<Kind>();
  const ms = shuffle(list, rng).map((a) => {
    const kind = kindOf(a, sense);
    const again = !a.bool && kinds.has(kind);
    kinds.add(kind);
    return mention(
      rng.pick(again ? [`${a.label} {S}`, `${a.label}: {S}`, `with ${a.label} {S}`] : mentionsFor(a, sense)),
      a,
    );
  });
  const O = objectFor(sense, rng);
  const M = joinMentions(ms, rng);
  const V = verbFor(sense, rng, style === 'command' || style === 'question');
  const act = clean(`${V} ${O} ${M}`);
  switch (style) {
    case 'command':
      return cap(act) + rng.pick(['.', '', ' please.', ', thanks.', '!']);
    case 'question': {
      const plainObject = sense.object ? everyday(sense.object, rng) : '';
      const own =
        sense.cls === 'get' && plainObject
          ? [`what's the ${plainObject} ${M}?`, `can I see the ${plainObject} ${M}?`]
          : sense.cls === 'list' && plainObject
            ? [`what ${plural(plainObject)} are there ${M}?`, `which ${plural(plainObject)} do we have ${M}?`]
            : sense.cls === 'search' && plainObject
              ? [`any ${plural(plainObject)} ${M}?`]
              : [];
      const asks = [`can you ${act}?`, `could you ${act}?`, `would you ${act}?`, `any chance you could ${act}?`];
      return cap(clean(rng.pick([...own, ...asks, ...asks])));
    }
    case 'indirect':
      return cap(
        clean(
          rng.pick([
            `I need to ${act}.`,
            `I'd like to ${act}.`,
            `I want to ${act}`,
            `need to ${act}`,
            `help me ${act}?`,
            `I'm trying to ${act}.`,
            ...(sense.cls === 'get' && O ? [`I need ${O} ${M}.`] : []),
          ]),
        ),
      );
    case 'terse':
      return lowerOutsideSlots(sense.cls === 'get' && O && rng.chance(0.5) ? clean(`${O} ${M}`) : act);
    case 'values-first': {
      if (!ms.length) return cap(act);
      const [lead, ...rest] = ms;
      const tail = clean(`${V} ${O} ${joinMentions(rest, rng)}`);
      return clean(rng.pick([`${cap(lead!)}: ${tail}`, `${cap(lead!)} — ${tail}.`, `${cap(lead!)}, ${tail}, please.`]));
    }
    case 'aside':
      return `${rng.pick(ASIDES)} ${sentence(rng.pick(['command', 'question', 'indirect'] as const), sense, list, rng)}`;
  }
}

const STYLES: NaturalStyle[] = ['command', 'question', 'indirect', 'terse', 'values-first', 'aside'];

/**
 * 6-9 distinct natural phrasings of a request for `tool` with exactly the arguments in `list` (their slots from
 * argumentSlots), their styles, and up to two clarifying exchanges. `siblings`: the tools of the same server (their
 * shared name prefix is dropped).
 */
export function naturalPhrasings(
  tool: CatalogTool,
  list: Arg[],
  rng: Rng,
  siblings: readonly CatalogTool[] = [],
): NaturalPhrasings {
  const sense = toolSense(tool, namePrefix(siblings));
  const seen = new Set<string>();
  const phrasings: string[] = [];
  const styles: NaturalStyle[] = [];
  const want = rng.int(6, 9);
  for (let tries = 0; phrasings.length < want && tries < 40; tries++) {
    const style = tries < STYLES.length ? STYLES[tries]! : rng.pick(STYLES);
    const text = neutraliseOutsideSlots(sentence(style, sense, list, rng));
    if (seen.has(text)) continue;
    seen.add(text);
    phrasings.push(text);
    styles.push(style);
  }
  const askable = list.filter((a) => !a.bool);
  const dialogues: Dialogue[] = [];
  for (let i = 0; i < Math.min(2, askable.length); i++) {
    const asked = rng.pick(askable);
    const rest = list.filter((a) => a !== asked);
    const L = asked.label;
    const M = mention(rng.pick(mentionsFor(asked, sense)), asked);
    dialogues.push({
      opener: neutraliseOutsideSlots(
        sentence(rng.pick(['command', 'question', 'indirect'] as const), sense, rest, rng),
      ),
      question: rng.pick(QUESTIONS).replace('{L}', () => neutralise(L)),
      answer: rng
        .pick(ANSWERS)
        .replace('{M}', () => M)
        .replace('{S}', () => `{${asked.slot}}`)
        .replace('{L}', () => neutralise(L)),
    });
  }
  return { phrasings, styles, dialogues };
}

const lowerOutsideSlots = (text: string) =>
  text
    .split(/(\{\w+\})/)
    .map((part, i) => (i % 2 ? part : part.toLowerCase()))
    .join('');

/** Literal braces from labels become parentheses; the {slot} placeholders stay. */
function neutraliseOutsideSlots(text: string): string {
  return text
    .split(/(\{\w+\})/)
    .map((part, i) => (i % 2 ? part : neutralise(part)))
    .join('');
}
