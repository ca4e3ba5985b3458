/** `flywheel gc` over a real file artifact store and a real SQLite deploy registry. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { planGc, shasIn } from '../../core/artifacts/gc.js';
import { openStore, type ArtifactRef, type ArtifactStore } from '../../core/artifacts/index.js';
import { recordCatalogVersion } from '../../core/catalog/history.js';
import { frozenTestSet, pinTestSet } from '../../core/dataset/testset.js';
import { withRegistry } from '../../core/deploy/registry.js';
import { sha256Hex } from '../../core/hash.js';
import { memoized, type StageKeyParts } from '../../core/pipeline/memo.js';
import { gcCommand } from '../../scripts/commands/gc.js';
import { UsageError } from '../../scripts/lib/args.js';
import { REPO, tempDir } from '../helpers/fixtures.js';

const HOUR = 3_600_000;

interface Run {
  id: string;
  train: ArtifactRef;
  rejections: ArtifactRef;
  adapter: ArtifactRef;
  report: ArtifactRef;
  /** Key parts of each memoized stage, to ask the memo again after gc. */
  stages: StageKeyParts[];
}

/** One run's stages, memoized like activities/stage.ts does: validate, split, train, evaluate. */
async function buildRun(
  store: ArtifactStore,
  id: string,
  catalog: ArtifactRef,
  testSet: ArtifactRef,
  adapterFiles: Record<string, string>,
): Promise<Run> {
  const stages: StageKeyParts[] = [];
  const stage = async <O extends Record<string, ArtifactRef>>(
    name: string,
    inputs: ArtifactRef[],
    produce: () => Promise<O>,
  ) => {
    const parts = { stage: name, version: '1', inputs, config: { run: id } };
    stages.push(parts);
    await new Promise((r) => setTimeout(r, 3)); // distinct createdAt per memo entry
    return (await memoized(store, parts, produce, id)).outputs;
  };
  const { validated, rejections } = await stage('validate', [catalog], async () => ({
    validated: await store.putJsonl('validated', [{ run: id, row: 1 }], { parents: [catalog] }),
    rejections: await store.putJsonl('rejections', [{ run: id, code: 'schema' }], { parents: [catalog] }),
  }));
  const { train } = await stage('split', [validated!], async () => ({
    train: await store.putJsonl('train', [{ run: id, split: 'train' }], { parents: [validated!] }),
    test: testSet,
  }));
  const { adapter } = await stage('train', [train!], async () => {
    const src = tempDir('flywheel-gc-adapter-');
    for (const [name, body] of Object.entries(adapterFiles)) writeFileSync(join(src, name), body);
    return {
      adapter: await store.putDir('adapter', src, { parents: [train!], stats: { adapterVersion: `adp-${id}` } }),
    };
  });
  const { report } = await stage('evaluate', [adapter!, testSet], async () => ({
    report: await store.putJson('eval-report', { run: id }, { parents: [adapter!, testSet] }),
  }));
  return { id, train: train!, rejections: rejections!, adapter: adapter!, report: report!, stages };
}

/** Three runs on one catalog and pinned test set; the oldest run's adapter is deployed. */
async function buildWorld() {
  const dir = tempDir('flywheel-gc-');
  const storeUri = `file://${join(dir, 'artifacts')}`;
  const store = openStore(storeUri);
  const catalog = await store.putJson('catalog', { tools: ['a', 'b'] });
  await recordCatalogVersion(store, 'demo', catalog);
  const testSet = await store.putJsonl('test', [{ split: 'test' }], { parents: [catalog] });
  await pinTestSet(store, 'demo', 'cat-1', testSet, 'split');
  const shared = '{"r":16}'; // identical in every adapter: one blob shared by three trees
  const oldest = await buildRun(store, 'run-a', catalog, testSet, {
    'adapter_config.json': shared,
    'weights.bin': 'weights of a',
  });
  const middle = await buildRun(store, 'run-b', catalog, testSet, {
    'adapter_config.json': shared,
    'weights.bin': 'weights of b',
  });
  const newest = await buildRun(store, 'run-c', catalog, testSet, {
    'adapter_config.json': shared,
    'weights.bin': 'weights of c',
  });
  const probes = await store.putJson('smoke-probes', [{ id: 'p1' }], { parents: [testSet] });
  const registry = join(dir, 'registry.sqlite');
  await withRegistry(registry, async (r) => {
    await r.registerVersion({
      name: 'router@a',
      alias: 'router',
      adapterVersion: 'adp-run-a',
      adapter: oldest.adapter,
      target: 'local',
      endpoint: 'http://127.0.0.1:8100/v1',
      servedModel: 'router@a',
      adapterId: null,
      baseModel: 'tiny',
      runId: 'run-a',
      evalReport: oldest.report,
      probes,
    });
    await r.repoint('router', 'router@a', { action: 'deploy', actor: 'test', reason: 'first', requestId: 'deploy-a' });
  });
  // A stray blob with no manifest (a crashed putDir), and an entry without runId for a scratch artifact.
  const orphan = await stageObject(store, Buffer.from('left behind'));
  const scratch = await store.putJson('scratch', { s: 1 });
  await store.putMemo({
    key: 'scratch-key',
    stage: 'scratch',
    outputs: { scratch },
    createdAt: '2020-01-01T00:00:00.000Z',
  });
  return { dir, storeUri, store, registry, catalog, testSet, probes, oldest, middle, newest, orphan, scratch };
}

/** Commit an object without a manifest, the state a stage leaves between writing a blob and its manifest. */
async function stageObject(store: ArtifactStore, data: Buffer): Promise<string> {
  const staged = await store.backend.stagingPath();
  writeFileSync(staged, data);
  const sha = sha256Hex(data);
  await store.backend.commitObject(sha, staged);
  return sha;
}

interface GcJson {
  dryRun: boolean;
  runs: { kept: Array<{ runId: string }>; dropped: Array<{ runId: string }> };
  roots: Record<'deployed' | 'pointer' | 'recent-run' | 'open-run' | 'config' | 'fresh', number>;
  kept: { artifacts: number; files: number };
  delete: { memos: string[]; manifests: string[]; objects: string[] };
  bytesFreed: number;
  deleted: { memos: number; manifests: number; objects: number } | null;
}

/**
 * Run the command as the CLI does (UsageError → exit 2), returning the exit code and parsed --json output.
 * No Temporal here: runs are seen through memo entries only (test/retrain.test.ts covers gc with Temporal).
 */
async function gc(argv: string[]): Promise<{ code: number; out?: GcJson; stderr: string }> {
  argv = [...argv, '--no-temporal'];
  const chunks: string[] = [];
  let stderr = '';
  const write = process.stdout.write.bind(process.stdout);
  const error = console.error;
  process.stdout.write = ((chunk: string) => chunks.push(String(chunk)) > 0) as typeof process.stdout.write;
  console.error = (...a: unknown[]) => void (stderr += `${a.join(' ')}\n`);
  try {
    const code = await gcCommand.run(argv);
    return { code, stderr, ...(argv.includes('--json') ? { out: JSON.parse(chunks.join('')) as GcJson } : {}) };
  } catch (err) {
    if (err instanceof UsageError) return { code: 2, stderr: err.message };
    throw err;
  } finally {
    process.stdout.write = write;
    console.error = error;
  }
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

async function gone(store: ArtifactStore, ref: ArtifactRef): Promise<boolean> {
  return (
    !(await store.backend.hasObject(ref.sha256)) &&
    (await store.backend.getDoc(`manifests/${ref.sha256}.json`)) === undefined
  );
}

/** Move every manifest, memo entry and object of the store back by `ms`, as if written that long ago. */
async function age(store: ArtifactStore, ms: number): Promise<void> {
  const back = (iso: string) => new Date(Date.parse(iso) - ms).toISOString();
  for (const key of [...(await store.backend.listDocs('manifests/')), ...(await store.backend.listDocs('memo/'))]) {
    const doc = JSON.parse((await store.backend.getDoc(key))!) as { createdAt: string };
    await store.backend.putDoc(key, JSON.stringify({ ...doc, createdAt: back(doc.createdAt) }));
  }
  for (const o of await store.backend.listObjects()) {
    const t = new Date(Date.parse(o.modifiedAt) - ms);
    utimesSync(fileURLToPath(store.backend.objectUri(o.sha256)), t, t);
  }
}

describe('flywheel gc', () => {
  it('keeps the deployed adapter with its lineage, the pinned test set and the newest run; deletes the rest', async () => {
    const w = await buildWorld();
    const args = ['--store', w.storeUri, '--registry', w.registry, '--keep-last', '1', '--min-age', '0', '--json'];
    const { code, out } = await gc(args);
    assert.equal(code, 0);
    assert.deepEqual(
      out!.runs.kept.map((r) => r.runId),
      ['run-c'],
    );
    assert.deepEqual(
      out!.runs.dropped.map((r) => r.runId),
      ['run-b', 'run-a', '(no run id) memo/scratch-key.json'],
    );
    assert.ok(out!.roots.deployed >= 3 && out!.roots.pointer === 2, JSON.stringify(out!.roots));

    // The deployed adapter and everything upstream of it read back, hash-verified.
    const { store } = w;
    const dest = join(tempDir(), 'adapter');
    await store.materializeDir(w.oldest.adapter, dest);
    assert.equal(readFileSync(join(dest, 'weights.bin'), 'utf8'), 'weights of a');
    const validatedA = (await store.manifest(w.oldest.train.sha256)).parents[0]!;
    for (const ref of [w.oldest.adapter, w.oldest.report, w.oldest.train, w.catalog, w.testSet, w.probes])
      await store.read(ref);
    await store.read(validatedA);
    // The pinned test set and the catalog history stay.
    assert.equal((await frozenTestSet(store, 'demo', 'cat-1'))?.ref.sha256, w.testSet.sha256);
    assert.ok(await store.getPointer('catalog/demo/history'));

    // The middle run: its artifacts, its adapter's own file and its memo entries are gone; the shared blob is not.
    for (const ref of [w.middle.train, w.middle.adapter, w.middle.report, w.middle.rejections, w.scratch])
      assert.ok(await gone(store, ref), ref.kind);
    assert.equal(await store.backend.hasObject(sha256Hex('weights of b')), false);
    assert.equal(await store.backend.hasObject(sha256Hex('{"r":16}')), true);
    assert.equal(await store.backend.hasObject(w.orphan), false);
    assert.equal(await store.getMemo('scratch-key'), undefined);
    for (const parts of w.middle.stages) {
      let produced = false;
      const again = await memoized(
        store,
        parts,
        async () => ((produced = true), { x: await store.putJson('x', { parts }) }),
      );
      assert.equal(again.reused, false, `${parts.stage} of run-b reruns`);
      assert.ok(produced);
    }
    // The oldest run: memo entries whose outputs are all kept still hit; validate's rejections went, so it reruns.
    const hit = async (parts: StageKeyParts) =>
      (await memoized(store, parts, async () => ({ x: await store.putJson('x', { miss: parts.stage }) }))).reused;
    assert.deepEqual(await Promise.all(w.oldest.stages.map(hit)), [false, true, true, true]);
    // The newest run is intact.
    for (const ref of [w.newest.train, w.newest.adapter, w.newest.report, w.newest.rejections]) await store.read(ref);
    assert.deepEqual(await Promise.all(w.newest.stages.map(hit)), [true, true, true, true]);
  });

  it('a dry run deletes nothing and reports the plan the real run carries out; a second run deletes nothing', async () => {
    const w = await buildWorld();
    const root = join(w.dir, 'artifacts');
    const before = filesUnder(root);
    const args = ['--store', w.storeUri, '--registry', w.registry, '--keep-last', '1', '--min-age', '0', '--json'];
    const dry = await gc([...args, '--dry-run']);
    assert.equal(dry.out!.dryRun, true);
    assert.equal(dry.out!.deleted, null);
    assert.deepEqual(filesUnder(root), before);
    assert.ok(
      dry.out!.delete.memos.length >= 5 && dry.out!.delete.manifests.length >= 5 && dry.out!.delete.objects.length >= 6,
    );

    const real = await gc(args);
    assert.deepEqual(real.out!.delete, dry.out!.delete);
    assert.equal(real.out!.bytesFreed, dry.out!.bytesFreed);
    assert.deepEqual(real.out!.deleted, {
      memos: dry.out!.delete.memos.length,
      manifests: dry.out!.delete.manifests.length,
      objects: dry.out!.delete.objects.length,
      bytes: dry.out!.bytesFreed,
    });
    const deletedFiles = before.filter((f) => !filesUnder(root).includes(f));
    assert.equal(
      deletedFiles.length,
      real.out!.delete.memos.length + real.out!.delete.manifests.length + real.out!.delete.objects.length,
    );

    const second = await gc(args);
    assert.deepEqual(second.out!.delete, { memos: [], manifests: [], objects: [] });
    assert.equal(second.out!.kept.artifacts, real.out!.kept.artifacts);
  });

  it('--min-age spares fresh artifacts, memo entries and objects that have no manifest yet', async () => {
    const w = await buildWorld();
    const args = ['--store', w.storeUri, '--registry', w.registry, '--keep-last', '1', '--json'];
    const fresh = await gc(args);
    assert.deepEqual(
      fresh.out!.delete,
      { memos: [], manifests: [], objects: [] },
      'everything is younger than the default 1h',
    );

    await age(w.store, 2 * HOUR);
    const staged = await stageObject(w.store, Buffer.from('a blob whose manifest is not written yet'));
    const young = await w.store.putJson('eval-results', { running: true });
    const result = await gc([...args, '--min-age', '90m']);
    assert.ok(result.out!.delete.manifests.includes(w.middle.train.sha256));
    assert.equal(await w.store.backend.hasObject(staged), true);
    await w.store.read(young);
    assert.ok(await gone(w.store, w.middle.adapter));
  });

  it('a gc with a larger --keep-last keeps more runs', async () => {
    const w = await buildWorld();
    const { out } = await gc([
      '--store',
      w.storeUri,
      '--registry',
      w.registry,
      '--keep-last',
      '2',
      '--min-age',
      '0',
      '--json',
    ]);
    assert.deepEqual(
      out!.runs.kept.map((r) => r.runId),
      ['run-c', 'run-b'],
    );
    for (const ref of [w.middle.train, w.middle.adapter, w.middle.report]) await w.store.read(ref);
    assert.ok(await gone(w.store, w.oldest.rejections), 'not deployed, not in a kept run');
  });

  it('refuses bad usage and a named registry that does not exist (exit 2), deleting nothing', async () => {
    const w = await buildWorld();
    const before = filesUnder(join(w.dir, 'artifacts'));
    const base = ['--store', w.storeUri, '--registry', w.registry, '--min-age', '0'];
    for (const bad of [
      [],
      ['--keep-last', '0'],
      ['--keep-last', '-1'],
      ['--keep-last', 'two'],
      ['--keep-last', '1.5'],
      ['--keep-last', ''],
    ]) {
      const r = await gc([...base, ...bad]);
      assert.equal(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /keep-last/);
    }
    assert.equal((await gc([...base, '--keep-last', '1', '--min-age', 'soon'])).code, 2);
    const missing = await gc(['--store', w.storeUri, '--registry', join(w.dir, 'nope.sqlite'), '--keep-last', '1']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /registry .*nope\.sqlite does not exist/);
    assert.equal((await gc([...base, '--keep-last', '1', '--no-registry'])).code, 2, '--registry with --no-registry');

    // A config whose deploy section names a registry that is missing (run from the wrong directory).
    const config = parseYaml(readFileSync(join(REPO, 'examples', 'salesforce-oracle.yaml'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    config.artifacts = { store: w.storeUri };
    config.deploy!.registry = join(w.dir, 'elsewhere', 'registry.sqlite');
    delete config.gateway;
    const file = join(w.dir, 'flywheel.yaml');
    writeFileSync(file, stringifyYaml(config));
    const fromConfig = await gc(['--config', file, '--keep-last', '1']);
    assert.equal(fromConfig.code, 2);
    assert.match(fromConfig.stderr, /deploy\.registry\) does not exist/);
    assert.deepEqual(filesUnder(join(w.dir, 'artifacts')), before);

    // The same config with the registry where it says: it is used, and the deployed adapter survives.
    config.deploy!.registry = w.registry;
    writeFileSync(file, stringifyYaml(config));
    const ok = await gc(['--config', file, '--keep-last', '1', '--min-age', '0', '--json']);
    assert.equal(ok.code, 0);
    await w.store.read(w.oldest.adapter);
    assert.ok(await gone(w.store, w.middle.adapter));
  });

  it('with --no-registry nothing counts as deployed; no registry found at all is an error', async () => {
    const w = await buildWorld();
    const { out } = await gc(['--store', w.storeUri, '--no-registry', '--keep-last', '1', '--min-age', '0', '--json']);
    assert.equal(out!.roots.deployed, 0);
    assert.ok(await gone(w.store, w.oldest.adapter));
    // The pinned test set and the catalog (in its history) stay regardless.
    await w.store.read(w.testSet);
    await w.store.read(w.catalog);
    // Deployments may be recorded in a registry elsewhere: finding none is an error, for any store.
    const cwd = process.cwd();
    process.chdir(tempDir());
    try {
      for (const store of ['s3://bucket/prefix', w.storeUri]) {
        const none = await gc(['--store', store, '--keep-last', '1']);
        assert.equal(none.code, 2, store);
        assert.match(none.stderr, /no registry found/);
      }
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('planGc', () => {
  const sha = (s: string) => sha256Hex(s);
  const now = new Date('2025-06-01T12:00:00Z');
  const manifest = (name: string, parents: string[] = [], createdAt = '2025-01-01T00:00:00Z') => ({
    sha256: sha(name),
    kind: name,
    mediaType: 'application/json' as const,
    count: 1,
    bytes: 1,
    parents,
    stats: {},
    createdAt,
  });
  const object = (name: string, modifiedAt = '2025-01-01T00:00:00Z') => ({ sha256: sha(name), bytes: 10, modifiedAt });

  it('finds sha256 values anywhere in a pointer, including URIs, and nothing shorter or longer', () => {
    const a = sha('a');
    assert.deepEqual(shasIn(JSON.stringify({ ref: { sha256: a, uri: `file:///x/objects/${a.slice(0, 2)}/${a}` } })), [
      a,
    ]);
    assert.deepEqual(shasIn(`${a}0 ${a.slice(1)}`), []);
  });

  it('orders runs by their newest memo entry and keeps the last N', () => {
    const memo = (key: string, runId: string | undefined, createdAt: string, out: string) => ({
      doc: `memo/${key}.json`,
      entry: {
        key,
        stage: key,
        outputs: { o: { uri: '', sha256: sha(out), kind: out, count: 1, bytes: 1 } },
        createdAt,
        ...(runId ? { runId } : {}),
      },
    });
    const plan = planGc(
      {
        manifests: ['x', 'y', 'z'].map((n) => manifest(n)),
        // run-1 started first but finished last: it is the newest run.
        memos: [
          memo('k1', 'run-1', '2025-01-01T00:00:00Z', 'x'),
          memo('k2', 'run-2', '2025-01-02T00:00:00Z', 'y'),
          memo('k3', 'run-1', '2025-01-03T00:00:00Z', 'x'),
          memo('k4', undefined, '2025-01-02T12:00:00Z', 'z'),
        ],
        pointers: [],
        registryRefs: [],
        objects: ['x', 'y', 'z'].map((n) => object(n)),
        treeEntries: new Map(),
      },
      { keepLast: 1, minAgeMs: HOUR, now },
    );
    assert.deepEqual(
      plan.runs.kept.map((r) => r.runId),
      ['run-1'],
    );
    assert.deepEqual(plan.delete.memos, ['memo/k2.json', 'memo/k4.json']);
    assert.deepEqual(plan.delete.manifests, [sha('y'), sha('z')]);
    assert.throws(
      () =>
        planGc(
          { manifests: [], memos: [], pointers: [], registryRefs: [], objects: [], treeEntries: new Map() },
          { keepLast: 0, minAgeMs: 0, now },
        ),
      /keepLast/,
    );
  });

  it("a memo entry belongs to the last run that reused it; Temporal's open and newest runs and run configs are roots", () => {
    const ref = (n: string) => ({ uri: '', sha256: sha(n), kind: n, count: 1, bytes: 1 });
    const names = ['render-a', 'split-b', 'report-c', 'adapter-d', 'config-e', 'old-f'];
    const plan = planGc(
      {
        manifests: names.map((n) => (n.startsWith('config') ? { ...manifest(n), kind: 'config' } : manifest(n))),
        memos: [
          // Produced by run-a long ago, reused by run-c (the newest): it goes with run-c.
          {
            doc: 'memo/a.json',
            entry: {
              key: 'a',
              stage: 'render',
              outputs: { o: ref('render-a') },
              createdAt: '2025-01-01T00:00:00Z',
              runId: 'run-a',
              usedBy: 'run-c',
              usedAt: '2025-01-05T00:00:00Z',
            },
          },
          {
            doc: 'memo/b.json',
            entry: {
              key: 'b',
              stage: 'split',
              outputs: { o: ref('split-b') },
              createdAt: '2025-01-03T00:00:00Z',
              runId: 'run-b',
            },
          },
        ],
        pointers: [],
        registryRefs: [],
        objects: names.map((n) => object(n)),
        treeEntries: new Map(),
        temporalRuns: [
          { runId: 'run-c', startedAt: '2025-01-05T00:00:00Z', open: false, shas: [sha('report-c')] },
          // Waiting for approval for days, older than keepLast runs: still kept.
          { runId: 'run-d', startedAt: '2025-01-02T00:00:00Z', open: true, shas: [sha('adapter-d')] },
          { runId: 'run-f', startedAt: '2025-01-01T00:00:00Z', open: false, shas: [sha('old-f')] },
        ],
      },
      { keepLast: 1, minAgeMs: HOUR, now },
    );
    assert.deepEqual(
      plan.runs.kept.map((r) => r.runId),
      ['run-c'],
    );
    assert.deepEqual(plan.delete.memos, ['memo/b.json']);
    assert.deepEqual(plan.delete.manifests, [sha('split-b'), sha('old-f')]);
    assert.deepEqual(plan.reasons.get(sha('adapter-d')), ['open run run-d']);
    assert.deepEqual(plan.reasons.get(sha('config-e')), ['run config']);
    assert.equal(plan.roots['open-run'], 1);
  });

  it('an unreadable tree of a kept directory artifact protects every object without a manifest', () => {
    const tree = { ...manifest('tree'), mediaType: 'application/vnd.flywheel.tree+json' as const };
    const plan = planGc(
      {
        manifests: [tree],
        memos: [],
        pointers: [{ doc: 'refs/p.json', text: JSON.stringify({ sha256: sha('tree') }) }],
        registryRefs: [],
        objects: [object('tree'), object('blob')],
        treeEntries: new Map([[sha('tree'), null]]),
      },
      { keepLast: 1, minAgeMs: 0, now },
    );
    assert.deepEqual(plan.delete.objects, []);
    assert.match(plan.warnings.join('\n'), /unreadable tree/);
  });

  it('an unparseable createdAt counts as fresh', () => {
    const plan = planGc(
      {
        manifests: [manifest('m', [], 'yesterday')],
        memos: [],
        pointers: [],
        registryRefs: [],
        objects: [object('m')],
        treeEntries: new Map(),
      },
      { keepLast: 1, minAgeMs: 0, now },
    );
    assert.deepEqual(plan.delete.manifests, []);
    assert.equal(plan.warnings.length, 1);
  });
});
