/** `flywheel lineage` over a real file artifact store whose manifests name their parents. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { LineageGraph, renderTree } from '../../core/lineage.js';
import { main } from '../../scripts/cli.js';
import { tempDir } from '../helpers/fixtures.js';

describe('lineage', () => {
  it('walks from an adapter up to the catalog and down to its eval report and deployment', async () => {
    const dir = tempDir('flywheel-lineage-');
    const store = openStore(`file://${join(dir, 'artifacts')}`);
    const catalog = await store.putJson('catalog', { tools: [] }, { stats: { version: 'cat-1' } });
    const train = await store.putJsonl('train', [{ id: 1 }], { parents: [catalog], stats: { rows: 1 } });
    const test = await store.putJsonl('test', [{ id: 2 }], { parents: [catalog] });
    const renderedTrain = await store.putJsonl('rendered-train', [{ id: 1, r: 1 }], { parents: [train, catalog] });
    const renderedTest = await store.putJsonl('rendered-test', [{ id: 2, r: 1 }], { parents: [test, catalog] });
    const adapter = await store.putJson(
      'adapter',
      { w: 1 },
      { parents: [renderedTrain], stats: { adapterVersion: 'adp-000000000001' } },
    );
    const results = await store.putJson('eval-results', { r: 1 }, { parents: [renderedTest, adapter] });
    const report = await store.putJson('eval-report', { r: 2 }, { parents: [results], stats: { promote: true } });
    const deployment = await store.putJson('deployment', { d: 1 }, { parents: [adapter, report] });

    const graph = new LineageGraph(await store.list());
    assert.deepEqual(
      graph.adaptersOf('adp-000000000001').map((m) => m.sha256),
      [adapter.sha256],
    );
    const up = renderTree(graph.upstream(adapter.sha256));
    assert.deepEqual(
      up.map((l) => l.trim().split(' ')[0]),
      ['adapter', 'rendered-train', 'train', 'catalog'],
      'each ancestor once',
    );
    const down = renderTree(graph.downstream(adapter.sha256)).join('\n');
    assert.match(
      down,
      new RegExp(
        `eval-results ${results.sha256.slice(0, 12)}.*also from rendered-test ${renderedTest.sha256.slice(0, 12)}`,
      ),
    );
    assert.match(down, new RegExp(`eval-report ${report.sha256.slice(0, 12)} \\(1\\) — promote true`));
    assert.match(down, new RegExp(`deployment ${deployment.sha256.slice(0, 12)}`));

    // The CLI: by adapter version, as JSON (no registry file: no deployments section).
    const lines: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    const errors = console.error;
    process.stdout.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    console.error = () => undefined;
    try {
      assert.equal(
        await main([
          'lineage',
          'adp-000000000001',
          '--store',
          `file://${join(dir, 'artifacts')}`,
          '--registry',
          join(dir, 'none.sqlite'),
          '--json',
        ]),
        0,
      );
      assert.equal(await main(['lineage', 'adp-ffffffffffff', '--store', `file://${join(dir, 'artifacts')}`]), 2);
    } finally {
      process.stdout.write = original;
      console.error = errors;
    }
    const out = JSON.parse(lines[0]!) as {
      artifacts: Array<{ madeFrom: { kind: string }; madeInto: { children: Array<{ kind: string }> } }>;
      deployments: unknown[];
    };
    assert.equal(out.artifacts[0]!.madeFrom.kind, 'adapter');
    assert.deepEqual(out.artifacts[0]!.madeInto.children.map((c) => c.kind).sort(), ['deployment', 'eval-results']);
    assert.deepEqual(out.deployments, []);
  });
});
