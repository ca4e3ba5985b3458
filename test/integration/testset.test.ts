/** Export the frozen test set for audit and import the audited one (JSONL and CSV), through the CLI. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { openStore } from '../../core/artifacts/index.js';
import { recordCatalogVersion } from '../../core/catalog/history.js';
import { frozenTestSet, pinTestSet } from '../../core/dataset/testset.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { runCli, tempDir } from '../helpers/fixtures.js';

function row(i: number): RouterRow {
  return {
    id: `row-${i}`,
    domain: 'salesforce',
    entities: [`salesforce:account:${i}`],
    request: `Update account ${i}, "quoted", with a comma`,
    persona: { name: 'sales-rep', scopes: ['sf.read'] },
    tools: ['update_account'],
    target: { tool: 'update_account', arguments: { accountId: `a${i}`, phone: '1' } },
    provenance: { source: 'generated' },
  };
}

async function setup() {
  const dir = tempDir();
  const store = openStore(`file://${join(dir, 'store')}`);
  const catalog = await store.putJson('catalog', { tools: [] });
  await recordCatalogVersion(store, 'audit', catalog);
  const version = `cat-${catalog.sha256.slice(0, 12)}`;
  await pinTestSet(store, 'audit', version, await store.putJsonl('test', [row(1), row(2), row(3)]), 'split');
  const config = join(dir, 'flywheel.yaml');
  writeFileSync(
    config,
    `version: 1\nname: audit\nartifacts: { store: "file://${join(dir, 'store')}" }\nservers: [{ name: s, stdio: { command: node } }]\n`,
  );
  return { dir, store, version, config };
}

describe('test set audit', () => {
  it('round-trips through CSV: approved rows become the frozen set, rejected ones are dropped', async () => {
    const { dir, store, version, config } = await setup();
    const csv = join(dir, 'audit.csv');
    const exp = await runCli(['testset', 'export', '--config', config, '--out', csv]);
    assert.equal(exp.code, 0, exp.stderr);
    const records = parse(readFileSync(csv, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    assert.equal(records.length, 3);
    assert.equal(records[0]!.request, 'Update account 1, "quoted", with a comma');
    records[0]!.approved = 'yes';
    records[1]!.approved = 'no';
    records[2]!.approved = '1';
    writeFileSync(csv, stringify(records, { header: true, columns: Object.keys(records[0]!) }));
    const imp = await runCli(['testset', 'import', csv, '--config', config]);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout, /pinned 2 approved rows \(1 rejected in audit\)/);
    const pinned = await frozenTestSet(store, 'audit', version);
    assert.equal(pinned!.source, 'import');
    assert.deepEqual(
      (await store.readJsonl<RouterRow>(pinned!.ref)).map((r) => r.id),
      ['row-1', 'row-3'],
    );
    assert.deepEqual(await store.readJsonl<RouterRow>(pinned!.ref), [row(1), row(3)], 'rows come back exactly');
  });

  it('round-trips through JSONL and refuses rows without a decision, naming the line', async () => {
    const { dir, config } = await setup();
    const file = join(dir, 'audit.jsonl');
    assert.equal((await runCli(['testset', 'export', '--config', config, '--out', file])).code, 0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[0].approved = true;
    lines[2].approved = false;
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
    const bad = await runCli(['testset', 'import', file, '--config', config]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /line 2: approved must be true or false/);
    lines[1].approved = true;
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
    const ok = await runCli(['testset', 'import', file, '--config', config]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /pinned 2 approved rows \(1 rejected in audit\)/);
    const usage = await runCli(['testset', 'export', '--config', config, '--out', join(dir, 'x.txt')]);
    assert.equal(usage.code, 2);
  });
});
