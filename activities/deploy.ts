import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ArtifactStore } from '../core/artifacts/store.js';
import type { DeployConfig } from '../core/config/schema.js';
import { Backend } from '../core/deploy/backend.js';
import { ensureLoaded, rollbackAlias, SmokeTestFailed } from '../core/deploy/deploy.js';
import { withRegistry } from '../core/deploy/registry.js';
import type { SmokeProbe } from '../core/deploy/smoke.js';
import type { DeployedVersion } from '../core/deploy/types.js';
import type { ServedVersion } from '../stages/evaluate/spec.js';
import { failFast } from './errors.js';
import { whileBeating } from './heartbeat.js';
import { storeFor, type StoreSpec } from './store.js';
import {
  DEFAULT_ADAPTER_DIR,
  DEFAULT_REGISTRY,
  DEFAULT_SERVE_ADMIN_TOKEN_ENV,
  DEFAULT_STORE_URI,
} from '../core/defaults.js';

/**
 * The version an alias serves now (null before its first deploy), made sure to be loaded on its backend so
 * the evaluation can score it: a restarted backend has forgotten its runtime-loaded adapters.
 */
export async function currentVersion(a: { store: StoreSpec; deploy: DeployConfig }): Promise<ServedVersion | null> {
  return failFast(() =>
    whileBeating(() =>
      withRegistry(a.deploy.registry, async (r) => {
        const v = await r.current(a.deploy.alias);
        if (!v) return null;
        const apiKey = a.deploy.apiKeyEnv ? process.env[a.deploy.apiKeyEnv] : undefined;
        const route = await ensureLoaded(
          new Backend(v.target, v.endpoint, apiKey, a.deploy.timeoutMs, adminToken(a.deploy.adminTokenEnv)),
          v,
          adapterPathIn(a.deploy.adapterDir, storeFor(a.store)),
        );
        return { name: v.name, endpoint: v.endpoint, servedModel: route.servedModel, adapterId: route.adapterId };
      }),
    ),
  );
}

/** Where a version's adapter sits for its backend: materialised from the store on first use. */
export function adapterPathIn(
  adapterDir: string,
  store: ArtifactStore,
): (v: Pick<DeployedVersion, 'name' | 'adapter'>) => Promise<string> {
  return async (v) => {
    const dir = resolve(adapterDir, v.name);
    if (!existsSync(dir)) await store.materializeDir(v.adapter, dir);
    return join(dir, 'adapter');
  };
}

export interface RollbackArgs {
  /** Absent (a rollback started from the UI with just alias, by and reason): core/defaults.ts's. */
  registry?: string;
  adapterDir?: string;
  store?: StoreSpec;
  alias: string;
  to?: string;
  actor: string;
  reason: string;
  requestId: string;
  timeoutMs: number;
  apiKeyEnv?: string;
  adminTokenEnv?: string;
}

/**
 * The serving backend's admin token, from this worker's environment only: never from workflow input or config
 * values, so no history or artifact ever holds it.
 */
export function adminToken(envName = DEFAULT_SERVE_ADMIN_TOKEN_ENV): string | undefined {
  return process.env[envName] || undefined;
}

/** Repoint an alias to an earlier version after reloading (if needed) and smoke-testing it. */
export async function rollbackStage(
  a: RollbackArgs,
): Promise<{ version: string; previous: string | null; smoke: string }> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store ?? { store: DEFAULT_STORE_URI, s3: {} });
      const apiKey = a.apiKeyEnv ? process.env[a.apiKeyEnv] : undefined;
      const result = await withRegistry(a.registry ?? DEFAULT_REGISTRY, (registry) =>
        rollbackAlias(
          registry,
          (v) => new Backend(v.target, v.endpoint, apiKey, a.timeoutMs, adminToken(a.adminTokenEnv)),
          {
            alias: a.alias,
            ...(a.to ? { to: a.to } : {}),
            actor: a.actor,
            reason: a.reason,
            requestId: a.requestId,
            adapterPathOf: adapterPathIn(a.adapterDir ?? DEFAULT_ADAPTER_DIR, store),
            probesOf: async (v: DeployedVersion) => {
              if (!v.probes) throw new SmokeTestFailed(`version ${v.name} has no recorded smoke probes`);
              return store.readJson<SmokeProbe[]>(v.probes);
            },
          },
          { timeoutMs: a.timeoutMs, ...(apiKey ? { apiKey } : {}) },
        ),
      );
      return { version: result.version.name, previous: result.event.previous, smoke: result.smoke.summary };
    }),
  );
}
