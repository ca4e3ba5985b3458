/**
 * The openai teacher against a local OpenAI-compatible stand-in (see helpers/openai-stand-in.ts) and
 * validation in the real sandboxes: faults give the same dataset as a clean run, responses are cached.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { parseConfig } from '../../core/config/load.js';
import type { DatasetConfig } from '../../core/config/schema.js';
import { makeTeacher } from '../../core/dataset/teacher/index.js';
import { STYLE_HINTS, TeacherConfigError } from '../../core/dataset/teacher/openai.js';
import type { Intent } from '../../core/dataset/types.js';
import { hashOf } from '../../core/hash.js';
import { tempDir } from '../helpers/fixtures.js';
import { startStandIn, type Fault, type StandIn } from '../helpers/openai-stand-in.js';
import { openSandboxWorld, type SandboxWorld } from '../helpers/sandbox-teacher.js';

let sandboxes: SandboxWorld;
let intents: Intent[];

function datasetConfig(url: string, teacher: Record<string, unknown> = {}, seed = 42): DatasetConfig {
  const cfg = parseConfig({
    version: 1,
    name: 'teacher',
    servers: [{ name: 'x', stdio: { command: 'x' } }],
    dataset: {
      seed,
      perGoal: 1,
      teacher: {
        kind: 'openai',
        baseUrl: url,
        model: 'teacher-model',
        apiKeyEnv: 'FLYWHEEL_TEST_TEACHER_KEY',
        timeoutMs: 1000,
        maxRetries: 4,
        concurrency: 4,
        ...teacher,
      },
    },
  });
  return cfg.dataset!;
}

/** generate -> solve -> validate with the openai teacher; returns the validated rows' hash and stats. */
async function build(url: string, storeDir = tempDir(), teacherConfig: Record<string, unknown> = {}, seed = 42) {
  const dataset = datasetConfig(url, teacherConfig, seed);
  const store = openStore(storeDir);
  const teacher = makeTeacher(dataset.teacher, dataset.seed, { store }, sandboxes.toolsByDomain);
  const drafts = await teacher.generate(intents);
  const candidates = await teacher.solve(intents, drafts);
  const { rows, stats } = await sandboxes.validate(intents, candidates, dataset);
  return { hash: hashOf(rows), rows, stats, teacherStats: teacher.stats!(), storeDir };
}

describe('openai teacher', () => {
  before(async () => {
    process.env.FLYWHEEL_TEST_TEACHER_KEY = 'test-key';
    sandboxes = await openSandboxWorld();
    intents = await sandboxes.intents(datasetConfig('http://unused/v1'));
  });
  after(async () => {
    await sandboxes?.close();
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
      // One intent per drafting request, so the victim (the first request) is one intent's.
      const r = await build(standIn.url, tempDir(), { batchSize: 1 });
      assert.equal(r.teacherStats.malformed, 1);
      assert.equal(r.stats.rejectionsByReason.teacher_malformed, 1);
    } finally {
      await standIn.close();
    }
  });

  it('counts the tokens billed and prices them; sends the seed, which keys the cache', async () => {
    const standIn = await startStandIn();
    try {
      const pricing = { inputPerMillion: 2.5, outputPerMillion: 10 };
      const first = await build(standIn.url, tempDir(), { pricing });
      const s = first.teacherStats;
      // The stand-in bills one prompt and one completion token per answer.
      assert.equal(s.promptTokens, standIn.answered);
      assert.equal(s.completionTokens, standIn.answered);
      assert.equal(s.costUsd, Math.round(standIn.answered * 2.5 + standIn.answered * 10) / 1e6);
      assert.equal(standIn.seeds.size, 1, 'every request carries the one seed of the dataset');
      // Another seed asks anew; the same seed reads the cache.
      const sent = standIn.requests;
      await build(standIn.url, first.storeDir, {}, 43);
      assert.ok(standIn.requests > sent);
      assert.equal(standIn.seeds.size, 2);
      const again = standIn.requests;
      const cached = await build(standIn.url, first.storeDir, {}, 43);
      assert.equal(standIn.requests, again);
      assert.equal(cached.teacherStats.promptTokens, 0, 'a cached answer is not billed again');
      assert.equal(cached.teacherStats.costUsd, undefined, 'no prices, no cost');
    } finally {
      await standIn.close();
    }
  });

  it('drafts several intents per request; a task left out, or a batch that stays malformed, is asked alone: the same rows', async () => {
    const drafting = (s: StandIn) => s.prompts.filter((p) => /^Task 1: /m.test(p)).length;
    const single = await startStandIn();
    const one = await build(single.url, tempDir(), { batchSize: 1 });
    assert.equal(drafting(single), intents.length, 'one drafting request per intent');
    await single.close();
    const batched = await startStandIn();
    const five = await build(batched.url, tempDir(), { batchSize: 5 });
    assert.equal(drafting(batched), Math.ceil(intents.length / 5), 'five intents per drafting request');
    assert.equal(five.hash, one.hash);
    assert.equal(five.teacherStats.askedAlone, 0);
    await batched.close();
    let victim: string | undefined;
    const faulty = await startStandIn((key) => {
      victim ??= key;
      if (key === victim) return 'always-garbage';
      return parseInt(key.slice(0, 4), 16) % 3 === 0 ? 'partial' : undefined;
    });
    try {
      const r = await build(faulty.url, tempDir(), { batchSize: 5 });
      assert.ok((faulty.faultsServed.partial ?? 0) > 0, JSON.stringify(faulty.faultsServed));
      // The first batch's five intents, and the last task of every partial answer, were asked alone.
      assert.ok(r.teacherStats.askedAlone! >= 5 + faulty.faultsServed.partial!, JSON.stringify(r.teacherStats));
      assert.equal(r.teacherStats.malformed, 0, JSON.stringify(r.teacherStats));
      assert.equal(r.hash, one.hash, 'the same validated rows as a clean run');
    } finally {
      await faulty.close();
    }
  });

  it('asks for requests in several styles, by the intent', async () => {
    const standIn = await startStandIn();
    try {
      await build(standIn.url);
      const drafted = standIn.prompts.flatMap((p) => p.split('\n')).filter((l) => l.includes(' will call '));
      const hints = new Set(drafted.map((p) => STYLE_HINTS.find((h) => p.includes(h))));
      assert.ok(!hints.has(undefined), 'every drafting prompt names a style');
      assert.ok(hints.size >= 4, `${hints.size} styles asked for`);
    } finally {
      await standIn.close();
    }
  });

  it('an endpoint that dies mid-run: the run fails, and the rerun asks only for what was not answered', async () => {
    const clean = await startStandIn();
    const whole = await build(clean.url);
    const needed = clean.answered;
    await clean.close();
    const dies = await startStandIn(undefined, 2500, 0, 'test-key', { dieAfter: Math.floor(needed / 2) });
    try {
      const storeDir = tempDir();
      await assert.rejects(build(dies.url, storeDir, { maxRetries: 1 }), /connection/i);
      const beforeDeath = dies.answered;
      assert.equal(beforeDeath, Math.floor(needed / 2));
      // The failed run's other requests in flight fail too, each after one retry 0.5 s later: let them end first.
      await new Promise((r) => setTimeout(r, 2000));
      dies.revive();
      const resumed = await build(dies.url, storeDir);
      assert.equal(dies.answered - beforeDeath, needed - beforeDeath, 'only the unanswered requests are asked');
      assert.equal(resumed.hash, whole.hash, 'the same validated rows as a run that never failed');
    } finally {
      await dies.close();
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
