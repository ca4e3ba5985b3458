/**
 * The adapter version comes from the train job's identity (core/train/job.ts jobIdentity). Keys whose schema
 * default came later (IDENTITY_OMITS_AT_DEFAULT) stay out of it at their default, so a job that leaves them out
 * keeps the version it had before: the hashes below are those identities as they were before the schema gave
 * those keys defaults.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, sha256Hex } from '../../core/hash.js';
import { adapterTag } from '../../core/train/adapter-version.js';
import { IDENTITY_OMITS_AT_DEFAULT, JOB_SCHEMA, jobIdentity } from '../../core/train/job.js';

const identityHash = (job: Record<string, unknown>): string =>
  sha256Hex(canonicalJson(jobIdentity(job, 'router-json'))).slice(0, 16);

describe('train job identity', () => {
  it('is what it was before the later keys had schema defaults', () => {
    assert.equal(identityHash({ baseModel: 'tiny:nano' }), 'fcf1d4ebe1185951');
    assert.equal(
      identityHash({ baseModel: 'smollm2-135m-instruct', optim: { epochs: 2, maxSteps: 60 }, lora: { rank: 8 } }),
      '5bb29de5d5c5c0ae',
    );
    assert.equal(
      identityHash({ baseModel: 'tiny:nano', optim: { decisionWeight: 3 }, resources: { gpus: 2 } }),
      'bcdac6addd80df1d',
    );
  });

  it('leaves a later key out at its default and keeps it at any other value', () => {
    const plain = jobIdentity({ baseModel: 'tiny:nano' }, 'router-json');
    const atDefault = jobIdentity(
      { baseModel: 'tiny:nano', optim: { decisionWeight: 1, sharedPrefixRows: 1 }, resources: { gpus: 1 } },
      'router-json',
    );
    assert.deepEqual(atDefault, plain);
    const weighted = jobIdentity({ baseModel: 'tiny:nano', optim: { decisionWeight: 2 } }, 'router-json');
    assert.equal((weighted.optim as Record<string, unknown>).decisionWeight, 2);
    assert.ok(!('resources' in weighted));
  });

  it('names only keys the schema defines, each with a default', () => {
    for (const path of IDENTITY_OMITS_AT_DEFAULT) {
      let node = JOB_SCHEMA;
      for (const key of path) node = (node.properties as Record<string, Record<string, unknown>>)[key]!;
      assert.ok(node && 'default' in node, path.join('.'));
    }
  });

  it('names deployed versions as deploy named them before train computed the tag', () => {
    const dataset = { trainSha: 'a'.repeat(64), valSha: 'b'.repeat(64) };
    const identity = { ...jobIdentity({ baseModel: 'tiny:nano' }, 'router-json'), stageVersion: '4' };
    assert.equal(adapterTag(dataset, identity), '2ba3056e-4870d214');
  });
});
