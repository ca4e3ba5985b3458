/**
 * A user's domain pack through the intents stage, as a worker started with `flywheel worker --packs FILE` runs
 * it: the real Salesforce sandbox over stdio, the pack module loaded from its file, the activity in an activity
 * context (no Temporal server: the memo is what is under test, and it lives in the artifact store).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { closeAllConnections } from '../../activities/connections.js';
import { ingest, listServerTools } from '../../stages/ingest/activity.js';
import { intentsFor } from '../../stages/intents/activity.js';
import { openStore } from '../../core/artifacts/index.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { parseConfig } from '../../core/config/load.js';
import type { DomainPack } from '../../core/dataset/packs.js';
import type { Intent } from '../../core/dataset/types.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { loadPackFiles, SHIPPED_PACKS, workerPacks } from '../../workers/packs.js';
import { REPO, tempDir } from '../helpers/fixtures.js';
import { join } from 'node:path';

const USER_PACK = join(REPO, 'test', 'fixtures', 'packs', 'salesforce-pack.ts');
const storeUri = `file://${tempDir()}`;
const store = { store: storeUri, s3: {} };
const config = parseConfig({
  version: 1,
  name: 'packs',
  artifacts: { store: storeUri },
  servers: [
    {
      name: 'crm',
      stdio: { command: 'node', args: ['--import', 'tsx', join(REPO, 'sandboxes/salesforce/main.ts'), '--seed', '42'] },
      timeoutMs: 30_000,
    },
  ],
  dataset: { seed: 7, perGoal: 2 },
});
const env = new MockActivityEnvironment();
const act = <A, R>(fn: (a: A) => Promise<R>, a: A): Promise<R> => env.run(fn as never, a as never) as Promise<R>;

async function catalogRef(): Promise<ArtifactRef> {
  const snapshots = await Promise.all(
    config.servers.map((server) => act(listServerTools, { store, server, maxPages: 100 })),
  );
  const out = await act(ingest, { store, project: config.name, catalog: config.catalog, snapshots, runId: 't' });
  return out.outputs.catalog!;
}

const intents = (packs: readonly DomainPack[], catalog: ArtifactRef): Promise<StageOutcome> =>
  act(intentsFor(packs), {
    store,
    runId: 't',
    dataset: config.dataset!,
    catalog,
    servers: config.servers,
  });

after(closeAllConnections);

describe("a user's domain pack", () => {
  it('draws the intents of the tools it covers, and its version keys the memo', { timeout: 120_000 }, async () => {
    const catalog = await catalogRef();
    const first = await intents(workerPacks(await loadPackFiles([USER_PACK])), catalog);
    assert.equal(first.reused, false);
    const rows = await openStore(storeUri).readJsonl<Intent>(first.outputs.intents!);
    const byGoal = (id: string) => rows.filter((r) => r.goal === id);
    assert.ok(byGoal('user.lookup').length > 0, 'the pack goal drew intents');
    assert.ok(
      byGoal('user.lookup').every((r) => r.tool === 'get_record' && r.persona.name === 'field-rep'),
      "its intents call its tool, asked by its persona (the pack's personas replace the derived ones)",
    );
    const shippedGoals = new Set(SHIPPED_PACKS.flatMap((p) => p.goals.map((g) => g.id)));
    assert.deepEqual(
      rows.filter((r) => shippedGoals.has(r.goal)),
      [],
      'the shipped Salesforce pack is replaced',
    );
    assert.ok(
      rows.some((r) => r.tool !== null && r.tool !== 'get_record'),
      'tools the pack does not cover still get generic intents',
    );

    // Same pack, same version: the memo holds. Another version: the stage runs again. The shipped packs (no
    // version) key it as before packs could come from a worker.
    assert.equal((await intents(workerPacks(await loadPackFiles([USER_PACK])), catalog)).reused, true);
    const [pack] = await loadPackFiles([USER_PACK]);
    const versioned = workerPacks([{ ...pack!, version: '2' }]);
    assert.equal((await intents(versioned, catalog)).reused, false);
    const shipped = await intents(SHIPPED_PACKS, catalog);
    assert.equal(shipped.reused, false);
    assert.notDeepEqual(shipped.outputs.intents, first.outputs.intents);
  });
});
