/**
 * Draw realistic, schema-valid argument objects for an MCP tool's inputSchema, deterministically for a seed.
 *
 * Libraries: only randexp (regex → string) is used, for `pattern`, with its randInt routed to our seeded Rng.
 * json-schema-faker was rejected: its random source is a process-wide option rather than a per-call Rng, and its
 * realism comes from optional faker/chance extensions keyed on formats, not on field names or descriptions.
 * openapi-sampler is deterministic but not random (the same first example/default or "string" every time), so it
 * gives no variety. @faker-js/faker is a large locale database; we need a dozen generic words per kind of field,
 * which live in sample-strings.ts. So the walk below is ours, and every draw is checked with the catalog's ajv.
 */
import { canonicalJson } from '../hash.js';
import { Rng } from '../rng.js';
import {
  ajvErrors,
  conflicts,
  indexOf,
  isObj,
  merge,
  resolveRef,
  rootValidator,
  subValidator,
  valid,
  type Schema,
} from './sample-schema.js';
import {
  filler,
  formatValue,
  fromPattern,
  isCountName,
  nameWords,
  patternRegExp,
  quotedExamples,
  stringForMeaning,
  stringForName,
  isoDate,
} from './sample-strings.js';
import { fillDateTemplate, writtenDateFormat } from './date-template.js';
import { numberForMeaning } from './sample-numbers.js';
import { InputError } from '../errors.js';

/** A schema no argument set can be drawn for: impossible pattern, cyclic required $ref, contradictory bounds... */
export class UnsampleableSchema extends InputError {
  override name = 'UnsampleableSchema';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Where a value will go: the property's name, its path from the arguments root (array items as '[]'), its schema. */
export interface FieldRef {
  name: string;
  path: string[];
  schema: Record<string, unknown>;
}

export interface SampleOptions {
  rng: Rng;
  /** Real values for a field (e.g. ids harvested from the server), tried before synthetic ones; undefined/empty when none. */
  values?: (field: FieldRef) => readonly unknown[] | undefined;
  /** Probability each optional property is included (default 0.5): a realistic mix, not all-or-nothing. */
  optionalShare?: number;
  /** Depth limit for nested objects/arrays and $ref recursion (default 6). */
  maxDepth?: number;
  /**
   * The words of the tool the arguments are for (its name and description): strings are then drawn by what each
   * argument means there (stringForMeaning: a directory for a repository's path, SQL for a SQL query), else by name.
   */
  meaning?: readonly string[];
}

interface Ctx {
  rng: Rng;
  root: Schema;
  values: SampleOptions['values'];
  optionalShare: number;
  maxDepth: number;
  /** $refs entered along the current value path: a repeat at the depth limit is a cycle. */
  refs: string[];
  meaning: readonly string[] | undefined;
}
/** The value being drawn: its property name, path and nesting depth. */
interface At {
  name: string;
  path: string[];
  depth: number;
}

const ATTEMPTS = 20;
const HINT_SHARE = 0.4; // default/examples/description quotes: often, not always, so values vary
const VALUES_SHARE = 0.85; // real values from the server win most of the time

/** One argument object for a tool's inputSchema that passes ajv validation. Throws UnsampleableSchema. */
export function sampleArguments(schema: Record<string, unknown>, opts: SampleOptions): Record<string, unknown> {
  const remote = indexOf(schema).remote;
  if (remote) throw new UnsampleableSchema(`remote $ref ${remote} is not supported`);
  const validate = rootValidator(schema);
  if (typeof validate === 'string') throw new UnsampleableSchema(`schema does not compile: ${validate}`);
  const ctx: Ctx = {
    rng: opts.rng,
    root: schema,
    values: opts.values,
    optionalShare: opts.optionalShare ?? 0.5,
    maxDepth: opts.maxDepth ?? 6,
    refs: [],
    meaning: opts.meaning,
  };
  let last = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    ctx.refs.length = 0;
    const value = gen(schema, ctx, { name: '', path: [], depth: 0 });
    if (!isObj(value)) throw new UnsampleableSchema('(root): arguments schema does not describe an object');
    if (validate(value)) return value;
    last = ajvErrors(validate.errors);
  }
  throw new UnsampleableSchema(`no draw passed validation in ${ATTEMPTS} attempts: ${last}`);
}

/** Quick check used at catalog time: tries a few seeded draws; ok, or the reason (for quarantine). */
export function sampleability(
  schema: Record<string, unknown>,
  seed: string | number,
): { ok: true } | { ok: false; reason: string } {
  const rng = new Rng(seed);
  try {
    for (let i = 0; i < 3; i++) sampleArguments(schema, { rng });
    return { ok: true };
  } catch (err) {
    if (err instanceof UnsampleableSchema) return { ok: false, reason: err.reason };
    return { ok: false, reason: `sampler error: ${(err as Error).message}` }; // quarantine, never crash the catalog
  }
}

// ------------------------------------------------------------------------------------------- the walk

function gen(raw: unknown, ctx: Ctx, at: At): unknown {
  const mark = ctx.refs.length;
  try {
    return genFlat(flatten(raw, ctx, at), ctx, at, false);
  } finally {
    ctx.refs.length = mark;
  }
}

/** Resolve $ref and merge allOf until the schema's own keywords say everything about the value. */
function flatten(raw: unknown, ctx: Ctx, at: At, seen = new Set<string>()): Schema {
  let s = asSchema(raw, at);
  for (;;) {
    if (typeof s.$ref === 'string') {
      const ref = s.$ref;
      if (seen.has(ref)) throw fail(at, `cyclic $ref ${ref} resolves to itself`);
      // Refs along the value path; only objects/arrays count as depth, so a ref loop through anyOf needs this cap.
      if (ctx.refs.length > 8 * ctx.maxDepth + 16) throw fail(at, `$ref ${ref} recursion never ends`);
      seen.add(ref);
      ctx.refs.push(ref);
      const { $ref: _ref, ...rest } = s;
      const found = resolveRef(ref, ctx.root);
      if ('error' in found) throw fail(at, found.error);
      const target = asSchema(found.node, at);
      s = Object.keys(rest).length ? merge(rest, target) : target; // sibling keywords (2019+) narrow the target
    } else if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = allOf.reduce<Schema>((acc, m) => merge(acc, flatten(m, ctx, at, new Set(seen))), rest);
    } else return s;
  }
}

function asSchema(raw: unknown, at: At): Schema {
  if (raw === true) return {};
  if (raw === false) throw fail(at, 'schema is false, so no value is allowed');
  if (!isObj(raw)) throw fail(at, 'schema is not an object');
  return raw;
}

function genFlat(s: Schema, ctx: Ctx, at: At, hinted: boolean): unknown {
  const conflict = conflicts.get(s);
  if (conflict) throw fail(at, conflict);
  if (!hinted) {
    const hint = realValue(s, ctx, at) ?? hintValue(s, ctx, at);
    if (hint) return hint.value;
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) {
    if (!s.enum.length) throw fail(at, 'enum is empty');
    return ctx.rng.pick(s.enum);
  }
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return genBranch(s, ctx, at);
  if (s.if !== undefined) return genConditional(s, ctx, at);
  if (s.not !== undefined) return genNot(s, ctx, at);
  switch (chooseType(s, ctx, at)) {
    case 'object':
      return genObject(s, ctx, at);
    case 'array':
      return genArray(s, ctx, at);
    case 'integer':
      return genNumber(s, ctx, at, true);
    case 'number':
      return genNumber(s, ctx, at, false);
    case 'boolean':
      return ctx.rng.chance(0.5);
    case 'null':
      return null;
    default:
      return genString(s, ctx, at);
  }
}

/** A value the server gave us for this field, if one validates. */
function realValue(s: Schema, ctx: Ctx, at: At): { value: unknown } | undefined {
  if (!ctx.values || !at.path.length) return undefined;
  const vals = ctx.values({ name: at.name, path: at.path, schema: s });
  if (!vals?.length || !ctx.rng.chance(VALUES_SHARE)) return undefined;
  return firstValid(vals, s, ctx);
}

/** default / examples / example / values quoted in the description, when they validate. */
function hintValue(s: Schema, ctx: Ctx, at: At): { value: unknown } | undefined {
  if (!at.path.length) return undefined;
  const cands: unknown[] = [];
  if (s.default !== undefined) cands.push(s.default);
  if (Array.isArray(s.examples)) cands.push(...s.examples);
  if (s.example !== undefined) cands.push(s.example);
  if (mayBeString(s) && typeof s.description === 'string') cands.push(...quoted(s.description, namesAFormat(at.name)));
  if (!cands.length || !ctx.rng.chance(HINT_SHARE)) return undefined;
  return firstValid(cands, s, ctx);
}

function firstValid(cands: readonly unknown[], s: Schema, ctx: Ctx): { value: unknown } | undefined {
  for (const i of shuffled(ctx.rng, cands.length))
    if (valid(s, cands[i], ctx.root)) return { value: structuredClone(cands[i]) };
  return undefined;
}

const quotedCache = new Map<string, string[]>();
function quoted(description: string, keepTemplates: boolean): string[] {
  const key = `${keepTemplates ? 1 : 0}${description}`;
  let q = quotedCache.get(key);
  if (!q) {
    if (quotedCache.size > 20_000) quotedCache.clear();
    quotedCache.set(key, (q = quotedExamples(description, keepTemplates)));
  }
  return q;
}

/** An argument whose value is itself a format ("date_format", "pattern"): a template is what it takes. */
function namesAFormat(name: string): boolean {
  return ['format', 'pattern', 'template', 'mask'].includes(nameWords(name).at(-1) ?? '');
}

function mayBeString(s: Schema): boolean {
  return s.type === undefined || s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
}

/** Optional properties to leave out of a oneOf branch: those only its siblings require ("give an id or a number"). */
const omitted = new WeakMap<Schema, Set<string>>();

/** oneOf/anyOf: try the branches in random order (null-only branches mostly last); oneOf must match just one. */
function genBranch(s: Schema, ctx: Ctx, at: At): unknown {
  const key = Array.isArray(s.oneOf) ? 'oneOf' : 'anyOf';
  const { [key]: list, ...base } = s;
  const branches = list as unknown[];
  if (!branches.length) throw fail(at, `${key} is empty`);
  const isNull = (b: unknown): boolean => isObj(b) && b.type === 'null';
  const order = shuffled(ctx.rng, branches.length);
  if (ctx.rng.chance(0.9)) order.sort((a, b) => Number(isNull(branches[a])) - Number(isNull(branches[b])));
  let last: UnsampleableSchema | undefined;
  const dead = new Set<number>(); // branches that threw are not retried: a failing recursive branch would multiply
  const mark = ctx.refs.length;
  for (let round = 0; round < 3; round++) {
    for (const i of order) {
      if (dead.has(i)) continue;
      ctx.refs.length = mark; // a failed branch's $refs are not on the path of the next one
      try {
        const branch = flatten(branches[i], ctx, at);
        const merged = flatten(merge(base, branch), ctx, at);
        if (key === 'oneOf') omitted.set(merged, siblingsRequire(branches, i, branch));
        const value = genFlat(merged, ctx, at, true);
        if (key !== 'oneOf' || matchesOne(branches, value, ctx)) return value;
        last = fail(at, `value matches more than one oneOf branch`);
      } catch (err) {
        if (!(err instanceof UnsampleableSchema)) throw err;
        last = err;
        dead.add(i);
      }
    }
  }
  throw last!;
}

function siblingsRequire(branches: unknown[], self: number, branch: Schema): Set<string> {
  const own = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
  const names = branches.flatMap((b, i) =>
    i !== self && isObj(b) && Array.isArray(b.required) ? (b.required as string[]) : [],
  );
  return new Set(names.filter((n) => !own.has(n)));
}

function matchesOne(branches: unknown[], value: unknown, ctx: Ctx): boolean {
  let n = 0;
  for (const b of branches) {
    if (typeof b === 'boolean') n += Number(b);
    else if (isObj(b)) {
      const v = subValidator(b, ctx.root);
      if (!v) return true; // cannot tell here; the final validation decides
      n += Number(v(value) === true);
    }
  }
  return n === 1;
}

/** if/then/else: aim for one side at random, and fall back to the other when the draw fails the whole schema. */
function genConditional(s: Schema, ctx: Ctx, at: At): unknown {
  const { if: cond, then, else: other, ...base } = s;
  const thenSide = (): Schema =>
    merge(merge(base, flatten(cond, ctx, at)), then === undefined ? {} : flatten(then, ctx, at));
  const elseSide = (): Schema => (other === undefined ? base : merge(base, flatten(other, ctx, at)));
  const sides = ctx.rng.chance(0.5) ? [thenSide, elseSide] : [elseSide, thenSide];
  const whole = subValidator(s, ctx.root);
  let fallback: { value: unknown } | undefined;
  let last: UnsampleableSchema | undefined;
  const mark = ctx.refs.length;
  for (const side of sides) {
    ctx.refs.length = mark;
    try {
      const value = genFlat(flatten(side(), ctx, at), ctx, at, true);
      if (!whole || whole(value)) return value;
      fallback ??= { value }; // the final validation will ask for another draw
    } catch (err) {
      if (!(err instanceof UnsampleableSchema)) throw err;
      last = err;
    }
  }
  if (fallback) return fallback.value;
  throw last!;
}

/** not: redraw a few times until the value falls outside the excluded schema. */
function genNot(s: Schema, ctx: Ctx, at: At): unknown {
  const { not, ...base } = s;
  if (not === true) throw fail(at, '`not: true` excludes every value');
  const excluded = isObj(not) ? subValidator(not, ctx.root) : null;
  for (let i = 0; i < 8; i++) {
    const value = genFlat(base, ctx, at, true);
    if (!excluded || !excluded(value)) return value;
  }
  throw fail(at, 'no value found outside the `not` schema');
}

function chooseType(s: Schema, ctx: Ctx, at: At): string {
  const types = Array.isArray(s.type)
    ? (s.type as string[])
    : typeof s.type === 'string'
      ? [s.type]
      : inferTypes(s, at);
  if (!types.length) throw fail(at, 'no type satisfies all the combined schemas');
  const concrete = types.filter((t) => t !== 'null');
  if (!concrete.length || (concrete.length < types.length && ctx.rng.chance(0.1))) return 'null';
  return ctx.rng.pick(concrete);
}

function inferTypes(s: Schema, at: At): string[] {
  const has = (...keys: string[]): boolean => keys.some((k) => s[k] !== undefined);
  if (!at.path.length || has('properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties'))
    return ['object'];
  if (has('items', 'prefixItems', 'minItems', 'maxItems', 'contains', 'uniqueItems')) return ['array'];
  if (has('minLength', 'maxLength', 'pattern', 'format')) return ['string'];
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return ['number'];
  return [isCountName(at.name) ? 'integer' : 'string']; // `{}`: anything goes, so go by the name
}

// ------------------------------------------------------------------------------------------- objects

function genObject(s: Schema, ctx: Ctx, at: At): Schema {
  enter(ctx, at);
  const props = isObj(s.properties) ? s.properties : {};
  const required = [...new Set(Array.isArray(s.required) ? (s.required as string[]) : [])];
  const closed = s.additionalProperties === false && !isObj(s.patternProperties);
  for (const r of required) {
    if (!(r in props) && closed)
      throw fail(at, `required property "${r}" is not allowed: additionalProperties is false`);
  }
  const minP = num(s.minProperties) ?? 0;
  const maxP = num(s.maxProperties) ?? Infinity;
  if (minP > maxP) throw fail(at, `minProperties ${minP} > maxProperties ${maxP}`);
  if (required.length > maxP) throw fail(at, `${required.length} required properties exceed maxProperties ${maxP}`);

  const chosen = new Set(required);
  const must = new Set(required); // properties whose failure is the object's failure
  const optional = Object.keys(props).filter((k) => !chosen.has(k));
  const nearLimit = at.depth + 1 >= ctx.maxDepth;
  const skip = omitted.get(s);
  for (const k of optional)
    if (ctx.rng.chance(ctx.optionalShare) && !(nearLimit && nests(props[k])) && !skip?.has(k)) chosen.add(k);
  for (const i of shuffled(ctx.rng, optional.length)) {
    if (chosen.size >= minP) break;
    chosen.add(optional[i]!);
    must.add(optional[i]!);
  }
  if (chosen.size < minP) throw fail(at, `minProperties ${minP} needs more properties than the schema declares`);
  const drop = optional.filter((k) => chosen.has(k));
  while (chosen.size > maxP) chosen.delete(drop.splice(ctx.rng.int(0, drop.length - 1), 1)[0]!);
  addDependencies(s, chosen, must);

  const out: Schema = {};
  for (const k of [...Object.keys(props), ...[...chosen].filter((k) => !(k in props))]) {
    if (!chosen.has(k)) continue;
    const child: At = { name: k, path: [...at.path, k], depth: at.depth + 1 };
    const sub = k in props ? props[k] : extraSchema(s, k);
    try {
      set(out, k, gen(sub, ctx, child));
    } catch (err) {
      if (must.has(k) || !(err instanceof UnsampleableSchema)) throw err;
      // an optional property we cannot draw (too deep, impossible) is simply left out
    }
  }
  return out;
}

/** dependentRequired (2019+) and the array form of draft-07 `dependencies`. */
function addDependencies(s: Schema, chosen: Set<string>, must: Set<string>): void {
  const deps = {
    ...(isObj(s.dependencies) ? s.dependencies : {}),
    ...(isObj(s.dependentRequired) ? s.dependentRequired : {}),
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const [k, need] of Object.entries(deps)) {
      if (!chosen.has(k) || !Array.isArray(need)) continue;
      for (const n of need as string[]) {
        if (chosen.has(n)) continue;
        chosen.add(n);
        must.add(n);
        grew = true;
      }
    }
  }
}

/** The schema for a required property the object does not declare. */
function extraSchema(s: Schema, key: string): unknown {
  if (isObj(s.patternProperties)) {
    for (const [p, sub] of Object.entries(s.patternProperties)) if (patternRegExp(p)?.test(key)) return sub;
  }
  return isObj(s.additionalProperties) ? s.additionalProperties : {};
}

function nests(sub: unknown): boolean {
  if (!isObj(sub)) return false;
  return (
    sub.$ref !== undefined ||
    sub.type === 'object' ||
    sub.type === 'array' ||
    sub.properties !== undefined ||
    sub.items !== undefined
  );
}

// ------------------------------------------------------------------------------------------- arrays

function genArray(s: Schema, ctx: Ctx, at: At): unknown[] {
  enter(ctx, at);
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? (s.items as unknown[]) : [];
  const rest = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
  const lo = num(s.minItems) ?? 0;
  let hi = num(s.maxItems) ?? Infinity;
  if (lo > hi) throw fail(at, `minItems ${lo} > maxItems ${hi}`);
  if (rest === false) hi = Math.min(hi, tuple.length);
  if (lo > hi) throw fail(at, `minItems ${lo} but only ${tuple.length} tuple items are allowed`);
  const n = tuple.length
    ? Math.max(lo, Math.min(tuple.length, hi))
    : ctx.rng.int(Math.min(Math.max(lo, 1), hi), Math.min(hi, Math.max(lo, 3)));

  const out: unknown[] = [];
  const seen = new Set<string>();
  const child: At = { name: at.name, path: [...at.path, '[]'], depth: at.depth + 1 };
  for (let i = 0; i < n; i++) {
    const item = drawItem(
      i < tuple.length ? tuple[i] : (rest ?? {}),
      s.uniqueItems === true ? seen : null,
      ctx,
      child,
      i < lo,
    );
    if (item === undefined) break;
    out.push(item.value);
  }
  if (s.contains !== undefined) addContains(s, rest, out, ctx, child);
  return out;
}

/** One item; with uniqueItems, redraw duplicates. Undefined means "stop here" (allowed once minItems is met). */
function drawItem(
  schema: unknown,
  seen: Set<string> | null,
  ctx: Ctx,
  at: At,
  needed: boolean,
): { value: unknown } | undefined {
  for (let tries = 0; tries < 12; tries++) {
    let value: unknown;
    try {
      value = gen(schema, ctx, at);
    } catch (err) {
      if (needed || !(err instanceof UnsampleableSchema)) throw err;
      return undefined;
    }
    if (!seen) return { value };
    const key = canonicalJson(value);
    if (!seen.has(key)) return (seen.add(key), { value });
  }
  if (needed) throw fail(at, 'uniqueItems: cannot draw enough distinct items');
  return undefined;
}

/** contains / minContains, best effort: add items drawn from items ∧ contains until enough match. */
function addContains(s: Schema, rest: unknown, out: unknown[], ctx: Ctx, at: At): void {
  const want = num(s.minContains) ?? 1;
  const match = isObj(s.contains) ? subValidator(s.contains, ctx.root) : null;
  let have = match ? out.filter((v) => match(v)).length : 0;
  const itemSchema = merge(
    flatten(rest === undefined || rest === false ? true : rest, ctx, at),
    flatten(s.contains, ctx, at),
  );
  for (; have < want; have++) out.splice(ctx.rng.int(0, out.length), 0, gen(itemSchema, ctx, at));
}

// ------------------------------------------------------------------------------------------- scalars

function genString(s: Schema, ctx: Ctx, at: At): string {
  const { rng } = ctx;
  const minL = num(s.minLength) ?? 0;
  const maxL = num(s.maxLength) ?? Infinity;
  if (minL > maxL) throw fail(at, `minLength ${minL} > maxLength ${maxL}`);
  const pattern = typeof s.pattern === 'string' ? s.pattern : undefined;
  const re = pattern === undefined ? null : patternRegExp(pattern);
  const fits = (v: string): boolean => codePoints(v) >= minL && codePoints(v) <= maxL && (!re || re.test(v));

  const format = typeof s.format === 'string' ? s.format : undefined;
  let knownFormat = false;
  for (let i = 0; format && i < 4; i++) {
    const v = formatValue(format, rng);
    if (v === undefined) break;
    knownFormat = true;
    if (fits(v)) return v;
  }
  if (pattern !== undefined) {
    const named = stringForName(at.name, rng);
    if (fits(named)) return named;
    for (let i = 0; i < 16; i++) {
      const v = fromPattern(pattern, rng, i < 8 ? 0 : minL); // long repetitions only if short ones fail
      if (v !== undefined && fits(v)) return v;
    }
    const bounds = minL || maxL < Infinity ? ` with length ${minL}..${maxL}` : '';
    throw fail(at, `pattern /${pattern}/ cannot be satisfied${bounds}`);
  }
  // "in the format of 'YYYY-MM-DD'": the description gives the value's shape; a date drawn in it.
  const written = typeof s.description === 'string' ? writtenDateFormat(s.description) : undefined;
  if (written && !knownFormat && !namesAFormat(at.name)) {
    const v = fillDateTemplate(written, rng, isoDate);
    if (fits(v)) return v;
  }
  const meant = ctx.meaning
    ? stringForMeaning(at.name, typeof s.description === 'string' ? s.description : '', ctx.meaning, rng)
    : undefined;
  let v = (format && formatValue(format, rng)) || meant || stringForName(at.name, rng);
  if (codePoints(v) < minL) v = `${v} ${filler(rng, minL)}`;
  if (codePoints(v) > maxL) v = [...v].slice(0, maxL).join('').trimEnd(); // no dangling space after a cut
  while (codePoints(v) < minL) v += 'x';
  return v;
}

function genNumber(s: Schema, ctx: Ctx, at: At, integer: boolean): number {
  const r = bounds(s, at, integer);
  // Counts hide behind `type: number` too ("If provided, returns only the first N lines"): go by name and description.
  const countLike =
    isCountName(at.name) ||
    /\b(number of|how many|first n|last n|lines|items|results|entries)\b/i.test(
      typeof s.description === 'string' ? s.description : '',
    );
  // With the tool's words (natural phrasing), a year is a year and a count of guests a handful (sample-numbers.ts).
  const meant = ctx.meaning
    ? numberForMeaning(at.name, typeof s.description === 'string' ? s.description : '')
    : undefined;
  const plausible: [number, number] = meant
    ? [meant.lo, meant.hi]
    : countLike
      ? [/offset|skip/i.test(at.name) ? 0 : 1, 50]
      : integer
        ? [1, 100]
        : [0, 1000];
  // Prefer plausible magnitudes, but the schema's bounds win.
  let a = Math.max(r.lo, plausible[0]);
  let b = Math.min(r.hi, plausible[1]);
  if (a > b)
    [a, b] =
      r.lo > plausible[1] ? [r.lo, Math.min(r.hi, r.lo + plausible[1])] : [Math.max(r.lo, r.hi - plausible[1]), r.hi];
  const m = num(s.multipleOf);
  if (m !== undefined && m > 0) return multiple(m, a, b, r, at, ctx);
  if (integer) return ctx.rng.int(Math.ceil(a), Math.floor(b));
  const raw = a + ctx.rng.next() * (b - a);
  // Most numbers people type are whole, and a count is always whole.
  const rounded = Number(raw.toFixed(countLike || meant?.whole ? 0 : ctx.rng.pick([0, 0, 1, 2])));
  return r.ok(rounded) ? rounded : r.ok(raw) ? raw : (r.lo + r.hi) / 2;
}

interface Range {
  lo: number;
  hi: number;
  ok(v: number): boolean;
}

/** minimum/maximum with exclusive bounds in both forms: draft-04 booleans and 2019+ numbers. */
function bounds(s: Schema, at: At, integer: boolean): Range {
  let lo = num(s.minimum) ?? -Infinity;
  let hi = num(s.maximum) ?? Infinity;
  let loEx = s.exclusiveMinimum === true;
  let hiEx = s.exclusiveMaximum === true;
  const exMin = num(s.exclusiveMinimum);
  const exMax = num(s.exclusiveMaximum);
  if (exMin !== undefined && exMin >= lo) [lo, loEx] = [exMin, true];
  if (exMax !== undefined && exMax <= hi) [hi, hiEx] = [exMax, true];
  const ok = (v: number): boolean =>
    (loEx ? v > lo : v >= lo) && (hiEx ? v < hi : v <= hi) && (!integer || Number.isInteger(v));
  const shownLo = `${loEx ? 'exclusive ' : ''}minimum ${lo}`;
  const shownHi = `${hiEx ? 'exclusive ' : ''}maximum ${hi}`;
  if (integer) {
    lo = loEx ? Math.floor(lo) + 1 : Math.ceil(lo);
    hi = hiEx ? Math.ceil(hi) - 1 : Math.floor(hi);
  } else if (loEx || hiEx) {
    // keep draws strictly inside: shrink by a hair (never by a share of a huge span)
    const eps = Math.min(1e-6, (hi - lo) / 4);
    if (loEx) lo += eps;
    if (hiEx) hi -= eps;
  }
  if (lo > hi || (lo === hi && !ok(lo)))
    throw fail(at, `${shownLo} > ${shownHi}: no ${integer ? 'integer' : 'number'} fits`);
  return { lo, hi, ok };
}

function multiple(m: number, a: number, b: number, r: Range, at: At, ctx: Ctx): number {
  const decimals = (String(m).split('.')[1] ?? '').length;
  const times = (k: number): number => Number((k * m).toFixed(decimals));
  let kLo = Math.ceil(a / m);
  let kHi = Math.floor(b / m);
  if (kLo > kHi) [kLo, kHi] = [Math.ceil(r.lo / m), Math.floor(r.hi / m)];
  if (kLo > kHi || !Number.isFinite(kLo) || !Number.isFinite(kHi))
    throw fail(at, `no multiple of ${m} lies between the bounds`);
  const v = times(ctx.rng.int(kLo, kHi));
  return r.ok(v) ? v : times(kLo) === v ? times(kLo + 1) : times(kLo); // an exclusive bound hit exactly
}

// ------------------------------------------------------------------------------------------- small helpers

function enter(ctx: Ctx, at: At): void {
  if (at.depth <= ctx.maxDepth) return;
  const cycle = ctx.refs.find((r, i) => ctx.refs.indexOf(r) !== i);
  const name = [...at.path].reverse().find((p) => p !== '[]') ?? '(root)';
  if (cycle)
    throw fail(at, `cyclic $ref ${cycle} through required property "${name}" never ends (maxDepth ${ctx.maxDepth})`);
  throw fail(at, `nested deeper than maxDepth ${ctx.maxDepth}`);
}

function fail(at: At, msg: string): UnsampleableSchema {
  const where = at.path.reduce((s, p) => (p === '[]' ? `${s}[]` : s ? `${s}.${p}` : p), '') || '(root)';
  return new UnsampleableSchema(`${where}: ${msg}`);
}

function shuffled(rng: Rng, n: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx;
}

/** Own data property even for keys like `__proto__`. */
function set(obj: Schema, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const codePoints = (s: string): number => [...s].length;
