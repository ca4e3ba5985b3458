/** The split activity run in an activity context (no server): frozen test sets per project and catalog version. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { split } from '../../stages/split/activity.js';
import { openStore } from '../../core/artifacts/index.js';
import { catalogVersion } from '../../core/catalog/history.js';
import { parseConfig } from '../../core/config/load.js';
import { frozenTestSet } from '../../core/dataset/testset.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { tempDir } from '../helpers/fixtures.js';

function rows(): RouterRow[] {
  return Array.from({ length: 200 }, (_, i) => ({
    id: `r${i}`,
    domain: 'salesforce',
    entities: [`salesforce:account:${i % 40}`],
    request: `r${i}`,
    persona: { name: 'p', scopes: [] },
    tools: ['update_account'],
    target: { tool: 'update_account', arguments: { accountId: `a${i % 40}` } },
    provenance: { source: 'generated' },
  }));
}

describe('split stage', () => {
  it('pins a frozen test set for every project and catalog version, even when the split is reused from the memo', async () => {
    const storeUri = `file://${tempDir()}`;
    const store = openStore(storeUri);
    const augmented = await store.putJsonl('augmented', rows());
    const catalog = await store.putJson('catalog', { tools: [] });
    const dataset = parseConfig({
      version: 1,
      name: 'x',
      servers: [{ name: 's', stdio: { command: 'x' } }],
      dataset: {},
    }).dataset!;
    const env = new MockActivityEnvironment();
    const run = (project: string) =>
      env.run(split, {
        store: { store: storeUri, s3: {} },
        runId: 'test',
        dataset,
        project,
        catalog,
        augmented,
      }) as Promise<StageOutcome>;
    const a = await run('alpha');
    const b = await run('beta');
    const version = catalogVersion(catalog);
    assert.deepEqual((await frozenTestSet(store, 'alpha', version))?.ref, a.outputs.test);
    assert.deepEqual(
      (await frozenTestSet(store, 'beta', version))?.ref,
      b.outputs.test,
      'the second project gets its own pin',
    );
    // The next run splits against the pinned set (a new memo key: the pin is part of it) and keeps it as test;
    // the one after that is a memo hit.
    const again = await run('alpha');
    assert.deepEqual(again.outputs.test, a.outputs.test);
    const third = await run('alpha');
    assert.equal(third.reused, true);
    assert.deepEqual(third.outputs, again.outputs);
  });
});
