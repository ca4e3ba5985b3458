import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { FlywheelConfig, ServerConfig } from '../../core/config/schema.js';
import type { StoreSpec } from '../../activities/store.js';

/** ingest: each server listed (`listServerTools`, in parallel), then one catalog from the listings. */
export interface ListServerToolsArgs {
  store: StoreSpec;
  server: ServerConfig;
  maxPages: number;
}

export interface BuildCatalogArgs {
  store: StoreSpec;
  project: string;
  catalog: FlywheelConfig['catalog'];
  snapshots: ArtifactRef[];
  runId: string;
}
