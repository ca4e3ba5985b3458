/**
 * The openai teacher against a local OpenAI-compatible stand-in (see helpers/openai-stand-in.ts) and
 * validation in the real sandboxes: faults give the same dataset as a clean run, responses are cached.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import type { DatasetConfig, ServerConfig } from '../../core/config/schema.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { buildIntents, validateCandidates } from '../../core/dataset/pipeline.js';
import { makeTeacher } from '../../core/dataset/teacher/index.js';
import { TeacherConfigError } from '../../core/dataset/teacher/openai.js';
import type { Intent } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { hashOf } from '../../core/hash.js';
import { connectServer, type McpConnection } from '../../core/mcp/connect.js';
import { discoverPools } from '../../core/probe/discover.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';
import { REPO, tempDir } from '../helpers/fixtures.js';
import { startStandIn, type Fault } from '../helpers/openai-stand-in.js';
import { sandboxMain } from '../helpers/sandbox.js';

const servers: ServerConfig[] = (['salesforce', 'oracle-ebs'] as const).map((d) => ({
  name: d,
  stdio: { command: process.execPath, args: ['--import', 'tsx', sandboxMain(d)], env: {}, cwd: REPO },
  timeoutMs: 20_000,
}));
const conns = new Map<string, McpConnection>();
let catalog: Catalog;
let intents: Intent[];

function datasetConfig(url: string): DatasetConfig {
  const cfg = parseConfig({
    version: 1,
    name: 'teacher',
    servers: [{ name: 'x', stdio: { command: 'x' } }],
    dataset: {
      perGoal: 1,
      teacher: {
        kind: 'openai',
        baseUrl: url,
        model: 'teacher-model',
        apiKeyEnv: 'FLYWHEEL_TEST_TEACHER_KEY',
        timeoutMs: 1000,
        maxRetries: 4,
        concurrency: 4,
      },
    },
  });
  return cfg.dataset!;
}

/** generate -> solve -> validate with the openai teacher; returns the validated rows' hash and stats. */
async function build(url: string, storeDir = tempDir()) {
  const dataset = datasetConfig(url);
  const store = openStore(storeDir);
  const toolsByDomain = new Map(catalog.servers.map((s) => [s.name, catalog.tools.filter((t) => t.server === s.name)]));
  const teacher = makeTeacher(dataset.teacher, dataset.seed, { store }, toolsByDomain);
  const drafts = await teacher.generate(intents);
  const candidates = await teacher.solve(intents, drafts);
  const { rows, stats } = await validateCandidates(
    intents,
    candidates,
    catalog,
    new CallValidator(catalog, mcpDryRunner(conns)),
    dataset,
  );
  return { hash: hashOf(rows), rows, stats, teacherStats: teacher.stats!(), storeDir };
}

describe('openai teacher', () => {
  before(async () => {
    process.env.FLYWHEEL_TEST_TEACHER_KEY = 'test-key';
    catalog = buildCatalog('t', await Promise.all(servers.map((s) => listServerTools(s, { maxPages: 10 }))));
    for (const s of servers) conns.set(s.name, await connectServer(s));
    const pools = await discoverPools(conns, servers, catalog, DOMAIN_PACKS, 42);
    intents = (await buildIntents(catalog, datasetConfig('http://unused/v1'), pools, DOMAIN_PACKS)).intents;
  });
  after(async () => {
    for (const c of conns.values()) await c.close();
  });

  it('a clean run turns teacher answers into valid rows', async () => {
    const standIn = await startStandIn();
    try {
      const clean = await build(standIn.url);
      assert.ok(clean.stats.valid > intents.length * 0.8, JSON.stringify(clean.stats));
      assert.ok(
        clean.rows.some((r) => r.target.tool === null),
        'abstentions come through',
      );
      assert.equal(clean.teacherStats.malformed, 0);
    } finally {
      await standIn.close();
    }
  });

  it('429, 500, timeouts and garbage JSON give the same dataset as a clean run', async () => {
    const cleanServer = await startStandIn();
    const clean = await build(cleanServer.url);
    await cleanServer.close();
    const faults: Fault[] = ['429', '500', 'hang', 'garbage'];
    const faulty = await startStandIn(
      (key) => (parseInt(key.slice(0, 4), 16) % 3 === 0 ? faults[parseInt(key.slice(4, 6), 16) % 4] : undefined),
      1500,
    );
    try {
      const withFaults = await build(faulty.url);
      for (const f of faults)
        assert.ok(
          (faulty.faultsServed[f] ?? 0) > 0,
          `fault ${f} was exercised: ${JSON.stringify(faulty.faultsServed)}`,
        );
      assert.equal(withFaults.hash, clean.hash, 'same validated rows despite faults');
      assert.ok(withFaults.teacherStats.malformedRetries! > 0);
    } finally {
      await faulty.close();
    }
  });

  it('caches every response in the artifact store: a rerun sends no request', async () => {
    const standIn = await startStandIn();
    try {
      const first = await build(standIn.url);
      const sent = standIn.requests;
      const again = await build(standIn.url, first.storeDir);
      assert.equal(standIn.requests, sent, 'no new requests');
      assert.equal(again.hash, first.hash);
      assert.equal(again.teacherStats.requests, 0);
    } finally {
      await standIn.close();
    }
  });

  it('an answer that stays malformed is a counted rejection, not a crash', async () => {
    let victim: string | undefined;
    const standIn = await startStandIn((key) => {
      victim ??= key;
      return key === victim ? 'always-garbage' : undefined;
    });
    try {
      const r = await build(standIn.url);
      assert.equal(r.teacherStats.malformed, 1);
      assert.equal(r.stats.rejectionsByReason.teacher_malformed, 1);
    } finally {
      await standIn.close();
    }
  });

  it('a missing API key variable fails fast, naming it', () => {
    delete process.env.FLYWHEEL_TEST_TEACHER_KEY_MISSING;
    const dataset = datasetConfig('http://127.0.0.1:9/v1');
    assert.throws(
      () =>
        makeTeacher(
          { ...dataset.teacher, apiKeyEnv: 'FLYWHEEL_TEST_TEACHER_KEY_MISSING' } as DatasetConfig['teacher'],
          1,
          { store: openStore(tempDir()) },
        ),
      (e: Error) => e instanceof TeacherConfigError && /FLYWHEEL_TEST_TEACHER_KEY_MISSING/.test(e.message),
    );
  });
});
