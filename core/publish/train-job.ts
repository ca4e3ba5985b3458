import type { ArtifactStore, Manifest } from '../artifacts/index.js';
import { adapterVersion } from '../train/adapter-version.js';
import { jobIdentity } from '../train/job.js';
import type { LineageIndex } from './lineage-index.js';

/** The train job an adapter was trained with, and the stored run config it came from. */
export interface TrainJob {
  config: Manifest;
  /** The normalised job (defaults filled), without run-owned paths: exactly what the adapter version hashes. */
  identity: Record<string, unknown>;
}

interface StoredConfig {
  train?: { job?: Record<string, unknown> };
  dataset?: { render?: { format?: 'router-json' | 'hermes' } };
}

/**
 * The adapter artifact does not carry the full job (the trainer writes only baseModel, method, format and
 * steps into flywheel.json), but its version is a hash of (rendered train, rendered val, normalised job,
 * train stage version). So the run config whose job reproduces the version is the one it was trained with:
 * a match is proof, not a guess. Undefined when no stored config matches (an adapter trained by hand).
 */
export async function findTrainJob(
  store: ArtifactStore,
  index: LineageIndex,
  adapter: Manifest,
  trainSha: string,
  valSha: string,
  trainStageVersion: string,
): Promise<TrainJob | undefined> {
  const version = adapter.stats.adapterVersion;
  if (typeof version !== 'string') return undefined;
  for (const config of index.manifests.filter((m) => m.kind === 'config')) {
    const cfg = await store.readJson<StoredConfig>(config.sha256);
    if (!cfg.train?.job) continue;
    let identity: Record<string, unknown>;
    try {
      identity = jobIdentity(cfg.train.job, cfg.dataset?.render?.format ?? 'router-json');
    } catch {
      continue; // a config from an older job schema: cannot be this adapter's
    }
    if (adapterVersion(trainSha, valSha, { ...identity, stageVersion: trainStageVersion }) === version)
      return { config, identity };
  }
  return undefined;
}
