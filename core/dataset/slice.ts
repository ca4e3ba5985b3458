import type { Rng } from '../rng.js';
import type { CatalogTool } from '../catalog/types.js';
import { bm25Retriever, type Retriever } from '../retrieve/tool-retriever.js';

const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'and',
  'or',
  'in',
  'on',
  'for',
  'by',
  'with',
  'its',
  'is',
  'as',
  'one',
  'it',
]);

function tokens(s: string): Set<string> {
  return new Set(
    s
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((t) => t.length > 1 && !STOP.has(t)),
  );
}

/** A tool's name+description tokens, computed once per tool object (slices are built for every row). */
const toolTokenCache = new WeakMap<CatalogTool, Set<string>>();
function toolTokens(t: CatalogTool): Set<string> {
  let set = toolTokenCache.get(t);
  if (!set) toolTokenCache.set(t, (set = tokens(`${t.name} ${t.description ?? ''}`)));
  return set;
}

/** Per catalog array and tool id: a ranking depends only on those, so it is computed once, not once per row. */
function memo(
  cache: WeakMap<CatalogTool[], Map<string, CatalogTool[]>>,
  catalog: CatalogTool[],
  tool: CatalogTool,
  rank: () => CatalogTool[],
): CatalogTool[] {
  let byTool = cache.get(catalog);
  if (!byTool) cache.set(catalog, (byTool = new Map()));
  let ranked = byTool.get(tool.id);
  if (!ranked) byTool.set(tool.id, (ranked = rank()));
  return ranked;
}
const siblingCache = new WeakMap<CatalogTool[], Map<string, CatalogTool[]>>();
const nearestCache = new WeakMap<CatalogTool[], Map<string, CatalogTool[]>>();

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter || 1);
}

/**
 * Siblings: tools of the same server sharing the verb (update_account ~ update_opportunity) or the object
 * (create_case ~ update_case), most similar first. These are the near-identical tools routers confuse.
 */
export function siblings(tool: CatalogTool, catalog: CatalogTool[]): CatalogTool[] {
  return memo(siblingCache, catalog, tool, () => rankSiblings(tool, catalog));
}

function rankSiblings(tool: CatalogTool, catalog: CatalogTool[]): CatalogTool[] {
  const [verb, ...rest] = tool.name.split('_');
  const object = rest.join('_');
  const own = toolTokens(tool);
  return catalog
    .filter((t) => t.server === tool.server && t.name !== tool.name)
    .filter((t) => {
      const [v, ...r] = t.name.split('_');
      return v === verb || (object !== '' && r.join('_') === object);
    })
    .map((t) => ({ t, s: jaccard(own, toolTokens(t)) }))
    .sort((a, b) => b.s - a.s || (a.t.name < b.t.name ? -1 : 1))
    .map((x) => x.t);
}

/** Every other tool by lexical similarity of name and description to `tool`, most similar first. */
export function nearest(tool: CatalogTool, catalog: CatalogTool[]): CatalogTool[] {
  return memo(nearestCache, catalog, tool, () => {
    const own = toolTokens(tool);
    return catalog
      .filter((t) => t.id !== tool.id)
      .map((t) => ({ t, s: jaccard(own, toolTokens(t)) }))
      .sort((a, b) => b.s - a.s || (a.t.id < b.t.id ? -1 : 1))
      .map((x) => x.t);
  });
}

/**
 * How many tools one row offers: `sliceSize`, or with `minSliceSize` below it a size drawn from
 * [minSliceSize, sliceSize], so a router also learns the one- and two-tool menus agents send. Draws nothing
 * where the range is one size, so datasets built without the key stay byte-identical.
 */
export function rowSliceSize(rng: Rng, sliceSize: number, minSliceSize?: number): number {
  return minSliceSize === undefined || minSliceSize >= sliceSize ? sliceSize : rng.int(minSliceSize, sliceSize);
}

/**
 * The tools offered with a request: the correct tool (unless `withoutCorrect`) plus distractors, siblings
 * first then the lexically nearest, up to `size`, in a seeded shuffle (rendering puts them in name order:
 * render.ts, inOfferOrder).
 */
export function offerSlice(
  correct: CatalogTool,
  catalog: CatalogTool[],
  size: number,
  rng: Rng,
  withoutCorrect = false,
): string[] {
  const chosen: string[] = withoutCorrect ? [] : [correct.name];
  for (const t of [...siblings(correct, catalog), ...nearest(correct, catalog)]) {
    if (chosen.length >= size) break;
    if (!chosen.includes(t.name)) chosen.push(t.name);
  }
  for (let i = chosen.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [chosen[i], chosen[j]] = [chosen[j]!, chosen[i]!];
  }
  return chosen;
}

/** A slice for a request no tool serves: tools of its domain, lexically nearest to the request text. */
export function sliceForText(text: string, domainTools: CatalogTool[], size: number, rng: Rng): string[] {
  const own = tokens(text);
  const ranked = domainTools
    .map((t) => ({ t, s: jaccard(own, toolTokens(t)) }))
    .sort((a, b) => b.s - a.s || (a.t.name < b.t.name ? -1 : 1))
    .slice(0, size)
    .map((x) => x.t.name);
  for (let i = ranked.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [ranked[i], ranked[j]] = [ranked[j]!, ranked[i]!];
  }
  return ranked;
}

/** How rows get their tools: `neighbours` (the correct tool plus siblings and near neighbours) or `retriever`
 * (the tools the gateway's BM25 retriever ranks highest for the request, as a live agent's request gets them). */
export type Slicing = 'neighbours' | 'retriever';

const retrievers = new WeakMap<CatalogTool[], Retriever>();

/** The request text a retriever reads: every user turn of the conversation, the deciding one last. */
export function retrievalQuery(request: string, context?: Array<{ role: string; content?: string | null }>): string {
  return [...(context ?? []).filter((m) => m.role === 'user').map((m) => m.content ?? ''), request].join('\n');
}

/**
 * The `size` tools the retriever ranks highest for `query` (without `exclude`, for a slice that must miss
 * the right tool), in a seeded shuffle (rendered in name order).
 */
export function retrievedSlice(
  query: string,
  tools: CatalogTool[],
  size: number,
  rng: Rng,
  exclude?: string,
): string[] {
  let retriever = retrievers.get(tools);
  if (!retriever) retrievers.set(tools, (retriever = bm25Retriever(tools)));
  const chosen = retriever
    .rank(query, size + 1)
    .filter((name) => name !== exclude)
    .slice(0, size);
  for (let i = chosen.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [chosen[i], chosen[j]] = [chosen[j]!, chosen[i]!];
  }
  return chosen;
}
