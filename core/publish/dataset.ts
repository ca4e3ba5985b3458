import type { ArtifactStore, Manifest, MemoEntry } from '../artifacts/index.js';
import { canonicalJson, sha256Hex, shortSha } from '../hash.js';
import type { LineageIndex } from './lineage-index.js';
import { PublishInputError } from './types.js';

/** Split names as the Hub's dataset viewer knows them; the flywheel calls the middle one "val". */
export const SPLITS = ['train', 'validation', 'test'] as const;
export type SplitName = (typeof SPLITS)[number];
const FLYWHEEL_KIND: Record<SplitName, string> = { train: 'train', validation: 'val', test: 'test' };
const RENDER_OUTPUT: Record<SplitName, string> = {
  train: 'renderedTrain',
  validation: 'renderedVal',
  test: 'renderedTest',
};
const SPLIT_OUTPUT: Record<SplitName, string> = { train: 'train', validation: 'val', test: 'test' };

/** One split: the rendered rows (what the trainer reads) and the router rows they were rendered from. */
export interface DatasetSplit {
  split: SplitName;
  rendered?: Manifest;
  rows?: Manifest;
}

export interface DatasetParts {
  splits: DatasetSplit[];
  /** The catalog the rows were rendered against (its tools are in every rendered row). */
  catalog?: Manifest;
  /** sha256 over the artifact hashes of every split (see datasetHash). */
  hash: string;
  notes: string[];
}

/**
 * The dataset hash: sha256 of the canonical JSON {rendered: {split: sha256}, rows: {split: sha256}} over the
 * splits present. Each artifact sha256 is the sha256 of the published JSONL file itself, so anyone can
 * recompute it from the files.
 */
export function datasetHash(splits: DatasetSplit[]): string {
  const pick = (layer: 'rendered' | 'rows') =>
    Object.fromEntries(splits.filter((s) => s[layer]).map((s) => [s.split, s[layer]!.sha256]));
  return sha256Hex(canonicalJson({ rendered: pick('rendered'), rows: pick('rows') }));
}

export function datasetName(hash: string): string {
  return `ds-${shortSha(hash)}`;
}

/** Which split and layer an artifact kind is: rendered-val → validation/rendered, train → train/rows. */
export function splitOfKind(kind: string): { split: SplitName; layer: 'rendered' | 'rows' } | undefined {
  for (const split of SPLITS) {
    if (kind === FLYWHEEL_KIND[split]) return { split, layer: 'rows' };
    if (kind === `rendered-${FLYWHEEL_KIND[split]}`) return { split, layer: 'rendered' };
  }
  return undefined;
}

/** Fill each split's other layer from lineage and name the catalog. */
function complete(index: LineageIndex, splits: DatasetSplit[], notes: string[]): DatasetParts {
  for (const s of splits) {
    s.rows ??= index.parentOfKind(s.rendered, FLYWHEEL_KIND[s.split]);
    // A split rendered more than once (another format, another catalog): the newest rendering.
    if (s.rows && !s.rendered) s.rendered = index.children(s.rows.sha256, `rendered-${FLYWHEEL_KIND[s.split]}`)[0];
  }
  const present = SPLITS.map((name) => splits.find((s) => s.split === name && (s.rendered || s.rows))).filter(
    (s): s is DatasetSplit => Boolean(s),
  );
  for (const name of SPLITS)
    if (!present.some((s) => s.split === name)) notes.push(`no ${name} split found in the store for this dataset`);
  const catalog = present.map((s) => index.parentOfKind(s.rendered, 'catalog')).find(Boolean);
  return { splits: present, ...(catalog ? { catalog } : {}), hash: datasetHash(present), notes };
}

/**
 * The dataset an adapter was trained on: its rendered train and val parents, and the rendered test set its
 * evaluation scored (when it has been evaluated), each with the router rows it was rendered from.
 */
export function datasetOfAdapter(index: LineageIndex, adapter: Manifest, evalResults?: Manifest): DatasetParts {
  const notes: string[] = [];
  // A DPO adapter (the preference stage's) continues an SFT adapter: the dataset is the one that adapter trained on.
  const sft = index.parentOfKind(adapter, 'adapter');
  const pairs = index.parentOfKind(adapter, 'pairs-train');
  if (sft)
    notes.push(
      `tuned with DPO on ${pairs ? `preference pairs ${shortSha(pairs.sha256)}` : 'preference pairs'} of this dataset, from SFT adapter ${String(sft.stats.adapterVersion ?? shortSha(sft.sha256))}`,
    );
  const trainedOn = sft ?? adapter;
  const splits: DatasetSplit[] = [
    { split: 'train', rendered: index.parentOfKind(trainedOn, 'rendered-train') },
    { split: 'validation', rendered: index.parentOfKind(trainedOn, 'rendered-val') },
    { split: 'test', rendered: index.parentOfKind(evalResults, 'rendered-test') },
  ];
  if (!evalResults)
    notes.push("the test split is the one the adapter's evaluation scored, and no evaluation was found");
  return complete(index, splits, notes);
}

/**
 * The stage memo whose outputs include this artifact: it names the whole train/val/test set made with it. A
 * frozen test set (and its rendering) is shared by every run that used it, so several memos can name it
 * with different train/val: then the artifact does not say which dataset is meant, and guessing is refused.
 */
async function memoWith(store: ArtifactStore, stage: string, anchor: Manifest): Promise<MemoEntry | undefined> {
  const sets = new Map<string, MemoEntry>();
  for (const key of await store.backend.listDocs('memo/')) {
    const doc = await store.backend.getDoc(key);
    const entry = doc ? (JSON.parse(doc) as MemoEntry) : undefined;
    if (entry?.stage !== stage || !Object.values(entry.outputs).some((r) => r.sha256 === anchor.sha256)) continue;
    const set = canonicalJson(Object.fromEntries(Object.entries(entry.outputs).map(([k, r]) => [k, r.sha256])));
    const seen = sets.get(set);
    if (!seen || entry.createdAt < seen.createdAt) sets.set(set, entry);
  }
  const found = [...sets.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  if (found.length > 1) throw new PublishInputError(ambiguous(stage, anchor, found));
  return found[0];
}

function ambiguous(stage: string, anchor: Manifest, found: MemoEntry[]): string {
  const [train, val] =
    stage === 'render'
      ? [RENDER_OUTPUT.train, RENDER_OUTPUT.validation]
      : [SPLIT_OUTPUT.train, SPLIT_OUTPUT.validation];
  const sha = (r: { sha256: string } | undefined) => (r ? shortSha(r.sha256) : '—');
  const lines = found.map(
    (m) =>
      `  train ${sha(m.outputs[train])}  val ${sha(m.outputs[val])}  made ${m.createdAt}${m.runId ? ` (run ${m.runId})` : ''}`,
  );
  return `${anchor.kind} ${shortSha(anchor.sha256)} belongs to ${found.length} datasets (a frozen test set is shared by every run that uses it):\n${lines.join('\n')}\ngive one of their train or val shas, or the adapter version (adp-…), instead`;
}

/**
 * The dataset one split artifact belongs to (rendered-train/val/test or train/val/test). The render or split
 * stage's memo names its siblings exactly; without one, split artifacts written together (same parents) are
 * siblings, and a rendered split stands alone.
 */
export async function datasetOfSplit(
  store: ArtifactStore,
  index: LineageIndex,
  anchor: Manifest,
): Promise<DatasetParts> {
  const which = splitOfKind(anchor.kind);
  if (!which)
    throw new PublishInputError(
      `artifact ${shortSha(anchor.sha256)} is a ${anchor.kind}: publish dataset takes an adapter version, or a rendered-train/val/test or train/val/test artifact`,
    );
  const notes: string[] = [];
  if (which.layer === 'rendered') {
    const memo = await memoWith(store, 'render', anchor);
    if (!memo)
      notes.push(`no render memo names the siblings of ${shortSha(anchor.sha256)}: publishing its split alone`);
    const splits = SPLITS.map((split) => ({
      split,
      rendered: memo
        ? index.manifest(memo.outputs[RENDER_OUTPUT[split]]?.sha256)
        : split === which.split
          ? anchor
          : undefined,
    }));
    return complete(index, splits, notes);
  }
  const memo = await memoWith(store, 'split', anchor);
  const parents = canonicalJson([...anchor.parents].sort());
  const rows = (split: SplitName): Manifest | undefined => {
    if (memo) return index.manifest(memo.outputs[SPLIT_OUTPUT[split]]?.sha256);
    if (split === which.split) return anchor;
    // Without a memo: the split stage writes train, val and (unless pinned) test from the same parents.
    return index.manifests.find(
      (m) => m.kind === FLYWHEEL_KIND[split] && canonicalJson([...m.parents].sort()) === parents,
    );
  };
  return complete(
    index,
    SPLITS.map((split) => ({ split, rows: rows(split) })),
    notes,
  );
}
