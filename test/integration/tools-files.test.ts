/**
 * Catalogs from tool files, through flywheelRun on a real dev server: an OpenAI tools array (a travel agent's,
 * with a name OpenAI's API refuses, `uber.ride`), a `tools/list` dump the MCP SDK's client wrote from a real
 * server (the official memory server), and BFCL's own `live_simple` questions from bfcl-eval (in the judge's venv,
 * .venv-bfcl). One run ingests all three, builds a dataset checked against the schemas only, trains the tiny model
 * and evaluates it; changing a file's bytes gives a new catalog version and a diff.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openStore } from '../../core/artifacts/index.js';
import type { Catalog, CatalogDiff } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { coverageSummary, type ToolCoverage } from '../../core/dataset/coverage.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { EvalReport } from '../../core/eval/types.js';
import { renderMarkdown } from '../../core/eval/report-markdown.js';
import { datasetReport } from '../../scripts/lib/dataset-report.js';
import { runStatus, startRun } from '../../scripts/lib/runs.js';
import { REPO, TINY_OPTIM, tempDir } from '../helpers/fixtures.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';

/** bfcl-eval's data, where the judge's venv has it. */
async function bfclData(file: string): Promise<string> {
  return join((await locateBfcl()).dataDir, file);
}

/** What `tools/list` answers, as the MCP SDK's client parses it, written to a file. */
async function dumpToolsList(file: string): Promise<void> {
  const client = new Client({ name: 'dump', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
      env: { PATH: process.env.PATH ?? '', MEMORY_FILE_PATH: `${file}.memory.jsonl` },
    }),
  );
  try {
    writeFileSync(file, JSON.stringify(await client.listTools(), null, 2));
  } finally {
    await client.close();
  }
}

describe('catalogs from tool files: OpenAI tools, a tools/list dump, BFCL function docs', () => {
  let flywheel: Flywheel;
  let work: string;
  let travel: string;
  let memory: string;
  let bfcl: string;
  before(async () => {
    bfcl = await bfclData('BFCL_v4_live_simple.json');
    flywheel = await startFlywheel();
    work = tempDir('flywheel-tools-files-');
    travel = join(work, 'travel-agent.json');
    copyFileSync(join(REPO, 'test/fixtures/tools/travel-agent.openai.json'), travel);
    memory = join(work, 'memory-tools.json');
    await dumpToolsList(memory);
  });
  after(async () => {
    await flywheel?.stop();
  });

  it(
    'one run over the three formats: ingest, dataset by schema, tiny training, evaluation',
    { timeout: 900_000 },
    async (t) => {
      const config = parseConfig(
        {
          version: 1,
          name: 'tools-files',
          artifacts: { store: `file://${join(work, 'artifacts')}` },
          servers: [
            { name: 'travel', tools: travel },
            { name: 'memory', tools: memory },
            { name: 'bfcl', tools: bfcl },
          ],
          dataset: { seed: 11, perGoal: 4, minPerTool: 4, split: { train: 0.7, val: 0.1, test: 0.2 } },
          train: {
            job: { baseModel: 'tiny:nano', optim: { ...TINY_OPTIM, maxSteps: 12 }, checkpointEvery: 12, logEvery: 4 },
          },
          evaluate: {
            limit: 8,
            concurrency: 2,
            bootstrap: { resamples: 100, seed: 7 },
            bfcl: { categories: ['live_simple', 'irrelevance'], limit: 3 },
          },
        },
        'tools-files.yaml',
      );
      const { handle } = await startRun(flywheel.env.client, config, { config, trigger: 'test' });
      const progress = await runResult(handle);
      assert.equal(progress.state, 'completed');
      const status = await runStatus(handle);
      const stage = (name: string) => status.stages.find((s) => s.name === name)!;
      const out = (name: string, output: string) => stage(name).outputs[output]!;
      const store = openStore(config.artifacts.store);

      // Ingest: each file's format detected and reported; BFCL's 258 questions give their distinct functions.
      const catalog = await store.readJson<Catalog>(out('ingest', 'catalog'));
      t.diagnostic(`ingest: ${stage('ingest').detail}`);
      assert.deepEqual(Object.fromEntries(catalog.servers.map((s) => [s.name, s.toolsFile?.format])), {
        bfcl: 'bfcl-questions',
        memory: 'mcp-tools-list',
        travel: 'openai-tools',
      });
      const stats = (await store.manifest(out('ingest', 'catalog').sha256)).stats;
      assert.deepEqual(stats.toolsFiles, { bfcl: 'bfcl-questions', memory: 'mcp-tools-list', travel: 'openai-tools' });
      assert.match(stage('ingest').detail, /^cat-[0-9a-f]{12}: \d+ tools, 0 quarantined \(bfcl from a bfcl-questions/);
      assert.deepEqual(catalog.quarantined, []);
      const count = (server: string) => catalog.tools.filter((x) => x.server === server).length;
      assert.equal(count('travel'), 6);
      assert.ok(count('memory') >= 9, `memory server tools: ${count('memory')}`);
      const distinctNames = new Set(
        readFileSync(bfcl, 'utf8')
          .trim()
          .split('\n')
          .flatMap((l) => (JSON.parse(l) as { function: Array<{ name: string }> }).function.map((f) => f.name)),
      );
      assert.ok(count('bfcl') >= distinctNames.size, `${count('bfcl')} tools for ${distinctNames.size} names`);
      const diff = await store.readJson<CatalogDiff>(out('ingest', 'catalogDiff'));
      assert.equal(diff.from, null);
      assert.equal(diff.added.length, catalog.tools.length);

      // The dataset: rows for tools of every file, names MCP allows kept, every call checked by schema only.
      const train = await store.readJsonl<RouterRow>(out('split', 'train'));
      const called = new Set(train.flatMap((r) => (r.target.tool ? [`${r.domain}/${r.target.tool}`] : [])));
      for (const server of ['travel', 'memory', 'bfcl'])
        assert.ok(
          [...called].some((id) => id.startsWith(`${server}/`)),
          `no training call for ${server}`,
        );
      assert.ok(called.has('travel/uber.ride'), 'the dotted name is trained as it is');
      const coverage = (await store.manifest(out('validate', 'validated').sha256)).stats.coverage as ToolCoverage[];
      t.diagnostic(`coverage: ${coverageSummary(coverage)}; training rows ${train.length}`);
      for (const c of coverage) {
        assert.equal(c.checkedBy.execute ?? 0, 0, `${c.tool} was called`);
        assert.equal(c.checkedBy['dry-run'] ?? 0, 0, `${c.tool} was dry-run`);
      }
      assert.ok(coverage.some((c) => (c.checkedBy.schema ?? 0) > 0));

      // Training and evaluation ran on it.
      assert.equal(stage('train').state, 'completed', stage('train').detail);
      const report = await store.readJson<EvalReport>(out('evaluate', 'evalResults'));
      const candidate = report.results.find((r) => r.label === 'candidate')!;
      assert.equal(candidate.cases.length, 8);
      // The tiny model's answers are noise; what matters is that every case was asked and scored.
      assert.ok(
        candidate.cases.every((c) => typeof c.exact === 'boolean' && c.outcome),
        JSON.stringify(candidate.cases[0]),
      );

      // evaluate.bfcl: the candidate and its base (no production yet) judged by BFCL's checker beside the test set.
      assert.deepEqual(
        report.bfcl?.map((e) => [e.label, e.categories.map((c) => `${c.category}:${c.n}`)]),
        [
          ['candidate', ['live_simple:3', 'irrelevance:3']],
          ['base', ['live_simple:3', 'irrelevance:3']],
        ],
      );
      for (const c of report.bfcl!.flatMap((e) => e.categories.flatMap((x) => x.cases)))
        assert.equal(typeof c.bfcl.valid, 'boolean', JSON.stringify(c.bfcl));
      // live_simple's functions are in this run's catalog: offered under its names, judged under BFCL's.
      const bfclCalls = report.bfcl!.flatMap((e) =>
        e.categories[0]!.cases.flatMap((c) =>
          Array.isArray(c.bfcl.output) ? c.bfcl.output.map((call) => Object.keys(call)[0]!) : [],
        ),
      );
      for (const name of bfclCalls) assert.ok(!/__\d+$/.test(name), `${name} is judged under BFCL's own name`);
      assert.match(renderMarkdown(report), /## BFCL \(judged by BFCL's own checker; not gated on\)/);
      // The stage's whole detail is in the run's result (the memo keeps 72 characters of it).
      const evaluated = progress.stages.find((s) => s.name === 'evaluate')!;
      assert.match(evaluated.detail, /; BFCL candidate live_simple [\d.]+, irrelevance [\d.]+/);
    },
  );

  it('a changed file is a new catalog version, and the diff names what changed', { timeout: 180_000 }, async () => {
    const ingestOnly = (name: string) =>
      parseConfig({
        version: 1,
        name: 'tools-files-diff',
        artifacts: { store: `file://${join(work, 'artifacts-diff')}` },
        servers: [{ name: 'travel', tools: name }],
      });
    const file = join(work, 'travel-v2.json');
    copyFileSync(travel, file);
    const run = async () => {
      const { handle } = await startRun(flywheel.env.client, ingestOnly(file), {
        config: ingestOnly(file),
        trigger: 'test',
      });
      assert.equal((await runResult(handle)).state, 'completed');
      return runStatus(handle);
    };
    const first = await run();
    const tools = JSON.parse(readFileSync(file, 'utf8')) as Array<{ function: { name: string; description: string } }>;
    tools[2]!.function.description = 'Get the current weather and the next hours for a city.';
    writeFileSync(file, JSON.stringify(tools.slice(0, 5)));
    const second = await run();
    const ref = (s: typeof first, o: string) => s.stages.find((x) => x.name === 'ingest')!.outputs[o]!;
    assert.notEqual(ref(first, 'catalog').sha256, ref(second, 'catalog').sha256);
    const store = openStore(`file://${join(work, 'artifacts-diff')}`);
    const diff = await store.readJson<CatalogDiff>(ref(second, 'catalogDiff'));
    assert.deepEqual(diff.removed, ['travel/cancel_booking']);
    assert.deepEqual(
      diff.changed.map((c) => c.id),
      ['travel/get_weather'],
    );
  });

  it(
    'dataset.phrasing: natural phrases requests by what the tools do; dataset stats prints the style mix and the cap',
    {
      timeout: 300_000,
    },
    async () => {
      const fixture = (f: string) => join(REPO, 'test', 'fixtures', 'tools', f);
      const config = parseConfig(
        {
          version: 1,
          name: 'tools-files-natural',
          artifacts: { store: `file://${join(work, 'artifacts-natural')}` },
          servers: [
            { name: 'git', tools: fixture('git.tools-list.json') },
            { name: 'sqlite', tools: fixture('sqlite.tools-list.json') },
          ],
          dataset: { seed: 3, perGoal: 4, minPerTool: 6, maxPerTool: 6, phrasing: 'natural' },
        },
        'tools-files-natural.yaml',
      );
      const { handle } = await startRun(flywheel.env.client, config, { config, trigger: 'test' });
      assert.equal((await runResult(handle)).state, 'completed');
      const status = await runStatus(handle);
      const store = openStore(config.artifacts.store);
      const train = status.stages.find((s) => s.name === 'split')!.outputs.train!;
      const byStyle = (await store.manifest(train.sha256)).stats.byStyle as Record<string, number>;
      for (const style of ['command', 'question', 'indirect', 'terse', 'values-first', 'aside', 'clarify', 'described'])
        assert.ok((byStyle[style] ?? 0) > 0, `no ${style} rows: ${JSON.stringify(byStyle)}`);
      const rows = await store.readJsonl<RouterRow>(train);
      const clarified = rows.find((r) => r.provenance.style === 'clarify' && r.target.tool !== null)!;
      assert.equal(clarified.messages!.at(-2)!.role, 'assistant', 'the assistant asked for the value');
      const report = (await datasetReport(store, status))!;
      assert.match(report, /request styles \(train\): \w[\w-]* \d+ \(\d+ %\)/);
      // The cap is said where the run is reported (the demo prints this report).
      const cap = (await store.manifest(train.sha256)).stats.cap as { droppedCalls: number };
      assert.ok(cap.droppedCalls > 0, 'perGoal 4 makes more than 6 calls for some tool');
      assert.match(
        report,
        new RegExp(`train split capped at 6 calls per tool: ${cap.droppedCalls} calls and \\d+ no-calls left out`),
      );
    },
  );
});
