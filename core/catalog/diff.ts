import { canonicalJson } from '../hash.js';
import type { Catalog, CatalogDiff, CatalogTool } from './types.js';

const COMPARED: Array<keyof CatalogTool> = [
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  '_meta',
  'scopes',
];

/** Tools added, removed and changed (with the fields that changed) between two catalog versions. */
export function diffCatalogs(
  prev: Catalog | null,
  next: Catalog,
  fromVersion: string | null,
  toVersion: string,
): CatalogDiff {
  const before = new Map((prev?.tools ?? []).map((t) => [t.id, t]));
  const after = new Map(next.tools.map((t) => [t.id, t]));
  const added = [...after.keys()].filter((id) => !before.has(id)).sort();
  const removed = [...before.keys()].filter((id) => !after.has(id)).sort();
  const changed: CatalogDiff['changed'] = [];
  for (const [id, tool] of after) {
    const old = before.get(id);
    if (!old) continue;
    const fields = COMPARED.filter((f) => canonicalJson(old[f] ?? null) !== canonicalJson(tool[f] ?? null));
    if (fields.length > 0) changed.push({ id, fields });
  }
  changed.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { from: fromVersion, to: toVersion, added, removed, changed };
}
