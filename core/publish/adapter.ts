import type { ArtifactStore, Manifest, TreeEntry } from '../artifacts/index.js';
import { ArtifactError } from '../artifacts/index.js';
import { shortSha } from '../hash.js';
import type { TrainerEvent } from '../train/trainer-process.js';
import { readTreeJson } from './blobs.js';
import { datasetOfAdapter, type DatasetParts } from './dataset.js';
import { findEvaluation, type Evaluation } from './evaluation.js';
import type { LineageIndex } from './lineage-index.js';
import { findTrainJob, type TrainJob } from './train-job.js';
import { PublishInputError } from './types.js';

/** Everything the model card and the upload need about one adapter artifact. */
export interface AdapterParts {
  adapter: Manifest;
  version: string;
  files: TreeEntry[];
  /** PEFT's adapter/adapter_config.json (absent for method=full). */
  peft?: Record<string, unknown>;
  /** The trainer's adapter/flywheel.json: baseModel, method, format, steps, bestEvalLoss. */
  meta?: Record<string, unknown>;
  /** base/flywheel-tiny.json when the base is a tiny:<preset> model built from a config. */
  tinyBase?: Record<string, unknown>;
  /** metrics.jsonl: the trainer's progress events. */
  events: TrainerEvent[];
  job?: TrainJob;
  evaluation?: Evaluation;
  dataset: DatasetParts;
  notes: string[];
}

/** An adapter by version (adp-…, the newest artifact of that version) or by artifact sha (prefix). */
export async function findAdapter(store: ArtifactStore, index: LineageIndex, id: string): Promise<Manifest> {
  if (id.startsWith('adp-')) {
    const found = index.graph.adaptersOf(id)[0];
    if (!found) throw new PublishInputError(`no adapter artifact with version ${id} in ${store.rootUri}`);
    return found;
  }
  let sha: string;
  try {
    sha = (await store.resolve(id)).sha256;
  } catch (err) {
    if (err instanceof ArtifactError)
      throw new PublishInputError(`${err.message} (expected an adapter version adp-… or an adapter artifact sha)`);
    throw err;
  }
  const m = index.manifest(sha);
  if (m?.kind !== 'adapter')
    throw new PublishInputError(`artifact ${shortSha(sha)} is a ${m?.kind ?? 'unknown artifact'}, not an adapter`);
  return m;
}

/** registry: the deploy registry (SQLite) whose gated eval report is preferred to the newest evaluation. */
export async function adapterParts(
  store: ArtifactStore,
  index: LineageIndex,
  adapter: Manifest,
  trainStageVersion: string,
  registry?: string,
): Promise<AdapterParts> {
  const files = await store.readTree(adapter.sha256);
  const notes: string[] = [];
  const evaluation = await findEvaluation(store, index, adapter, registry, notes);
  if (!evaluation) notes.push('no evaluation of this adapter in the store: the card says "not evaluated"');
  const dataset = datasetOfAdapter(index, adapter, evaluation?.results);
  notes.push(...dataset.notes);
  const train = dataset.splits.find((s) => s.split === 'train')?.rendered;
  const val = dataset.splits.find((s) => s.split === 'validation')?.rendered;
  const job =
    train && val ? await findTrainJob(store, index, adapter, train.sha256, val.sha256, trainStageVersion) : undefined;
  if (!job)
    notes.push(
      'no stored run config reproduces this adapter version: hyperparameters come from the adapter files only',
    );
  const metricsEntry = files.find((f) => f.path === 'metrics.jsonl');
  const events = metricsEntry
    ? (await store.readTreeFile(metricsEntry))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as TrainerEvent)
    : [];
  const peft = await readTreeJson<Record<string, unknown>>(store, files, 'adapter/adapter_config.json');
  const meta = await readTreeJson<Record<string, unknown>>(store, files, 'adapter/flywheel.json');
  const tinyBase = await readTreeJson<Record<string, unknown>>(store, files, 'base/flywheel-tiny.json');
  return {
    adapter,
    version: String(adapter.stats.adapterVersion ?? `adapter-${shortSha(adapter.sha256)}`),
    files,
    ...(peft ? { peft } : {}),
    ...(meta ? { meta } : {}),
    ...(tinyBase ? { tinyBase } : {}),
    events,
    ...(job ? { job } : {}),
    ...(evaluation ? { evaluation } : {}),
    dataset,
    notes,
  };
}
