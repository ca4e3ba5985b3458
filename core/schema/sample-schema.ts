import type { ErrorObject, ValidateFunction } from 'ajv';
import { canonicalJson } from '../hash.js';
import { compileSchema } from './compile.js';

/**
 * Schema plumbing for the argument sampler (sample.ts): cached validators for whole and partial schemas,
 * local $ref resolution, and allOf merging. Nothing here draws values.
 */

export type Schema = Record<string, unknown>;

// ------------------------------------------------------------------------------------------- validators

const rootByObject = new WeakMap<object, ValidateFunction | string>();
const rootByJson = new Map<string, ValidateFunction | string>();

/** The schema's validator, compiled once per schema (by identity, then by content); a string is the compile error. */
export function rootValidator(schema: Schema): ValidateFunction | string {
  let v = rootByObject.get(schema);
  if (v === undefined) {
    const key = canonicalJson(schema);
    v = rootByJson.get(key);
    if (v === undefined) {
      const r = compileSchema(schema);
      v = r.ok ? r.validate : r.error;
      if (rootByJson.size > 5000) rootByJson.clear();
      rootByJson.set(key, v);
    }
    rootByObject.set(schema, v);
  }
  return v;
}

const subByObject = new WeakMap<object, WeakMap<object, ValidateFunction | null>>();
const subByJson = new Map<string, ValidateFunction | null>();

/** A validator for a sub-schema (with the root's $defs carried along); null when it cannot stand alone. */
export function subValidator(schema: Schema, root: Schema): ValidateFunction | null {
  let perRoot = subByObject.get(root);
  if (!perRoot) subByObject.set(root, (perRoot = new WeakMap()));
  let v = perRoot.get(schema);
  if (v === undefined) {
    const standalone = detach(schema, root);
    const key = standalone ? canonicalJson(standalone) : '';
    v = standalone ? subByJson.get(key) : null;
    if (v === undefined) {
      const r = compileSchema(standalone);
      v = r.ok ? r.validate : null;
      if (subByJson.size > 20_000) subByJson.clear();
      subByJson.set(key, v);
    }
    perRoot.set(schema, v);
  }
  return v;
}

/** The sub-schema as a root of its own: the dialect and $defs/definitions travel; other $refs cannot. */
function detach(schema: Schema, root: Schema): Schema | null {
  const refs = indexOf(schema).refs;
  if (refs.some((r) => !/^#\/(\$defs|definitions)\//.test(r))) return null;
  const out: Schema = { ...schema };
  if (root.$schema !== undefined) out.$schema = root.$schema;
  for (const k of ['$defs', 'definitions'] as const) {
    if (refs.length && root[k] !== undefined) {
      if (schema[k] !== undefined) return null;
      out[k] = root[k];
    }
  }
  return out;
}

/** True only when the sub-schema can be checked and the value passes. */
export function valid(schema: Schema, value: unknown, root: Schema): boolean {
  const v = subValidator(schema, root);
  return v !== null && v(value) === true;
}

export function ajvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

// ------------------------------------------------------------------------------------------- $ref index

export interface RootIndex {
  refs: string[];
  remote?: string;
  /** `$id`s and `#anchor`s declared inside the schema, so such refs resolve without a network. */
  named: Map<string, Schema>;
}
const indexes = new WeakMap<object, RootIndex>();
const DATA_KEYS = new Set(['enum', 'const', 'default', 'examples', 'example']);

export function indexOf(schema: Schema): RootIndex {
  let idx = indexes.get(schema);
  if (idx) return idx;
  const found: RootIndex = { refs: [], named: new Map() };
  const walk = (node: unknown, top: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, false));
    if (!isObj(node)) return;
    if (typeof node.$ref === 'string') found.refs.push(node.$ref);
    if (!top && typeof node.$id === 'string') found.named.set(node.$id, node);
    if (typeof node.$anchor === 'string') found.named.set(`#${node.$anchor}`, node);
    for (const [k, v] of Object.entries(node)) if (!DATA_KEYS.has(k)) walk(v, false);
  };
  walk(schema, true);
  found.remote = found.refs.find((r) => !r.startsWith('#') && !found.named.has(r));
  indexes.set(schema, (idx = found));
  return idx;
}

/** The schema a local $ref points at (JSON pointer with ~0/~1 and %-escapes, `$id` or `#anchor`), or why not. */
export function resolveRef(ref: string, root: Schema): { node: unknown } | { error: string } {
  const named = indexOf(root).named.get(ref);
  if (named) return { node: named };
  if (!ref.startsWith('#')) return { error: `remote $ref ${ref} is not supported` };
  let node: unknown = root;
  const frag = ref.slice(1);
  if (frag && !frag.startsWith('/')) return { error: `$ref ${ref} names no anchor in the schema` };
  for (const raw of frag.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObj(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
    if (node === undefined) return { error: `$ref ${ref} does not resolve` };
  }
  return { node };
}

// ------------------------------------------------------------------------------------------- merging (allOf)

/** Reasons a merged schema can hold no value; checked when the schema is drawn, so an unused branch costs nothing. */
export const conflicts = new WeakMap<Schema, string>();
const MIN_KEYS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const MAX_KEYS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);
const SUB_KEYS = new Set([
  'items',
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
]);

/** a ∧ b as one schema: unions for properties/required, intersections for types, enums and bounds. */
export function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  const conflict = conflicts.get(a) ?? conflicts.get(b);
  for (const [k, bv] of Object.entries(b)) {
    const av = out[k];
    if (av === undefined) out[k] = bv;
    else if (k === 'type') out.type = intersectTypes(av, bv);
    else if (k === 'required') out.required = [...new Set([...(av as string[]), ...(bv as string[])])];
    else if (k === 'properties' && isObj(av) && isObj(bv)) {
      const props: Schema = { ...av };
      for (const [p, pv] of Object.entries(bv)) props[p] = p in av ? { allOf: [av[p], pv] } : pv;
      out.properties = props;
    } else if (MIN_KEYS.has(k) && typeof av === 'number' && typeof bv === 'number') out[k] = Math.max(av, bv);
    else if (MAX_KEYS.has(k) && typeof av === 'number' && typeof bv === 'number') out[k] = Math.min(av, bv);
    else if (k === 'enum' && Array.isArray(av) && Array.isArray(bv)) {
      const keep = new Set(bv.map((v) => canonicalJson(v)));
      out.enum = av.filter((v) => keep.has(canonicalJson(v)));
    } else if (k === 'const' && canonicalJson(av) !== canonicalJson(bv))
      conflicts.set(out, `const ${canonicalJson(av)} conflicts with const ${canonicalJson(bv)}`);
    else if (SUB_KEYS.has(k))
      out[k] = av === false || bv === false ? false : av === true ? bv : bv === true ? av : { allOf: [av, bv] };
    else if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(av) && Array.isArray(bv)) {
      out[k] = av.flatMap((x) => bv.map((y) => ({ allOf: [x, y] }))).slice(0, 64); // (a1 ∨ a2) ∧ (b1 ∨ b2)
    } else if (k === 'allOf' && Array.isArray(av) && Array.isArray(bv)) out.allOf = [...av, ...bv];
    else if (k === 'uniqueItems') out[k] = av === true || bv === true;
    // anything else (annotations, patterns, formats): a's wins; the final validation catches what is lost
  }
  if (Array.isArray(out.type) && !out.type.length)
    conflicts.set(out, `types ${JSON.stringify(a.type)} and ${JSON.stringify(b.type)} do not overlap`);
  if (conflict && !conflicts.has(out)) conflicts.set(out, conflict);
  return out;
}

/** Types both allow; integer ∧ number is integer. */
function intersectTypes(a: unknown, b: unknown): string[] {
  const as = (Array.isArray(a) ? a : [a]) as string[];
  const bs = (Array.isArray(b) ? b : [b]) as string[];
  const out = new Set(as.filter((t) => bs.includes(t)));
  if ((as.includes('integer') && bs.includes('number')) || (as.includes('number') && bs.includes('integer')))
    out.add('integer');
  return [...out];
}

export const isObj = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
