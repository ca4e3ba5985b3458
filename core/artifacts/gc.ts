/**
 * Retention for the artifact store (`flywheel gc`). planGc is pure: what the store and registry hold in,
 * what to keep and delete (and why) out. loadGcInputs reads them; executeGc deletes in a crash-safe order.
 *
 * Roots, each kept with everything it reaches through manifest parents and directory-tree entries (a kept
 * adapter keeps its training data, test set, catalog…: lineage stays complete):
 *   deployed    every artifact any registry version names (adapter, eval report, probes): every version,
 *               not just the current ones, since a rollback can go back to any of them
 *   pointer     every sha256 in any refs/ doc (frozen test sets, catalog history, watermarks, and kinds
 *               added later: the raw text is scanned for 64-hex strings)
 *   recent-run  the outputs of the memo entries of the newest keepLast runs (entries grouped by the last run
 *               that produced or reused them, runs ordered by their newest entry; an entry without a run id is
 *               a run of its own), and — when Temporal could be asked — every output in the histories of the
 *               newest keepLast flywheelRun executions (eval results and reports, deployments: not memoized)
 *   open-run    every output in the history of a flywheelRun still running (it reads its earlier outputs
 *               later, maybe days later after an approval)
 *   config      every stored run config (a few KB each; resume and publish read them)
 *   fresh       artifacts and memo entries younger than minAge, and objects without a manifest younger than
 *               minAge: a running stage may have written objects but not yet its manifest or memo
 * Everything else is deleted: memo entries whose outputs are not all kept (first, so no memo names a
 * deleted output), then manifests, then objects (incl. directory-tree files no kept tree lists). Pointer
 * docs are never deleted.
 *
 * gc may run beside a run: objects are listed before any doc is read, so nothing written during gc is a
 * candidate. The one gap is a stage that re-puts, byte for byte, an old object gc is deleting at that
 * moment (the write is a no-op): schedule gc between runs to rule it out.
 */
import Database from 'better-sqlite3';
import { sha256Hex } from '../hash.js';
import { parseDbLocation } from '../db-location.js';
import { withRegistry } from '../deploy/registry.js';
import { pool } from '../pool.js';
import type { StoredObject } from './backend.js';
import type { ArtifactStore } from './store.js';
import { TREE_MEDIA_TYPE, type Manifest, type MemoEntry, type TreeEntry } from './types.js';

export type RootReason = 'deployed' | 'pointer' | 'recent-run' | 'open-run' | 'config' | 'fresh';

/** A flywheelRun execution as Temporal knows it: the artifacts its history names. */
export interface RunRefs {
  runId: string;
  startedAt: string;
  open: boolean;
  shas: string[];
}

export interface GcInputs {
  manifests: Manifest[];
  /** Memo entries with the doc key they are stored under (memo/<key>.json). */
  memos: Array<{ doc: string; entry: MemoEntry }>;
  /** refs/ docs: key and raw text. */
  pointers: Array<{ doc: string; text: string }>;
  /** Artifact shas the registry names, with the version naming each. */
  registryRefs: Array<{ version: string; sha256: string }>;
  objects: StoredObject[];
  /** File shas of each directory artifact; null where its tree could not be read. */
  treeEntries: Map<string, string[] | null>;
  /** The runs Temporal lists (open ones and the newest), when it was asked; undefined when it was not. */
  temporalRuns?: RunRefs[];
}

export interface GcOptions {
  /** Runs whose memo outputs are kept, newest first; at least 1 (the newest run may still be running). */
  keepLast: number;
  minAgeMs: number;
  now: Date;
}

export interface RunSummary {
  runId: string;
  newest: string;
  stages: string[];
}

export interface GcPlan {
  /** Shas kept: artifacts and directory-tree files. */
  keep: Set<string>;
  /** Why each root is kept, e.g. "deployed router@abc", "pointer refs/testset/demo/cat-1.json", "run <id>", "fresh". */
  reasons: Map<string, string[]>;
  /** Distinct root shas per reason. */
  roots: Record<RootReason, number>;
  runs: { kept: RunSummary[]; dropped: RunSummary[] };
  /** In deletion order: memo docs, then manifest shas, then object shas. */
  delete: { memos: string[]; manifests: string[]; objects: string[] };
  keptArtifacts: number;
  keptFiles: number;
  bytesFreed: number;
  warnings: string[];
}

const SHA_IN_TEXT = /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/g;

/** Every 64-hex string in a document: sha256 fields, artifact URIs, catalog history entries. */
export function shasIn(text: string): string[] {
  return [...new Set(text.match(SHA_IN_TEXT) ?? [])];
}

export function planGc(inputs: GcInputs, opts: GcOptions): GcPlan {
  if (!Number.isInteger(opts.keepLast) || opts.keepLast < 1)
    throw new Error(`keepLast must be a positive integer, got ${opts.keepLast}`);
  const cutoff = opts.now.getTime() - opts.minAgeMs;
  const warnings: string[] = [];
  // An unparseable time cannot prove age: treat it as fresh.
  const isFresh = (iso: string, what: string) => {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) warnings.push(`${what} has no valid createdAt (${JSON.stringify(iso)}): kept as fresh`);
    return Number.isNaN(t) || t > cutoff;
  };

  const reasons = new Map<string, string[]>();
  const rootsBy: Record<RootReason, Set<string>> = {
    deployed: new Set(),
    pointer: new Set(),
    'recent-run': new Set(),
    'open-run': new Set(),
    config: new Set(),
    fresh: new Set(),
  };
  const root = (sha: string, reason: RootReason, detail: string) => {
    rootsBy[reason].add(sha);
    const list = reasons.get(sha) ?? [];
    if (!list.includes(detail)) list.push(detail);
    reasons.set(sha, list);
  };

  for (const r of inputs.registryRefs) root(r.sha256, 'deployed', `deployed ${r.version}`);
  for (const p of inputs.pointers) for (const sha of shasIn(p.text)) root(sha, 'pointer', `pointer ${p.doc}`);

  const runOf = (doc: string, entry: MemoEntry) => entry.usedBy ?? entry.runId ?? `(no run id) ${doc}`;
  const lastUse = (entry: MemoEntry) =>
    entry.usedAt && entry.usedAt > entry.createdAt ? entry.usedAt : entry.createdAt;
  const runs = new Map<string, RunSummary>();
  for (const { doc, entry } of inputs.memos) {
    const id = runOf(doc, entry);
    const run = runs.get(id) ?? { runId: id, newest: '', stages: [] };
    if (lastUse(entry) > run.newest) run.newest = lastUse(entry);
    run.stages.push(entry.stage);
    runs.set(id, run);
    if (isFresh(lastUse(entry), doc))
      for (const ref of Object.values(entry.outputs)) root(ref.sha256, 'fresh', 'fresh');
  }
  const ordered = [...runs.values()].sort((a, b) =>
    a.newest < b.newest ? 1 : a.newest > b.newest ? -1 : a.runId < b.runId ? -1 : 1,
  );
  const keptRuns = ordered.slice(0, opts.keepLast);
  const keptIds = new Set(keptRuns.map((r) => r.runId));
  for (const { doc, entry } of inputs.memos) {
    if (!keptIds.has(runOf(doc, entry))) continue;
    for (const ref of Object.values(entry.outputs)) root(ref.sha256, 'recent-run', `run ${runOf(doc, entry)}`);
  }
  const temporalRuns = [...(inputs.temporalRuns ?? [])].sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
  for (const run of temporalRuns.filter((r) => r.open))
    for (const sha of run.shas) root(sha, 'open-run', `open run ${run.runId}`);
  for (const run of temporalRuns.slice(0, opts.keepLast))
    for (const sha of run.shas) root(sha, 'recent-run', `run ${run.runId}`);

  const bySha = new Map(inputs.manifests.map((m) => [m.sha256, m]));
  for (const m of inputs.manifests) {
    if (m.kind === 'config') root(m.sha256, 'config', 'run config');
    else if (isFresh(m.createdAt, `manifest ${m.sha256}`)) root(m.sha256, 'fresh', 'fresh');
  }

  // Closure over parents and tree entries.
  const keep = new Set<string>();
  let unknownTreeKept = false;
  const stack = [...reasons.keys()];
  while (stack.length > 0) {
    const sha = stack.pop()!;
    if (keep.has(sha)) continue;
    keep.add(sha);
    const m = bySha.get(sha);
    if (!m) continue;
    stack.push(...m.parents);
    if (m.mediaType === TREE_MEDIA_TYPE) {
      const files = inputs.treeEntries.get(sha);
      if (files) stack.push(...files);
      else unknownTreeKept = true;
    }
  }
  if (unknownTreeKept)
    warnings.push('a kept directory artifact has an unreadable tree: no manifest-less objects are deleted this time');

  const deleteMemos = inputs.memos
    .filter(({ entry }) => !Object.values(entry.outputs).every((ref) => keep.has(ref.sha256)))
    .map((m) => m.doc);
  const deleteManifests = inputs.manifests.filter((m) => !keep.has(m.sha256)).map((m) => m.sha256);
  const deleteObjects: string[] = [];
  let bytesFreed = 0;
  let keptFiles = 0;
  for (const o of inputs.objects) {
    const manifested = bySha.has(o.sha256);
    if (keep.has(o.sha256)) {
      if (!manifested) keptFiles++;
      continue;
    }
    if (!manifested && (unknownTreeKept || isFresh(o.modifiedAt, `object ${o.sha256}`))) {
      keptFiles++;
      continue;
    }
    deleteObjects.push(o.sha256);
    bytesFreed += o.bytes;
  }
  const count = (s: Set<string>) => s.size;
  return {
    keep,
    reasons,
    roots: {
      deployed: count(rootsBy.deployed),
      pointer: count(rootsBy.pointer),
      'recent-run': count(rootsBy['recent-run']),
      'open-run': count(rootsBy['open-run']),
      config: count(rootsBy.config),
      fresh: count(rootsBy.fresh),
    },
    runs: { kept: keptRuns, dropped: ordered.slice(opts.keepLast) },
    delete: { memos: deleteMemos, manifests: deleteManifests, objects: deleteObjects },
    keptArtifacts: inputs.manifests.length - deleteManifests.length,
    keptFiles,
    bytesFreed,
    warnings,
  };
}

const IO_CONCURRENCY = 16;

/** Read everything planGc needs from the store and (when given) the registry file, which must exist. */
export async function loadGcInputs(
  store: ArtifactStore,
  registryPath?: string,
  temporalRuns?: RunRefs[],
): Promise<GcInputs> {
  const backend = store.backend;
  const readDocs = async (prefix: string) => {
    const keys = await backend.listDocs(prefix);
    const texts = await pool(keys, IO_CONCURRENCY, (k) => backend.getDoc(k));
    return keys.flatMap((doc, i) => (texts[i] === undefined ? [] : [{ doc, text: texts[i]! }]));
  };
  // Objects are listed first: anything written after this listing is not a deletion candidate at all.
  const objects = await backend.listObjects();
  const manifests = (await readDocs('manifests/')).map(({ doc, text }) => parseJson<Manifest>(doc, text));
  const memos = (await readDocs('memo/')).map(({ doc, text }) => ({ doc, entry: parseJson<MemoEntry>(doc, text) }));
  const pointers = await readDocs('refs/');
  const trees = manifests.filter((m) => m.mediaType === TREE_MEDIA_TYPE);
  const files = await pool(trees, IO_CONCURRENCY, async (m) => {
    try {
      const data = await backend.readObject(m.sha256);
      if (sha256Hex(data) !== m.sha256) return null;
      return (JSON.parse(data.toString('utf8')) as { files: TreeEntry[] }).files.map((f) => f.sha256);
    } catch {
      return null;
    }
  });
  const treeEntries = new Map(trees.map((m, i) => [m.sha256, files[i]!]));
  return {
    manifests,
    memos,
    pointers,
    registryRefs: registryPath ? await readRegistryRefs(registryPath) : [],
    objects,
    treeEntries,
    ...(temporalRuns ? { temporalRuns } : {}),
  };
}

/**
 * Every sha in every registered version row (adapter, eval report, probes, and any column added later),
 * read straight from the versions table so versions of aliases never pointed anywhere count too.
 */
export async function readRegistryRefs(location: string): Promise<Array<{ version: string; sha256: string }>> {
  if (parseDbLocation(location, 'registry').kind === 'postgres') {
    const versions = await withRegistry(location, (r) => r.allVersions());
    return versions.flatMap((v) => shasIn(JSON.stringify(v)).map((sha256) => ({ version: v.name, sha256 })));
  }
  // A SQLite file is read as it is (read-only, never created or upgraded by gc).
  const db = new Database(location, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT * FROM versions').all() as Array<Record<string, unknown> & { name: string }>;
    return rows.flatMap((row) => shasIn(JSON.stringify(row)).map((sha256) => ({ version: row.name, sha256 })));
  } finally {
    db.close();
  }
}

export interface GcResult {
  memos: number;
  manifests: number;
  objects: number;
  bytes: number;
}

/**
 * Delete what the plan names: memo entries first (a crash then leaves outputs without a memo: the stage
 * just reruns), manifests before objects (a crash leaves manifest-less objects the next gc removes).
 */
export async function executeGc(store: ArtifactStore, plan: GcPlan): Promise<GcResult> {
  const b = store.backend;
  await pool(plan.delete.memos, IO_CONCURRENCY, (doc) => b.deleteDoc(doc));
  await pool(plan.delete.manifests, IO_CONCURRENCY, (sha) => b.deleteDoc(`manifests/${sha}.json`));
  await pool(plan.delete.objects, IO_CONCURRENCY, (sha) => b.deleteObject(sha));
  return {
    memos: plan.delete.memos.length,
    manifests: plan.delete.manifests.length,
    objects: plan.delete.objects.length,
    bytes: plan.bytesFreed,
  };
}

function parseJson<T>(doc: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    // Unreadable metadata could hide a reference: refuse rather than guess.
    throw new Error(`cannot parse ${doc}: ${(err as Error).message}; fix or remove it before running gc`);
  }
}
