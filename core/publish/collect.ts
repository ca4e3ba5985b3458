import type { ArtifactStore, Manifest } from '../artifacts/index.js';
import { ArtifactError } from '../artifacts/index.js';
import { catalogVersion } from '../catalog/history.js';
import { adapterParts, findAdapter } from './adapter.js';
import { datasetCard, datasetPaths } from './dataset-card.js';
import { datasetName, datasetOfAdapter, datasetOfSplit, type DatasetParts } from './dataset.js';
import { findEvaluation } from './evaluation.js';
import { LineageIndex } from './lineage-index.js';
import { MANIFEST_PATH, manifestFile } from './manifest.js';
import { EXAMPLES_PATH, modelCard } from './model-card.js';
import { PACKAGED_BASES } from '../train/packaged-bases.js';
import { publishFile, PublishInputError, type Publication, type PublishFile } from './types.js';

/** A card's license unless one is given: the flywheel cannot know the data's terms. */
export const DEFAULT_LICENSE = 'other';

/**
 * The card's licence: the one given, else the base's where its terms bind derivatives (Gemma's: the adapter
 * carries them, adapter/GEMMA_TERMS.html), else DEFAULT_LICENSE.
 */
export function cardLicense(baseModel: string, given?: string): string {
  if (given) return given;
  const base = PACKAGED_BASES[baseModel]?.license;
  return base && LICENSES_BINDING_DERIVATIVES.has(base) ? base : DEFAULT_LICENSE;
}

/** Base licences whose terms go with every derivative (an adapter is one); Apache 2.0's do not. */
const LICENSES_BINDING_DERIVATIVES = new Set(['gemma']);

export interface CollectOptions {
  /** The card's `license` (default: cardLicense's). */
  license?: string;
  /** Hub dataset repo (ORG/NAME) the training data is published to; named in the model card. */
  datasetRepo?: string;
  /** The train stage's version (workflows/contract/table.ts, `stageVersion('train')`), to match an adapter to its run config. */
  trainStageVersion: string;
  /** A deploy registry (SQLite file): an adapter's evaluation is the one a deployed version of it was gated on. */
  registry?: string;
  /** Publish adapter/examples.jsonl (its training requests, serve's retrieval prior); left out by default. */
  withExamples?: boolean;
}

const CARD_PATH = 'README.md';

async function catalogVersionOf(store: ArtifactStore, catalog: Manifest | undefined): Promise<string | undefined> {
  return catalog ? catalogVersion(await store.resolve(catalog.sha256)) : undefined;
}

/** An artifact's manifest by sha or prefix; an unknown one is bad input, named. */
async function manifestOf(store: ArtifactStore, index: LineageIndex, id: string): Promise<Manifest> {
  try {
    const m = index.manifest((await store.resolve(id)).sha256);
    if (m) return m;
  } catch (err) {
    if (!(err instanceof ArtifactError)) throw err;
    throw new PublishInputError(err.message);
  }
  throw new PublishInputError(`no artifact ${id} in ${store.rootUri}`);
}

function datasetArtifacts(parts: DatasetParts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of parts.splits) {
    if (s.rendered) out[s.rendered.kind] = s.rendered.sha256;
    if (s.rows) out[s.rows.kind] = s.rows.sha256;
  }
  if (parts.catalog) out.catalog = parts.catalog.sha256;
  return out;
}

function finish(p: Omit<Publication, 'files'>, files: PublishFile[], artifacts: Record<string, string>): Publication {
  const body = [publishFile(CARD_PATH, p.card), ...files];
  return {
    ...p,
    files: [...body, manifestFile({ kind: p.kind, name: p.name, datasetHash: p.datasetHash, artifacts }, body)],
  };
}

/**
 * A dataset publication: README.md (dataset card), data/{split}.jsonl (rendered rows), rows/{split}.jsonl
 * (router rows), manifest.json. The id is an adapter (version or sha: its training data and test set) or one
 * split artifact (its train/val/test siblings come along).
 */
export async function collectDataset(store: ArtifactStore, id: string, opts: CollectOptions): Promise<Publication> {
  const index = await LineageIndex.of(store);
  let parts: DatasetParts;
  const anchor = id.startsWith('adp-') ? undefined : await manifestOf(store, index, id);
  if (!anchor || anchor.kind === 'adapter') {
    const adapter = anchor ?? (await findAdapter(store, index, id));
    const notes: string[] = [];
    parts = datasetOfAdapter(
      index,
      adapter,
      (await findEvaluation(store, index, adapter, opts.registry, notes))?.results,
    );
    parts.notes.unshift(...notes);
  } else parts = await datasetOfSplit(store, index, anchor);
  if (parts.splits.length === 0) throw new PublishInputError(`no rendered or split rows found for ${id}`);
  const files: PublishFile[] = [];
  for (const s of parts.splits) {
    const paths = datasetPaths(s.split);
    if (s.rendered) files.push(publishFile(paths.rendered, await store.read(s.rendered.sha256)));
    if (s.rows) files.push(publishFile(paths.rows, await store.read(s.rows.sha256)));
  }
  const name = datasetName(parts.hash);
  const card = datasetCard({
    parts,
    catalogVersion: await catalogVersionOf(store, parts.catalog),
    license: opts.license ?? DEFAULT_LICENSE,
  });
  const artifacts = datasetArtifacts(parts);
  return finish(
    {
      kind: 'dataset',
      name,
      title: `mcp-flywheel: dataset ${name}`,
      description: `dataset hash ${parts.hash}\n${Object.entries(artifacts)
        .map(([k, v]) => `${k} ${v}`)
        .join('\n')}`,
      card,
      datasetHash: parts.hash,
      notes: parts.notes,
    },
    files,
    artifacts,
  );
}

/**
 * An adapter publication: README.md (model card), the adapter artifact's files as stored (adapter/, base/ for
 * a tiny base, metrics.jsonl), its evaluation under eval/, manifest.json.
 */
export async function collectAdapter(store: ArtifactStore, id: string, opts: CollectOptions): Promise<Publication> {
  const index = await LineageIndex.of(store);
  const parts = await adapterParts(
    store,
    index,
    await findAdapter(store, index, id),
    opts.trainStageVersion,
    opts.registry,
  );
  const files: PublishFile[] = [];
  for (const f of parts.files) {
    if (f.path === CARD_PATH || f.path === MANIFEST_PATH) continue; // ours take these names
    if (f.path === EXAMPLES_PATH && !opts.withExamples) continue;
    files.push(publishFile(f.path, await store.readTreeFile(f)));
  }
  const ev = parts.evaluation;
  if (ev?.report)
    for (const f of await store.readTree(ev.report.sha256))
      files.push(publishFile(`eval/${f.path}`, await store.readTreeFile(f)));
  else if (ev) files.push(publishFile('eval/results.json', await store.read(ev.results.sha256)));
  const catalog = await catalogVersionOf(store, parts.dataset.catalog);
  const card = modelCard({
    parts,
    examples: parts.files.some((f) => f.path === EXAMPLES_PATH)
      ? opts.withExamples
        ? 'published'
        : 'withheld'
      : 'none',
    license: cardLicense(String(parts.meta?.baseModel ?? parts.adapter.stats.baseModel ?? ''), opts.license),
    ...(catalog ? { catalogVersion: catalog } : {}),
    ...(opts.datasetRepo ? { datasetRepo: opts.datasetRepo } : {}),
  });
  const artifacts: Record<string, string> = { adapter: parts.adapter.sha256, ...datasetArtifacts(parts.dataset) };
  if (ev) artifacts['eval-results'] = ev.results.sha256;
  if (ev?.report) artifacts['eval-report'] = ev.report.sha256;
  if (parts.job) artifacts.config = parts.job.config.sha256;
  const base = String(parts.meta?.baseModel ?? parts.adapter.stats.baseModel ?? 'unknown');
  return finish(
    {
      kind: 'adapter',
      name: parts.version,
      title: `mcp-flywheel: adapter ${parts.version} (${base}, dataset ${datasetName(parts.dataset.hash)})`,
      description: `adapter ${parts.adapter.sha256}\ndataset hash ${parts.dataset.hash}\n${ev ? `evaluation ${(ev.report ?? ev.results).sha256}${ev.deployed ? ` (gated as ${ev.deployed.version})` : ''}` : 'not evaluated'}`,
      card,
      datasetHash: parts.dataset.hash,
      notes: [...new Set(parts.notes)],
    },
    files,
    artifacts,
  );
}
