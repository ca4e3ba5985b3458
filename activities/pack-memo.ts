import type { ArtifactStore } from '../core/artifacts/store.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import type { Catalog } from '../core/catalog/types.js';
import { packVersions, type DomainPack } from '../core/dataset/packs.js';
import type { MemoExtras } from './stage.js';

/**
 * What the stages that read domain packs (intents, corrupt) add to their memo key: the versions of the packs for the
 * catalog's servers (none for the shipped packs, so their keys are unchanged).
 */
export function packMemo(packs: readonly DomainPack[], catalogRef: ArtifactRef) {
  return async (store: ArtifactStore): Promise<MemoExtras> => {
    const catalog = await store.readJson<Catalog>(catalogRef);
    const versions = packVersions(
      packs,
      catalog.servers.map((s) => s.serverInfo?.name),
    );
    return Object.keys(versions).length ? { key: { packs: versions } } : {};
  };
}
