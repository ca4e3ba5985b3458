import type { EntityPools, HarvestedPools, HarvestedValue } from './types.js';

/** Values per pool key kept at most (a probe that lists thousands of records needs only a sample). */
export const MAX_VALUES_PER_KEY = 200;
const MAX_STRING = 200;

/**
 * Collect the leaf values of a tool result into pools keyed by where they sat: `entities[].name`,
 * `result.records[].Id`. Text results that are not JSON give paths, URLs, emails and short lines
 * (`text:path`, `text:url`, `text:email`, `text:line`): servers often answer in prose or listings.
 */
export function harvestResult(
  pools: HarvestedPools,
  result: { structuredContent?: unknown; content?: unknown },
  tool: string,
  call: number,
  under?: string,
): number {
  let added = 0;
  // Repeats count within one result (a status shared by many records), not across calls: the same list
  // fetched twice names its records no less.
  const inThisResult = new Map<string, number>();
  const add = (key: string, value: string | number) => {
    if (typeof value === 'string' && (value.length < 1 || value.length > MAX_STRING)) return;
    const here = `${key}\u0000${typeof value}:${value}`;
    const n = (inThisResult.get(here) ?? 0) + 1;
    inThisResult.set(here, n);
    const list = (pools[key] ??= []);
    const seen = list.find((v) => v.value === value);
    if (seen) return void (seen.count = Math.max(seen.count, n));
    if (list.length >= MAX_VALUES_PER_KEY) return;
    list.push({ value, tool, call, count: n } satisfies HarvestedValue);
    added++;
  };
  const structured = (value: unknown) => {
    walk(value, [], add);
    if (under) tree(value, under.replace(/[\\/]+$/, ''), add);
  };
  if (result.structuredContent !== undefined) structured(result.structuredContent);
  for (const part of Array.isArray(result.content) ? result.content : []) {
    const text =
      (part as { type?: string; text?: unknown }).type === 'text' ? (part as { text?: unknown }).text : undefined;
    if (typeof text !== 'string') continue;
    const json = parseJson(text);
    if (json !== undefined && typeof json === 'object' && json !== null) structured(json);
    else harvestText(text, add, under);
  }
  return added;
}

function walk(value: unknown, path: string[], add: (key: string, v: string | number) => void, depth = 0): void {
  if (depth > 8) return;
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    if (path.length) add(path.join('.'), value);
    return;
  }
  if (Array.isArray(value)) {
    const last = path.length ? `${path[path.length - 1]}[]` : '[]';
    for (const item of value.slice(0, MAX_VALUES_PER_KEY)) walk(item, [...path.slice(0, -1), last], add, depth + 1);
    return;
  }
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) walk(v, [...path, k], add, depth + 1);
}

/**
 * Tree listings (`[{name, children: [...]}]`) name nodes relative to the path the call was made for: every
 * node's full path becomes a `text:path` value.
 */
function tree(value: unknown, parent: string, add: (key: string, v: string) => void, depth = 0): void {
  if (depth > 8) return;
  const nodes = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? Object.values(value).filter(Array.isArray).flat()
      : [];
  for (const node of nodes.slice(0, MAX_VALUES_PER_KEY)) {
    const name = (node as { name?: unknown } | null)?.name;
    // A listing node says what it is (type) or holds children; a record that merely has a name is not a path.
    const listing = node && typeof node === 'object' && ('type' in node || 'children' in node);
    if (!listing || typeof name !== 'string' || !name || /[\\/]/.test(name)) continue;
    const path = `${parent}/${name}`;
    add('text:path', path);
    const children = (node as { children?: unknown }).children;
    if (Array.isArray(children)) tree(children, path, add, depth + 1);
  }
}

const PATH = /(?:^|[\s"'`(=:])((?:[A-Za-z]:)?\/[^\s"'`),;]+)/g;
const URL_RE = /\bhttps?:\/\/[^\s"'`<>)]+/g;
const EMAIL = /\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g;

/**
 * Values a refusal names: servers often say what they accept when they refuse ("outside the allowed repository
 * '/srv/repo'"). Paths, URLs and emails in an error's text are harvested, except those the call itself sent.
 */
export function harvestRefusal(
  pools: HarvestedPools,
  text: string,
  tool: string,
  call: number,
  sent: ReadonlySet<unknown>,
): number {
  let added = 0;
  const add = (key: string, value: string) => {
    if (sent.has(value) || value.length > MAX_STRING) return;
    const list = (pools[key] ??= []);
    if (list.some((v) => v.value === value) || list.length >= MAX_VALUES_PER_KEY) return;
    list.push({ value, tool, call, count: 1 });
    added++;
  };
  for (const m of text.matchAll(URL_RE)) add('text:url', m[0]);
  for (const m of text.replace(URL_RE, ' ').matchAll(PATH)) add('text:path', m[1]!.replace(/[.:]$/, ''));
  for (const m of text.matchAll(EMAIL)) add('text:email', m[0]);
  return added;
}

/**
 * `under`: the path or URL the call was made for. A listing's lines name children relative to it
 * ("[FILE] notes.md" under /data is /data/notes.md), so they become `text:path` values too.
 */
function harvestText(text: string, add: (key: string, v: string) => void, under?: string): void {
  for (const m of text.matchAll(URL_RE)) add('text:url', m[0]);
  const withoutUrls = text.replace(URL_RE, ' ');
  for (const m of withoutUrls.matchAll(PATH)) add('text:path', m[1]!.replace(/[.:]$/, ''));
  for (const m of text.matchAll(EMAIL)) add('text:email', m[0]);
  for (const raw of text.split('\n')) {
    // "[FILE] notes.txt", "- item", "1. item": listings name one thing per line.
    const tagged = /^\s*\[[A-Z]+\]\s*/.test(raw);
    const line = raw.replace(/^\s*(\[[A-Z]+\]|[-*•]|\d+[.)])\s*/, '').trim();
    if (line && line.length <= 80 && line.split(/\s+/).length <= 6 && !/[:.?!]$/.test(line)) {
      add('text:line', line);
      // Only lines marked as listing entries ("[FILE] x", "[DIR] y") are children of the path; a file's own
      // lines are not.
      if (under && tagged && !/[\s/\\]/.test(line)) add('text:path', `${under.replace(/[\\/]+$/, '')}/${line}`);
    }
  }
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** A domain pack's pools as harvested values (`account.Id`, `customer.PARTY_NAME`), for the generic operators. */
export function packPoolsAsHarvested(pools: EntityPools): HarvestedPools {
  const out: HarvestedPools = {};
  for (const [pool, rows] of Object.entries(pools)) {
    const values = new Map<string, Map<string | number, HarvestedValue>>();
    for (const row of rows) {
      for (const [field, value] of Object.entries(row)) {
        if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) continue;
        const byValue = values.get(field) ?? new Map<string | number, HarvestedValue>();
        values.set(field, byValue);
        const seen = byValue.get(value);
        if (seen) seen.count++;
        else byValue.set(value, { value, tool: `pack:${pool}`, call: 0, count: 1 });
      }
    }
    for (const [field, byValue] of values) out[`${pool}.${field}`] = [...byValue.values()];
  }
  return out;
}
