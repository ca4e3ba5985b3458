import type { ArtifactRef, ArtifactStore } from '../artifacts/index.js';
import { shortSha } from '../hash.js';

export interface CatalogVersionEntry {
  version: string;
  sha256: string;
  at: string;
}

/** A catalog's version is the short hash of its content: same tools, same version. */
export function catalogVersion(ref: ArtifactRef): string {
  return `cat-${shortSha(ref.sha256)}`;
}

/**
 * Record a catalog in its project's history of distinct versions and return the version to diff against:
 * the previous head for a new version, or the one before it when the catalog is unchanged (so re-running
 * an unchanged catalog reports the same diff instead of an empty one).
 */
export async function recordCatalogVersion(
  store: ArtifactStore,
  project: string,
  ref: ArtifactRef,
  now = new Date(),
): Promise<CatalogVersionEntry | null> {
  const key = `catalog/${project}/history`;
  const history = (await store.getPointer<CatalogVersionEntry[]>(key)) ?? [];
  const head = history.at(-1);
  if (head?.sha256 === ref.sha256) return history.at(-2) ?? null;
  await store.putPointer(key, [
    ...history,
    { version: catalogVersion(ref), sha256: ref.sha256, at: now.toISOString() },
  ]);
  return head ?? null;
}

export async function catalogHistory(store: ArtifactStore, project: string): Promise<CatalogVersionEntry[]> {
  return (await store.getPointer<CatalogVersionEntry[]>(`catalog/${project}/history`)) ?? [];
}
