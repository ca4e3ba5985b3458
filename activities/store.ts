import { openStore, type ArtifactStore } from '../core/artifacts/index.js';
import type { FlywheelConfig } from '../core/config/schema.js';

export type StoreSpec = FlywheelConfig['artifacts'];

const stores = new Map<string, ArtifactStore>();

/** One store object per URI per worker process; credentials come from the worker's environment. */
export function storeFor(spec: StoreSpec): ArtifactStore {
  const key = JSON.stringify(spec);
  let store = stores.get(key);
  if (!store) {
    store = openStore(spec.store, spec.s3);
    stores.set(key, store);
  }
  return store;
}
