import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { executeGc, loadGcInputs, planGc } from '../../core/artifacts/gc.js';
import { ArtifactError, type ArtifactStore } from '../../core/artifacts/index.js';
import { sha256Hex } from '../../core/hash.js';
import { tempDir } from './fixtures.js';

/**
 * The behaviour every artifact backend must have. `corrupt` overwrites an object's bytes behind the
 * store's back (as disk rot or a bad upload would).
 */
export function storeContract(
  open: () => ArtifactStore,
  corrupt: (store: ArtifactStore, sha: string, data: Buffer) => Promise<void>,
): void {
  it('round-trips JSONL rows and names them by the sha256 of their bytes', async () => {
    const store = open();
    const rows = [{ b: 2, a: 1 }, { z: [3, { y: 1, x: 2 }] }];
    const ref = await store.putJsonl('rows', rows, { stats: { n: 2 } });
    assert.equal(ref.count, 2);
    const bytes = await store.read(ref);
    assert.equal(ref.sha256, sha256Hex(bytes));
    assert.equal(bytes.toString(), '{"a":1,"b":2}\n{"z":[3,{"x":2,"y":1}]}\n');
    assert.deepEqual(await store.readJsonl(ref), [{ a: 1, b: 2 }, { z: [3, { x: 2, y: 1 }] }]);
    const m = await store.manifest(ref.sha256);
    assert.equal(m.kind, 'rows');
    assert.deepEqual(m.stats, { n: 2 });
  });

  it('writing the same content twice is a no-op with the same ref and the first manifest', async () => {
    const store = open();
    const a = await store.putJson('doc', { hello: 'world' }, { stats: { first: true } });
    const before = await store.manifest(a.sha256);
    const b = await store.putJson('doc', { hello: 'world' }, { stats: { first: false } });
    assert.deepEqual(a, b);
    assert.deepEqual(await store.manifest(b.sha256), before);
  });

  it('records parents in the manifest', async () => {
    const store = open();
    const parent = await store.putJson('p', { p: 1 });
    const child = await store.putJson('c', { c: 1 }, { parents: [parent] });
    assert.deepEqual((await store.manifest(child.sha256)).parents, [parent.sha256]);
  });

  it('verifies the hash on every read', async () => {
    const store = open();
    const ref = await store.putJson('doc', { value: 'precious' });
    await corrupt(store, ref.sha256, Buffer.from('{"value":"tampered"}'));
    await assert.rejects(store.read(ref), (e: Error) => e instanceof ArtifactError && /corrupt/.test(e.message));
  });

  it('refuses refs that point outside the store', async () => {
    const store = open();
    const ref = await store.putJson('doc', { x: 1 });
    const other = { ...ref, uri: ref.uri.replace(/objects\/.*$/, '../../etc/passwd') };
    await assert.rejects(store.read(other), /outside the store/);
    await assert.rejects(store.read({ ...ref, sha256: '../../etc/passwd' }), /invalid sha256/);
    await assert.rejects(store.read({ ...ref, uri: 'file:///etc/passwd' }), /outside the store/);
  });

  it('resolves a unique sha prefix and the full URI', async () => {
    const store = open();
    const ref = await store.putJson('doc', { prefix: 'test' });
    assert.deepEqual(await store.resolve(ref.sha256.slice(0, 12)), ref);
    assert.deepEqual(await store.resolve(ref.uri), ref);
    await assert.rejects(store.resolve('zz'), /not a sha256/);
  });

  it('leaves nothing behind when a write fails midway', async () => {
    const store = open();
    const before = await store.listShas();
    async function* rows() {
      yield { ok: 1 };
      throw new Error('source broke');
    }
    await assert.rejects(store.putJsonl('rows', rows()), /source broke/);
    assert.deepEqual(await store.listShas(), before);
  });

  it('stores a directory and materializes it exactly', async () => {
    const store = open();
    const src = tempDir();
    mkdirSync(join(src, 'sub'));
    writeFileSync(join(src, 'adapter_config.json'), '{"r":16}');
    writeFileSync(join(src, 'sub', 'weights.bin'), Buffer.from([0, 1, 2, 255]));
    const ref = await store.putDir('adapter', src);
    assert.equal(ref.count, 2);
    assert.equal(ref.bytes, 12);
    const tree = await store.readTree(ref);
    assert.deepEqual(
      tree.map((f) => f.path),
      ['adapter_config.json', 'sub/weights.bin'],
    );
    const dest = join(tempDir(), 'out');
    await store.materializeDir(ref, dest);
    assert.equal(readFileSync(join(dest, 'adapter_config.json'), 'utf8'), '{"r":16}');
    assert.deepEqual([...readFileSync(join(dest, 'sub', 'weights.bin'))], [0, 1, 2, 255]);
    assert.deepEqual(readdirSync(dest).sort(), ['adapter_config.json', 'sub']);
  });

  it('memo entries and pointers round-trip; a memo whose output is gone is a miss', async () => {
    const store = open();
    const ref = await store.putJson('out', { memo: Math.random() });
    await store.putMemo({ key: 'k1', stage: 's', outputs: { out: ref }, createdAt: 'now' });
    assert.deepEqual((await store.getMemo('k1'))?.outputs, { out: ref });
    await store.backend.deleteObject(ref.sha256);
    assert.equal(await store.getMemo('k1'), undefined);
    await store.putPointer('catalog/demo/history', [1, 2]);
    assert.deepEqual(await store.getPointer('catalog/demo/history'), [1, 2]);
    await assert.rejects(store.putPointer('../escape', 1), /invalid store key/);
  });

  it('lists every object, directory files included, with size and write time', async () => {
    const store = open();
    const started = Date.now() - 5_000; // S3 times have whole seconds; allow for clock skew
    const src = tempDir();
    writeFileSync(join(src, 'a'), 'file a');
    writeFileSync(join(src, 'b'), 'file b');
    const dir = await store.putDir('adapter', src);
    const doc = await store.putJson('doc', { listed: true });
    const rows = await store.putJsonl('rows', [{ r: 1 }, { r: 2 }]);
    const listed = await store.backend.listObjects();
    const expected = [dir.sha256, doc.sha256, rows.sha256, sha256Hex('file a'), sha256Hex('file b')];
    assert.deepEqual(listed.map((o) => o.sha256).sort(), [...expected].sort());
    assert.equal(listed.find((o) => o.sha256 === rows.sha256)?.bytes, rows.bytes);
    for (const o of listed) assert.ok(Date.parse(o.modifiedAt) >= started, o.modifiedAt);
  });

  it('gc deletes an unreferenced artifact, its directory files and its memo entry; keeps what a pointer names', async () => {
    const store = open();
    const src = tempDir();
    writeFileSync(join(src, 'weights'), `unreferenced ${Math.random()}`);
    const dropped = await store.putDir('adapter', src, { parents: [await store.putJson('train', { dropped: 1 })] });
    const kept = await store.putJson(
      'eval-report',
      { kept: 1 },
      { parents: [await store.putJson('test', { test: 1 })] },
    );
    await store.putMemo({
      key: 'old-train',
      stage: 'train',
      outputs: { adapter: dropped },
      createdAt: '2020-01-01T00:00:00.000Z',
      runId: 'old',
    });
    await store.putMemo({
      key: 'new-eval',
      stage: 'evaluate',
      outputs: { report: kept },
      createdAt: new Date().toISOString(),
      runId: 'new',
    });
    await store.putPointer('testset/demo/cat-1', { ref: kept });
    const plan = planGc(await loadGcInputs(store), { keepLast: 1, minAgeMs: 0, now: new Date(Date.now() + 1000) });
    assert.deepEqual(plan.delete.memos, ['memo/old-train.json']);
    assert.equal(plan.delete.manifests.length, 2, JSON.stringify(plan.delete));
    assert.equal(plan.delete.objects.length, 3);
    await executeGc(store, plan);
    assert.equal(await store.getMemo('old-train'), undefined);
    assert.equal((await store.backend.listObjects()).length, 2);
    assert.deepEqual(await store.readJson(kept), { kept: 1 });
    assert.ok(await store.getPointer('testset/demo/cat-1'));
    const again = planGc(await loadGcInputs(store), { keepLast: 1, minAgeMs: 0, now: new Date(Date.now() + 1000) });
    assert.deepEqual(again.delete, { memos: [], manifests: [], objects: [] });
  });
}
