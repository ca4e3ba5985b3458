/**
 * The S3 backend against a real S3-compatible server process: moto's server (pip package moto[server],
 * installed in .venv by the Makefile) on a free loopback port. It stands in for AWS S3, which cannot be
 * reached from here; the client code is the production @aws-sdk/client-s3 path.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { openStore } from '../core/artifacts/index.js';
import { REPO } from './helpers/fixtures.js';
import { storeContract } from './helpers/store-contract.js';

let moto: ChildProcess;
let endpoint = '';
let raw: S3Client;
let n = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('s3:// artifact store (moto server)', () => {
  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    moto = spawn(join(REPO, '.venv', 'bin', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    raw = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
    for (let i = 0; ; i++) {
      try {
        await raw.send(new CreateBucketCommand({ Bucket: 'flywheel' }));
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  after(() => {
    raw?.destroy();
    moto?.kill('SIGTERM');
  });

  storeContract(
    () => openStore(`s3://flywheel/run-${++n}`, { endpoint }),
    async (store, sha, data) => {
      const key = store.backend.objectUri(sha).replace('s3://flywheel/', '');
      await raw.send(new PutObjectCommand({ Bucket: 'flywheel', Key: key, Body: data }));
    },
  );

  it('names objects under the prefix and lists only its own manifests', async () => {
    const a = openStore('s3://flywheel/team-a', { endpoint });
    const b = openStore('s3://flywheel/team-b', { endpoint });
    const ref = await a.putJson('doc', { team: 'a' });
    assert.match(ref.uri, /^s3:\/\/flywheel\/team-a\/objects\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    assert.deepEqual(await a.listShas(), [ref.sha256]);
    assert.deepEqual(await b.listShas(), []);
    await assert.rejects(b.read(ref), /outside the store/);
  });
});
