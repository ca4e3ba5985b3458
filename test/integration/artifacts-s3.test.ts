/**
 * The S3 backend against a real S3-compatible server process: moto's server (pip package moto[server],
 * installed in .venv by the Makefile) on a free loopback port. It stands in for AWS S3, which cannot be
 * reached from here; the client code is the production @aws-sdk/client-s3 path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { openStore } from '../../core/artifacts/index.js';
import { startMoto, type Moto } from '../helpers/moto.js';
import { storeContract } from '../helpers/store-contract.js';

let moto: Moto;
let endpoint = '';
let raw: S3Client;
let n = 0;

describe('s3:// artifact store (moto server)', () => {
  before(async () => {
    moto = await startMoto(['flywheel']);
    endpoint = moto.endpoint;
    raw = moto.client;
  });
  after(() => moto?.stop());

  storeContract(
    // Two keys per list page, so every listing (manifests, docs, objects) follows continuation tokens.
    () => openStore(`s3://flywheel/run-${++n}`, { endpoint, listPageSize: 2 }),
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
