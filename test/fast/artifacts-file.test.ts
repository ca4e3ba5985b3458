import assert from 'node:assert/strict';
import { existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { tempDir } from '../helpers/fixtures.js';
import { storeContract } from '../helpers/store-contract.js';

describe('file:// artifact store', () => {
  storeContract(
    () => openStore(`file://${tempDir()}`),
    async (store, sha) => {
      writeFileSync(fileURLToPath(store.backend.objectUri(sha)), '{"value":"tampered"}');
    },
  );

  it('accepts file:relative, file:///absolute and bare paths', () => {
    const dir = tempDir();
    assert.equal(openStore(`file://${dir}`).rootUri, `file://${dir}`);
    assert.equal(openStore(dir).rootUri, `file://${dir}`);
    assert.match(openStore('file:.flywheel/x').rootUri, /^file:\/\/\/.*\/\.flywheel\/x$/);
    assert.throws(() => openStore('gs://bucket'), /unsupported artifact store URI/);
  });

  it('keeps no staging files after successful writes', async () => {
    const dir = tempDir();
    const store = openStore(dir);
    await store.putJsonl('rows', [{ a: 1 }]);
    await store.putJson('doc', { a: 1 });
    assert.deepEqual(readdirSync(join(dir, 'tmp')), []);
  });

  it('refuses symlinks in a directory artifact', async () => {
    const src = tempDir();
    writeFileSync(join(src, 'real'), 'x');
    symlinkSync('/etc/passwd', join(src, 'link'));
    await assert.rejects(openStore(tempDir()).putDir('adapter', src), /symlink/);
  });

  it('does not half-write a materialized directory when a file is corrupt', async () => {
    const store = openStore(tempDir());
    const src = tempDir();
    writeFileSync(join(src, 'a'), 'aaa');
    writeFileSync(join(src, 'b'), 'bbb');
    const ref = await store.putDir('adapter', src);
    const tree = await store.readTree(ref);
    writeFileSync(fileURLToPath(store.backend.objectUri(tree[1]!.sha256)), 'evil');
    const dest = join(tempDir(), 'out');
    await assert.rejects(store.materializeDir(ref, dest), /corrupt/);
    assert.equal(existsSync(dest), false);
  });
});
