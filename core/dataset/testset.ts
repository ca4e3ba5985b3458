import type { ArtifactRef, ArtifactStore } from '../artifacts/index.js';

export interface PinnedTestSet {
  ref: ArtifactRef;
  pinnedAt: string;
  /** split: created by the first run for this catalog version; import: an audited set imported by a person. */
  source: 'split' | 'import';
}

function key(project: string, catalogVersion: string): string {
  return `testset/${project}/${catalogVersion}`;
}

/** The frozen test set of a project for a catalog version, if one is pinned. */
export async function frozenTestSet(
  store: ArtifactStore,
  project: string,
  catalogVersion: string,
): Promise<PinnedTestSet | undefined> {
  const pinned = await store.getPointer<PinnedTestSet>(key(project, catalogVersion));
  if (pinned) store.checkRef(pinned.ref);
  return pinned;
}

/**
 * Pin a test set: later runs on this catalog version evaluate against exactly these rows. With
 * onlyIfAbsent an existing pin is kept (a split never replaces a pinned or audited set).
 */
export async function pinTestSet(
  store: ArtifactStore,
  project: string,
  catalogVersion: string,
  ref: ArtifactRef,
  source: PinnedTestSet['source'],
  opts: { onlyIfAbsent?: boolean } = {},
): Promise<PinnedTestSet> {
  if (opts.onlyIfAbsent) {
    const existing = await frozenTestSet(store, project, catalogVersion);
    if (existing) return existing;
  }
  const pinned = { ref, pinnedAt: new Date().toISOString(), source };
  await store.putPointer(key(project, catalogVersion), pinned);
  return pinned;
}
