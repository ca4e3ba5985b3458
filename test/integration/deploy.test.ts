/**
 * Deploy → smoke → alias flip → rollback against the real local serving backend (the trainer's serve, empty
 * at start, hosting adapters on two different tiny bases), a real SQLite registry, and for the rollback the
 * real `rollback` workflow on a Temporal dev server.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Backend } from '../../core/deploy/backend.js';
import { deployVersion, rollbackAlias, SmokeTestFailed, type DeployPlan } from '../../core/deploy/deploy.js';
import { openRegistry, type AliasRegistry, RegistryConflict } from '../../core/deploy/registry.js';
import type { DeployedVersion } from '../../core/deploy/types.js';
import { openStore, type ArtifactStore } from '../../core/artifacts/index.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { casesFrom } from '../../core/eval/cases.js';
import { startServe, type ServeProcess } from '../../core/train/serve-process.js';
import type { rollback } from '../../workflows/rollback.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTemporal, startWorker } from '../helpers/temporal.js';
import { trainTinyAdapter, zeroedAdapter, type TinyAdapter } from '../helpers/tiny-adapter.js';

const ADAPTER_REF = (sha: string) => ({
  uri: `file:///nowhere/${sha}`,
  sha256: sha.padEnd(64, '0'),
  kind: 'adapter',
  count: 1,
  bytes: 1,
});

describe('deploy, smoke test, alias flip and rollback on the local backend', () => {
  let dir: string;
  let serve: ServeProcess;
  let backend: Backend;
  let registry: AliasRegistry;
  let a: TinyAdapter;
  let b: TinyAdapter;
  let store: ArtifactStore;
  let probesRef: ArtifactRef;
  const opts = { timeoutMs: 60_000 };

  const plan = (
    name: string,
    adapterPath: string,
    requestId: string,
    shaSeed: string,
    expectedCurrent: string | null,
  ): DeployPlan => ({
    alias: 'router',
    name,
    adapterVersion: `adp-${shaSeed}`,
    adapter: ADAPTER_REF(shaSeed),
    adapterPath,
    runId: 'test',
    evalReport: null,
    probes: casesFrom(a.val).slice(0, 3),
    probesRef,
    expectedCurrent,
    actor: 'test',
    reason: 'gate passed',
    requestId,
  });
  const loaded = async (): Promise<string[]> =>
    ((await (await fetch(`${serve.url}/models`)).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);

  before(async () => {
    dir = tempDir('flywheel-deploy-');
    [a, b] = [await trainTinyAdapter(join(dir, 'a'), 0), await trainTinyAdapter(join(dir, 'b'), 1)];
    serve = await startServe([], join(dir, 'serve.log'));
    backend = new Backend('local', serve.url);
    registry = await openRegistry(join(dir, 'registry.sqlite'));
    store = openStore(`file://${join(dir, 'artifacts')}`);
    probesRef = await store.putJson('smoke-probes', casesFrom(a.val).slice(0, 3));
  });
  after(async () => {
    void registry?.close();
    void serve?.run.kill(1000);
    await serve?.run.done.catch(() => undefined);
  });

  it('deploys a first version: loaded, smoke-tested against its own base, alias set', async () => {
    const result = await deployVersion(
      registry,
      backend,
      plan('router@aaaa0000-00000001', a.adapter, 'run-1/deploy', 'a1', null),
      opts,
    );
    assert.equal(result.smoke.passed, true, result.smoke.summary);
    assert.equal((await registry.current('router'))?.name, 'router@aaaa0000-00000001');
    assert.equal(result.event.previous, null);
    assert.match(
      result.version.baseModel,
      /^base-[0-9a-f]{12}$/,
      'the smoke test compared with the base the adapter sits on',
    );
    assert.ok((await loaded()).includes('router@aaaa0000-00000001'));
  });

  it('refuses an adapter that changes nothing: alias untouched, version unloaded and not registered', async () => {
    const noop = zeroedAdapter(a.adapter, join(dir, 'noop'));
    await assert.rejects(
      deployVersion(
        registry,
        backend,
        plan('router@aaaa0000-0000dead', noop, 'run-2/deploy', 'dead', 'router@aaaa0000-00000001'),
        opts,
      ),
      (err: Error) => {
        assert.ok(err instanceof SmokeTestFailed);
        assert.match(err.message, /changes nothing/);
        return true;
      },
    );
    assert.equal((await registry.current('router'))?.name, 'router@aaaa0000-00000001');
    assert.equal(await registry.version('router@aaaa0000-0000dead'), undefined);
    assert.ok(!(await loaded()).includes('router@aaaa0000-0000dead'));
  });

  it('a crash between load and alias flip: the retry finishes with one alias move', async () => {
    const p = plan('router@bbbb0000-00000001', b.adapter, 'run-3/deploy', 'b1', 'router@aaaa0000-00000001');
    await assert.rejects(
      deployVersion(registry, backend, p, opts, { afterLoad: () => Promise.reject(new Error('worker died')) }),
      /worker died/,
    );
    assert.equal((await registry.current('router'))?.name, 'router@aaaa0000-00000001', 'the alias has not moved');
    const retried = await deployVersion(registry, backend, p, opts);
    assert.equal(retried.event.previous, 'router@aaaa0000-00000001');
    assert.equal((await registry.current('router'))?.name, 'router@bbbb0000-00000001');
    assert.equal((await deployVersion(registry, backend, p, opts)).moved, true); // the same request again: its move, not a second one
    // A later run with the same dataset and job: the alias already serves that version.
    assert.equal(
      (
        await deployVersion(
          registry,
          backend,
          { ...p, requestId: 'run-5/deploy', expectedCurrent: 'router@bbbb0000-00000001' },
          opts,
        )
      ).moved,
      false,
    );
    // A candidate gated against an older production must not replace the newer one.
    await assert.rejects(
      deployVersion(
        registry,
        backend,
        plan('router@cccc0000-00000001', b.adapter, 'run-4/deploy', 'c1', 'router@aaaa0000-00000001'),
        opts,
      ),
      (err: Error) =>
        err instanceof RegistryConflict &&
        /moved to router@bbbb0000-00000001 after this candidate was evaluated against router@aaaa0000-00000001/.test(
          err.message,
        ),
    );
    assert.deepEqual(
      (await registry.history('router')).map((e) => [e.action, e.version]),
      [
        ['deploy', 'router@bbbb0000-00000001'],
        ['deploy', 'router@aaaa0000-00000001'],
      ],
    );
    const models = await loaded();
    assert.equal(models.filter((m) => m === 'router@bbbb0000-00000001').length, 1);
    assert.equal(
      new Set(
        (
          (await (await fetch(`${serve.url}/models`)).json()) as { data: Array<{ id: string; parent?: string | null }> }
        ).data
          .filter((m) => m.parent)
          .map((m) => m.parent),
      ).size,
      2,
      'two tiny bases hosted side by side',
    );
  });

  it('rolls back through the rollback workflow, recording who and why', async () => {
    await registry.close(); // the workflow's activity opens the same file
    let env: TestWorkflowEnvironment | undefined;
    let worker: { worker: Worker; running: Promise<void> } | undefined;
    try {
      env = await startTemporal();
      worker = await startWorker(env);
      const result = await env.client.workflow.execute<typeof rollback>('rollback', {
        taskQueue: 'flywheel',
        workflowId: 'rollback-router',
        args: [
          {
            alias: 'router',
            by: 'alice',
            reason: 'candidate misroutes invoices',
            registry: join(dir, 'registry.sqlite'),
            adapterDir: join(dir, 'served'),
            store: { store: `file://${join(dir, 'artifacts')}`, s3: {} },
          },
        ],
      });
      assert.deepEqual(result, {
        alias: 'router',
        version: 'router@aaaa0000-00000001',
        previous: 'router@bbbb0000-00000001',
        smoke: result.smoke,
      });
      assert.match(result.smoke, /probes parse/);
    } finally {
      worker?.worker.shutdown();
      await worker?.running;
      await env?.teardown();
      registry = await openRegistry(join(dir, 'registry.sqlite'));
    }
    const last = (await registry.history('router'))[0]!;
    assert.deepEqual(
      [last.action, last.version, last.actor, last.reason],
      ['rollback', 'router@aaaa0000-00000001', 'alice', 'candidate misroutes invoices'],
    );
  });

  it('rolls back to a version the backend forgot: reloaded, smoke-tested, then the alias moves; retries and repeats are safe', async () => {
    await backend.unload('router@bbbb0000-00000001');
    const args = {
      alias: 'router',
      to: 'router@bbbb0000-00000001',
      actor: 'bob',
      reason: 'roll forward',
      requestId: 'manual-1',
      adapterPathOf: async () => b.adapter,
      probesOf: async () => casesFrom(b.val).slice(0, 3),
    };
    const backendFor = (v: { target: DeployedVersion['target']; endpoint: string }) =>
      new Backend(v.target, v.endpoint);
    const result = await rollbackAlias(registry, backendFor, args, opts);
    assert.equal(result.smoke.passed, true);
    assert.equal((await registry.current('router'))?.name, 'router@bbbb0000-00000001');
    assert.ok((await loaded()).includes('router@bbbb0000-00000001'));
    // The same request again (an activity retried after the move): the same event, nothing moves.
    const again = await rollbackAlias(registry, backendFor, { ...args, to: undefined }, opts);
    assert.equal(again.event.id, result.event.id);
    assert.equal((await registry.current('router'))?.name, 'router@bbbb0000-00000001');
    // Without --to: the version served before the current one was *deployed* (never the one rolled away from).
    const back = await rollbackAlias(
      registry,
      backendFor,
      {
        ...args,
        to: undefined,
        requestId: 'manual-2',
        adapterPathOf: async () => a.adapter,
        probesOf: async () => casesFrom(a.val).slice(0, 3),
      },
      opts,
    );
    assert.equal(back.version.name, 'router@aaaa0000-00000001');
    await assert.rejects(
      rollbackAlias(registry, backendFor, { ...args, to: undefined, requestId: 'manual-3' }, opts),
      /no earlier version/,
    );
    await assert.rejects(
      rollbackAlias(registry, backendFor, { ...args, to: 'router@nope', requestId: 'manual-4' }, opts),
      /not a version of alias router/,
    );
  });
  it('a serve with an admin token: the deploy loads with the token from the worker, and without it is refused', async () => {
    const served = join(dir, 'guarded');
    const guarded = await startServe(
      ['--adapter-dir', served, '--admin-token-env', 'FLYWHEEL_TEST_ADMIN_TOKEN'],
      join(dir, 'guarded.log'),
      { FLYWHEEL_TEST_ADMIN_TOKEN: 'admin-token-1' },
    );
    try {
      // The adapter as deploy materialises it: inside the adapter directory, beside its tiny base.
      cpSync(join(a.adapter, '..', 'adapter'), join(served, 'v1', 'adapter'), { recursive: true });
      cpSync(join(a.adapter, '..', 'base'), join(served, 'v1', 'base'), { recursive: true });
      const inside = join(served, 'v1', 'adapter');
      await assert.rejects(new Backend('local', guarded.url).load('router@guarded', inside), /failed \(401\)/);
      await assert.rejects(
        new Backend('local', guarded.url, undefined, 60_000, 'admin-token-1').load('router@outside', a.adapter),
        /failed \(403\).*outside the adapter directory/,
      );
      const route = await new Backend('local', guarded.url, undefined, 60_000, 'admin-token-1').load(
        'router@guarded',
        inside,
      );
      assert.equal(route.servedModel, 'router@guarded');
    } finally {
      guarded.run.kill(2000);
      await guarded.run.done.catch(() => undefined);
    }
  });
});
