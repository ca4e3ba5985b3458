import type { HarvestedPools, HarvestedValue } from './types.js';

/** "entityNames" / "entity_names" / "Entity-Names" -> ["entity", "name"] (lower case, crude singular). */
export function nameTokens(name: string): string[] {
  return name
    .replace(/\[\]$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map(singular);
}

function singular(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 4 && /(ses|xes|ches|shes)$/.test(t)) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !/(ss|us|is)$/.test(t)) return t.slice(0, -1);
  return t;
}

interface KeyInfo {
  key: string;
  /** Tokens of the last segment (`name` in `entities[].name`). */
  leaf: string[];
  /** Tokens of the segments above it. */
  parents: Set<string>;
}

const infoCache = new WeakMap<HarvestedPools, KeyInfo[]>();

function keyInfo(pools: HarvestedPools): KeyInfo[] {
  let info = infoCache.get(pools);
  // The probe keeps adding keys to the pools it matches against: a cache of fewer keys is stale.
  if (!info || info.length !== Object.keys(pools).length) {
    info = Object.keys(pools).map((key) => {
      const segments = key.replace(/^text:/, '').split('.');
      return {
        key,
        leaf: nameTokens(segments[segments.length - 1]!),
        parents: new Set(segments.slice(0, -1).flatMap(nameTokens)),
      };
    });
    infoCache.set(pools, info);
  }
  return info;
}

/**
 * Harvested values that fit an argument, by name: `path` takes `text:path`, `entityNames` takes
 * `entities[].name`, `accountId` takes `account.Id`. Only the best-scoring keys are used, so a field never
 * mixes ids with names. `path` is the argument's path from the root (array items as '[]').
 */
export function valuesForField(
  pools: HarvestedPools,
  field: { name: string; path: readonly string[] },
  toolName = '',
): HarvestedValue[] {
  const own = nameTokens(field.name);
  if (!own.length) return [];
  // The enclosing arguments and the tool's own name say which object an `id` or `name` belongs to (get_issue's id).
  const context = new Set([...field.path.slice(0, -1).flatMap(nameTokens), ...nameTokens(toolName)]);
  let best = 0;
  let keys: string[] = [];
  for (const k of keyInfo(pools)) {
    const s = score(own, context, k);
    if (s > best) {
      best = s;
      keys = [k.key];
    } else if (s === best && s > 0) keys.push(k.key);
  }
  return keys.flatMap((k) => pools[k]!);
}

function score(own: string[], context: Set<string>, k: KeyInfo): number {
  if (!k.leaf.length) return 0;
  const leaf = k.leaf.join(' ');
  const mine = own.join(' ');
  const parentBonus = [...context].some((t) => k.parents.has(t)) ? 0.5 : 0;
  if (leaf === mine) return 4 + parentBonus; // several objects' `id`s tie unless context picks one
  // "entityNames" ~ entities[].name: the leaf plus a parent spell the field.
  const spelled = own.every((t) => k.leaf.includes(t) || k.parents.has(t)) && k.leaf.every((t) => own.includes(t));
  if (spelled) return 3 + parentBonus;
  // "sourcePath" ~ text:path, "accountId" ~ Id: the field ends in the key's leaf.
  const tail = own.slice(-k.leaf.length).join(' ');
  if (tail === leaf && leaf !== 'id' && leaf !== 'name') return 2 + parentBonus;
  // "accountId" ~ account.Id, but never issues[].id: a bare id or name must match its object.
  if (tail === leaf && own.slice(0, -1).some((t) => k.parents.has(t))) return 2.5 + parentBonus;
  return 0;
}

/**
 * Whether a pool key names things (ids, names, paths) rather than describing them (types, statuses): its
 * values are mostly distinct. Only such values become entity keys for the split.
 */
export function identifyingKeys(pools: HarvestedPools): Set<string> {
  const out = new Set<string>();
  for (const [key, values] of Object.entries(pools)) {
    if (values.length < 1 || key === 'text:line') continue;
    if (values.some((v) => typeof v.value === 'number' && !/id$/i.test(key))) continue;
    const seen = values.reduce((n, v) => n + v.count, 0);
    if (values.length / seen >= 0.8) out.add(key);
  }
  return out;
}
