import type { RenderedRow } from '../dataset/render.js';
import type { RouterRow } from '../dataset/types.js';
import { Rng } from '../rng.js';
import { targetFromCompletion } from '../router/answer.js';
import type { EvalCase } from './types.js';
import { InputError } from '../errors.js';
import type { Catalog } from '../catalog/types.js';
import { toolScopes } from '../scope-guard.js';

/** Raised for a test set that cannot be scored; names the row. Retrying cannot help. */
export class EvalInputError extends InputError {
  override name = 'EvalInputError';
}

/**
 * Eval cases from rendered test rows (the prompts exactly as training saw them) joined by id with the router
 * rows they were rendered from (for the domain, and the caller's scopes). Rows may also carry `domain`
 * themselves (standalone files). With the catalog too, each case carries the scope check the gateway applies.
 */
export function casesFrom(
  rendered: Array<RenderedRow & { domain?: string }>,
  routerRows: RouterRow[] = [],
  source = 'test set',
  catalog?: Catalog,
): EvalCase[] {
  const rowsById = new Map(routerRows.map((r) => [r.id, r]));
  const scopesByDomain = new Map<string, Record<string, string[]>>();
  const scopesOf = (domain: string) =>
    scopesByDomain.get(domain) ?? scopesByDomain.set(domain, toolScopes(catalog!.tools, domain)).get(domain)!;
  return rendered.map((row, i) => {
    const where = `${source} row ${i + 1}${row?.id ? ` (${row.id})` : ''}`;
    if (
      !row ||
      typeof row.id !== 'string' ||
      !Array.isArray(row.prompt) ||
      !Array.isArray(row.completion) ||
      !Array.isArray(row.tools)
    ) {
      throw new EvalInputError(`${where}: expected a rendered row {id, prompt[], completion[], tools[]}`);
    }
    const text = row.completion[0]?.content;
    if (typeof text !== 'string') throw new EvalInputError(`${where}: completion[0].content must be the target text`);
    let target;
    try {
      target = targetFromCompletion(text);
    } catch (err) {
      throw new EvalInputError(`${where}: completion: ${(err as Error).message}`);
    }
    const from = rowsById.get(row.id);
    const scopes =
      catalog && from
        ? { caller: from.persona.scopes, tools: offeredScopes(scopesOf(from.domain), row.tools) }
        : undefined;
    return {
      id: row.id,
      domain: row.domain ?? from?.domain ?? null,
      messages: row.prompt,
      tools: row.tools,
      target,
      ...(scopes ? { scopes } : {}),
    };
  });
}

/** The required scopes of the offered tools only: a call to any other tool is scored as not offered. */
function offeredScopes(all: Record<string, string[]>, tools: RenderedRow['tools']): Record<string, string[]> {
  return Object.fromEntries(tools.map((t) => [t.function.name, all[t.function.name] ?? []]));
}

const byId = (a: EvalCase, b: EvalCase) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The first `limit` cases by id: a stable, smoke-sized slice of a frozen test set. */
export function firstCases(cases: EvalCase[], limit: number | undefined): EvalCase[] {
  if (limit === undefined || limit >= cases.length) return cases;
  return [...cases].sort(byId).slice(0, limit);
}

/** A case's stratum: its domain and what it expects (the tool, or the verdict of a no-call). */
function stratum(c: EvalCase): string {
  return `${c.domain ?? ''}/${c.target.tool ?? `no-call:${c.target.verdict}`}`;
}

/**
 * A seeded, stratified sample of `limit` cases: each stratum (domain × expected tool or verdict) gets its
 * proportional share by largest remainder, so the sample keeps the test set's mix of calls and no-calls; when
 * `limit` covers at least one case per stratum, every stratum is kept (one each first, then the rest shared).
 * Same cases and seed, same sample, in id order.
 */
export function sampleCases(cases: EvalCase[], limit: number | undefined, seed: number | string): EvalCase[] {
  if (limit === undefined || limit >= cases.length) return cases;
  const groups = new Map<string, EvalCase[]>();
  for (const c of [...cases].sort(byId)) {
    const key = stratum(c);
    const group = groups.get(key) ?? [];
    group.push(c);
    groups.set(key, group);
  }
  const rng = new Rng(`eval-sample:${seed}`);
  const keys = [...groups.keys()].sort();
  for (const k of keys) rng.shuffle(groups.get(k)!);
  const everyStratum = limit >= keys.length;
  const take = new Map(keys.map((k) => [k, everyStratum ? 1 : 0]));
  const pool = limit - (everyStratum ? keys.length : 0);
  const rest = cases.length - (everyStratum ? keys.length : 0);
  // Largest remainder over what is left, ties in a seeded order.
  const order = new Map(rng.shuffle([...keys]).map((k, i) => [k, i]));
  const quota = keys.map((k) => ({ k, q: ((groups.get(k)!.length - take.get(k)!) / rest) * pool }));
  let left = pool;
  for (const { k, q } of quota) {
    const n = Math.min(Math.floor(q), left);
    take.set(k, take.get(k)! + n);
    left -= n;
  }
  for (const { k } of [...quota].sort((a, b) => (b.q % 1) - (a.q % 1) || order.get(a.k)! - order.get(b.k)!)) {
    if (left === 0) break;
    if (take.get(k)! < groups.get(k)!.length) {
      take.set(k, take.get(k)! + 1);
      left--;
    }
  }
  return keys.flatMap((k) => groups.get(k)!.slice(0, take.get(k)!)).sort(byId);
}

/** The case's request: its last user turn's text. */
export const lastRequest = (c: EvalCase): string =>
  [...c.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
const expectedLabel = (c: EvalCase) => c.target.tool ?? `no-call:${c.target.code}`;

/**
 * A few cases to show someone, in test-set order: each a request not shown yet, and an expected answer (tool or
 * no-call code) not shown yet while there are others to show. A test set repeats a request under several labels
 * (a near-miss negative keeps its positive's words), and its first rows can be one request three times.
 */
export function showcaseCases(cases: EvalCase[], count: number): EvalCase[] {
  const picked: EvalCase[] = [];
  const requests = new Set<string>();
  const labels = new Set<string>();
  for (const newLabelsOnly of [true, false]) {
    for (const c of cases) {
      if (picked.length >= count) return picked;
      if (requests.has(lastRequest(c)) || (newLabelsOnly && labels.has(expectedLabel(c)))) continue;
      picked.push(c);
      requests.add(lastRequest(c));
      labels.add(expectedLabel(c));
    }
  }
  return picked;
}
