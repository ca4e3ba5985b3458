/**
 * "Your catalog in": flywheelRun through a real dev server on MCP servers this project did not write — the
 * official filesystem and memory servers (npm devDependencies) and the time server (PyPI, in .venv) — plus
 * an awkward fixture server whose schemas cannot be sampled and whose read-only tools hang or throw. The run
 * must build train/val/test where ≥ 90 % of the foreign tools have ≥ minPerTool distinct training rows,
 * every positive validates against its tool's schema, the split is entity-disjoint, and the coverage table
 * names every tool without data and why. A server that cannot list its tools fails the run, named.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import type { Catalog } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import type { ToolCoverage } from '../../core/dataset/coverage.js';
import { entityOverlap } from '../../core/dataset/split.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { DomainPools } from '../../core/probe/types.js';
import { compileSchema } from '../../core/schema/compile.js';
import { coverageTable } from '../../scripts/lib/dataset-report.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { REPO, runCli, tempDir } from '../helpers/fixtures.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';

const MIN_PER_TOOL = 12;

/** A project folder: notes, reports and code files, so reads and searches find real paths. */
function filesFixture(root: string): void {
  const topics = ['budget', 'roadmap', 'hiring', 'vendors', 'security', 'launch', 'pricing', 'support'];
  for (const [i, dir] of ['notes', 'reports', 'src', 'archive/2025'].entries()) {
    mkdirSync(join(root, dir), { recursive: true });
    for (const [j, topic] of topics.entries())
      writeFileSync(
        join(root, dir, `${topic}-${i}${j}.${dir === 'src' ? 'ts' : 'md'}`),
        `# ${topic}\nline one about ${topic}\nline two\n`,
      );
  }
}

/** A knowledge graph in the memory server's JSONL format: people and projects with observations and relations. */
function memoryFixture(file: string): void {
  const people = [
    'Ada Okafor',
    'Bruno Lind',
    'Chen Wei',
    'Dana Petrov',
    'Elif Kaya',
    'Femi Adeyemi',
    'Greta Holm',
    'Hiro Sato',
    'Ines Duarte',
    'Jonas Berg',
    'Kofi Mensah',
    'Lena Novak',
    'Mateo Ruiz',
    'Nadia Haddad',
    'Oskar Nilsson',
    'Priya Nair',
    'Quinn Byrne',
    'Rosa Marin',
    'Sami Laine',
    'Tara Singh',
  ];
  const projects = [
    'Apollo',
    'Borealis',
    'Cobalt',
    'Delta Wing',
    'Ember',
    'Fjord',
    'Granite',
    'Halo',
    'Iris',
    'Juniper',
  ];
  const lines = [
    ...people.map((name, i) => ({
      type: 'entity',
      name,
      entityType: 'person',
      observations: [`works on ${projects[i % projects.length]}`, `based in office ${i + 1}`],
    })),
    ...projects.map((name, i) => ({
      type: 'entity',
      name,
      entityType: 'project',
      observations: [`started in ${2020 + (i % 5)}`],
    })),
    ...people.map((name, i) => ({
      type: 'relation',
      from: name,
      to: projects[i % projects.length],
      relationType: 'works_on',
    })),
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

describe('any MCP catalog: a router dataset for servers this project never saw', () => {
  let flywheel: Flywheel;
  let work: string;
  before(async () => {
    flywheel = await startFlywheel();
    work = tempDir();
  });
  after(async () => {
    await flywheel?.stop();
  });

  it(
    'builds train/val/test covering the foreign tools, with a coverage table naming the gaps',
    { timeout: 600_000 },
    async (t) => {
      const files = join(work, 'files');
      filesFixture(files);
      memoryFixture(join(work, 'memory.jsonl'));
      const config = parseConfig(
        {
          version: 1,
          name: 'foreign-servers',
          artifacts: { store: `file://${join(work, 'artifacts')}` },
          servers: [
            {
              name: 'files',
              stdio: {
                command: process.execPath,
                args: [join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), files],
              },
            },
            {
              name: 'memory',
              stdio: {
                command: process.execPath,
                args: [join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
                env: { MEMORY_FILE_PATH: join(work, 'memory.jsonl') },
              },
            },
            {
              name: 'clock',
              stdio: { command: join(REPO, '.venv/bin/mcp-server-time'), args: ['--local-timezone', 'Europe/Lisbon'] },
            },
            {
              name: 'warehouse',
              stdio: {
                command: process.execPath,
                args: ['--import', 'tsx', join(REPO, 'test/fixtures/mcp-awkward-server.ts')],
                cwd: REPO,
              },
              probe: { callTimeoutMs: 500, callsPerTool: 2 },
            },
          ],
          dataset: { seed: 3, minPerTool: MIN_PER_TOOL, perGoal: 12 },
        },
        'foreign-servers.yaml',
      );
      const { handle } = await startRun(flywheel.env.client, config, { config, trigger: 'test' });
      const progress = await runResult(handle);
      assert.equal(progress.state, 'completed');
      const status = await runStatus(handle);
      const out = (stage: string, name: string) => status.stages.find((s) => s.name === stage)!.outputs[name]!;
      const store = openStore(config.artifacts.store);
      const catalog = await store.readJson<Catalog>(out('ingest', 'catalog'));
      const [train, val, test] = (await Promise.all(
        ['train', 'val', 'test'].map((n) => store.readJsonl<RouterRow>(out('split', n))),
      )) as [RouterRow[], RouterRow[], RouterRow[]];

      // ≥ 90 % of the foreign servers' tools have ≥ minPerTool distinct (request, arguments) training rows.
      const foreign = catalog.tools.filter((t) => t.server !== 'warehouse');
      assert.ok(foreign.length >= 25, `expected the three servers' tools, got ${foreign.length}`);
      const distinct = new Map<string, Set<string>>();
      for (const r of train)
        if (r.target.tool !== null) {
          const key = `${r.domain}/${r.target.tool}`;
          distinct.set(key, (distinct.get(key) ?? new Set()).add(JSON.stringify([r.request, r.target.arguments])));
        }
      const thin = foreign
        .filter((t) => (distinct.get(t.id)?.size ?? 0) < MIN_PER_TOOL)
        .map((t) => `${t.id} ${distinct.get(t.id)?.size ?? 0}`);
      assert.ok(
        thin.length <= foreign.length * 0.1,
        `tools under ${MIN_PER_TOOL} distinct training rows: ${thin.join(', ')}`,
      );

      // Every positive target validates against its tool's schema; the split is entity-disjoint.
      const byId = new Map(catalog.tools.map((t) => [t.id, compileSchema(t.inputSchema)]));
      for (const r of [...train, ...val, ...test]) {
        if (r.target.tool === null) continue;
        const v = byId.get(`${r.domain}/${r.target.tool}`);
        assert.ok(
          v?.ok && v.validate(r.target.arguments),
          `${r.id}: ${r.target.tool}(${JSON.stringify(r.target.arguments)}) fails its schema`,
        );
      }
      assert.deepEqual(entityOverlap({ train, val, test }), []);
      for (const split of [train, val, test])
        assert.ok(split.some((r) => r.target.tool === null) && split.some((r) => r.target.tool !== null));

      // Requests name real things the probe found (files under the fixture folder, people in the graph).
      const requests = train
        .filter((r) => r.target.tool !== null)
        .map((r) => r.request)
        .join('\n');
      assert.match(requests, new RegExp(files.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.match(requests, /Ada Okafor|Bruno Lind|Chen Wei|Dana Petrov|Elif Kaya/);

      // Reads were executed against the servers; writes were checked against the schema only.
      const validated = await store.manifest(out('validate', 'validated').sha256);
      const coverage = validated.stats.coverage as ToolCoverage[];
      // The table in the test log, as `flywheel dataset stats` prints it.
      const trainStats = await store.manifest(out('split', 'train').sha256);
      for (const line of coverageTable(coverage, trainStats.stats.distinctByTool as Record<string, number>).split('\n'))
        t.diagnostic(line);
      const row = (id: string) => coverage.find((c) => c.tool === id)!;
      assert.ok((row('files/read_text_file').checkedBy.execute ?? 0) > 0, JSON.stringify(row('files/read_text_file')));
      assert.ok(
        (row('memory/create_entities').checkedBy.schema ?? 0) > 0 && !row('memory/create_entities').checkedBy.execute,
      );
      assert.ok((row('clock/convert_time').checkedBy.execute ?? 0) > 0, JSON.stringify(row('clock/convert_time')));

      // The awkward server: unsampleable schemas are named, the hanging and throwing tools are named by their
      // probe and fall back to schema sampling, the well-behaved ones get data.
      assert.match(row('warehouse/lookup_code').noData ?? '', /cannot sample arguments: .*pattern/);
      assert.match(row('warehouse/walk_tree').noData ?? '', /cannot sample arguments: .*(cycl|\$ref)/);
      assert.match(row('warehouse/set_range').noData ?? '', /cannot sample arguments: .*(minimum|maximum|bound)/);
      assert.match(row('warehouse/stock_level').probe ?? '', /failed: no answer within 500 ms/);
      assert.match(row('warehouse/audit_log').probe ?? '', /failed: .*audit store is corrupt/);
      assert.ok(
        row('warehouse/stock_level').intents > 0 && row('warehouse/audit_log').intents > 0,
        'probe failures fall back to schema sampling',
      );
      assert.ok(row('warehouse/get_item').valid > 0, JSON.stringify(row('warehouse/get_item')));
      const pools = await store.readJson<Record<string, DomainPools>>(out('intents', 'pools'));
      const fromList = pools.warehouse!.harvested['items[].id']?.find((v) => v.value === 'itm-1000');
      assert.ok(fromList?.tool === 'list_items', 'pool values carry the tool that produced them');
      const listProbe = pools.warehouse!.probes.find((p) => p.tool === 'list_items')!;
      assert.deepEqual(listProbe.args![fromList.call - 1], {}, '...and the call, whose arguments the probe records');
      for (const c of coverage) if (c.valid === 0) assert.ok(c.noData, `${c.tool} has no data and no reason`);

      // `flywheel dataset stats` prints the same table, gaps and reasons included.
      const cli = await runCli(['dataset', 'stats', (await handle.describe()).runId], {
        TEMPORAL_ADDRESS: flywheel.env.address,
      });
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /coverage: 27\/32 tools have data \(0 from packs, 27 generic\)/);
      assert.match(cli.stdout, /^calls checked by: execute \d+, dry-run 0, schema \d+$/m);
      assert.match(cli.stdout, /^warehouse\/walk_tree +generic +0 +0 +0 .*cannot sample arguments/m);
      assert.match(cli.stdout, /^memory\/create_entities +generic +\d+ +\d+ +\d+ +schema \d+ /m);
    },
  );

  it('a server that cannot list its tools fails the run, naming it', { timeout: 120_000 }, async () => {
    const config = parseConfig(
      {
        version: 1,
        name: 'foreign-ghost',
        artifacts: { store: `file://${join(work, 'artifacts-ghost')}` },
        servers: [{ name: 'ghost', stdio: { command: '/nonexistent/mcp-server' } }],
        dataset: {},
      },
      'ghost.yaml',
    );
    const { handle } = await startRun(flywheel.env.client, config, { config, trigger: 'test' });
    await assert.rejects(handle.result());
    const status = await runStatus(handle);
    assert.match(status.stages.find((s) => s.name === 'ingest')!.detail, /MCP server "ghost": failed to start/);
  });
});
