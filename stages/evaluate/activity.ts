import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import type { ArtifactStore } from '../../core/artifacts/store.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { EvaluateConfig, TeacherConfig } from '../../core/config/schema.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import type { Catalog } from '../../core/catalog/types.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { retrieverRecall } from '../../core/retrieve/recall.js';
import { casesFrom, sampleCases } from '../../core/eval/cases.js';
import { baseScoresKey } from '../../core/eval/base-scores.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import { lossCurve } from '../../core/eval/loss-curve.js';
import { calibrationOf } from '../../core/eval/calibration.js';
import type { EndpointResult, EvalCase, EvalReport } from '../../core/eval/types.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { startServe } from '../../core/train/serve-process.js';
import { whileBeating } from '../../activities/heartbeat.js';
import { workRoot } from '../../activities/trainer.js';
import { runChunk, runStage } from '../../activities/stage.js';
import type { EvaluateArgs } from './spec.js';
import type { ChunkRange } from '../../core/pipeline/chunks.js';
import { mergeEndpointResults } from '../../core/eval/merge.js';
import { bfclGroups, scoreBfcl, type BfclScore } from '../../core/eval/bfcl/index.js';

/**
 * Score the candidate (served from a private `serve` process on this GPU worker), the production version (on
 * its backend) and, when it is an endpoint, the teacher — all on the same frozen test cases. Output: the
 * `eval-results` document (an EvalReport without the gate's decision).
 */
export async function evaluate(a: EvaluateArgs): Promise<StageOutcome> {
  const teacher = teacherSpec(a.teacher, a.evaluate);
  return runStage(
    a,
    'evaluate',
    (store) =>
      whileBeating(async () => {
        const { testRows, catalog, all, cases } = await evalCases(store, a);
        const bfcl: BfclScore[] = [];
        const results = a.parts
          ? await mergeParts(store, a.parts, a.evaluate, teacher)
          : await scoreAll(store, a, cases, teacher, catalog, bfcl);
        const report: EvalReport = {
          createdAt: new Date().toISOString(),
          testSet: {
            sha256: a.renderedTest.sha256,
            cases: cases.length,
            source:
              cases.length < all.length
                ? `a stratified sample (seed ${a.evaluate.sampleSeed}) of ${cases.length} of the frozen test set's ${all.length} cases`
                : 'frozen test set',
          },
          bootstrap: a.evaluate.bootstrap,
          results,
          ...(a.trainMetrics ? { trainingCurve: lossCurve((await store.read(a.trainMetrics)).toString('utf8')) } : {}),
          ...(catalog ? { retriever: testSetRecall(testRows, catalog.tools) } : {}),
          ...(bfcl.length ? { bfcl } : {}),
        };
        const candidate = results.find((r) => r.label === 'candidate');
        const calibration = candidate && calibrationOf(candidate.cases, a.evaluate.calibration);
        if (calibration) report.calibration = calibration;
        const ref = await store.putJson('eval-results', report, {
          parents: [a.renderedTest, a.adapter],
          stats: { cases: cases.length, endpoints: results.map((r) => r.label) },
        });
        const skipped = a.evaluate.teacher && !teacher ? '; teacher not scored (built-in template teacher)' : '';
        return {
          outputs: { evalResults: ref },
          summary: `${cases.length} cases: ${results.map((r) => `${r.label} ${fmt(r.metrics.exactMatch.value)}`).join(', ')} exact${skipped}${bfclSummary(bfcl)}`,
        };
      }),
    teacherKey(teacher),
  );
}

/**
 * The cases `[from, to)` of an evaluation in chunks, on any GPU worker: every endpoint scored on them as the whole
 * stage would (the candidate from this worker's own `serve`), written as an `eval-results-part` the stage merges.
 */
export async function evaluateChunk(a: EvaluateArgs & ChunkRange): Promise<StageOutcome> {
  const teacher = teacherSpec(a.teacher, a.evaluate);
  return runChunk(
    a,
    'evaluate',
    { from: a.from, to: a.to },
    (store) =>
      whileBeating(async () => {
        const cases = (await evalCases(store, a)).cases.slice(a.from, a.to);
        const results = await scoreAll(store, a, cases, teacher);
        const part = await store.putJson('eval-results-part', results, {
          parents: [a.renderedTest, a.adapter],
          stats: { cases: cases.length, from: a.from, to: a.to },
        });
        return {
          outputs: { evalPart: part },
          summary: `cases ${a.from}-${a.to}: ${results.map((r) => `${r.label} ${fmt(r.metrics.exactMatch.value)}`).join(', ')} exact`,
        };
      }),
    teacherKey(teacher),
  );
}

/** The teacher's endpoint keys the memo too: its answers change with it, and it is not in the table's config key. */
function teacherKey(teacher: EndpointSpec | undefined) {
  return { key: { teacher: teacher ? { baseUrl: teacher.baseUrl, model: teacher.model } : null } };
}

/** The frozen test set's cases, and the seeded sample of them this evaluation scores. */
async function evalCases(store: ArtifactStore, a: EvaluateArgs) {
  const testRows = await store.readJsonl<RouterRow>(a.test);
  const catalog = a.catalog ? await store.readJson<Catalog>(a.catalog) : undefined;
  const all = casesFrom(
    await store.readJsonl<RenderedRow>(a.renderedTest),
    testRows,
    `test set ${a.renderedTest.sha256.slice(0, 12)}`,
    catalog,
  );
  return { testRows, catalog, all, cases: sampleCases(all, a.evaluate.limit, a.evaluate.sampleSeed) };
}

/**
 * Every endpoint on these cases: the candidate (and the base before a first deploy), production, the teacher.
 * With evaluate.bfcl and `bfcl` to fill, the candidate's server also answers BFCL's questions.
 */
async function scoreAll(
  store: ArtifactStore,
  a: EvaluateArgs,
  cases: EvalCase[],
  teacher: EndpointSpec | undefined,
  catalog?: Catalog,
  bfcl?: BfclScore[],
): Promise<EndpointResult[]> {
  const results = await evaluateCandidate(
    store,
    a,
    cases,
    bfcl && a.evaluate.bfcl ? { catalog, out: bfcl } : undefined,
  );
  if (a.production)
    results.push(
      await score(
        cases,
        {
          label: 'production',
          baseUrl: a.production.endpoint,
          model: a.production.servedModel,
          ...(a.production.adapterId ? { adapterId: a.production.adapterId } : {}),
          cost: a.evaluate.cost,
          // Asked as the candidate is (and as the gateway asks every backend), so latency and cost compare alike.
          logprobs: true,
        },
        a.evaluate,
      ),
    );
  if (teacher) results.push(await score(cases, teacher, a.evaluate));
  return results;
}

/** The chunks' results, endpoint by endpoint, as one evaluation of all their cases (core/eval/merge.ts). */
async function mergeParts(
  store: ArtifactStore,
  parts: Array<Record<string, ArtifactRef>>,
  cfg: EvaluateConfig,
  teacher: EndpointSpec | undefined,
): Promise<EndpointResult[]> {
  const chunks: EndpointResult[][] = [];
  for (const part of parts) {
    if (!part.evalPart) throw new Error('a chunk of this evaluation has no evalPart output');
    chunks.push(await store.readJson<EndpointResult[]>(part.evalPart));
  }
  return mergeEndpointResults(chunks, {
    bootstrap: cfg.bootstrap,
    costOf: (label) => (label === 'teacher' ? (teacher?.cost ?? cfg.teacherCost) : cfg.cost),
  });
}

/** Recall at 1, at the test rows' slice size (what a rendering gateway offers by default) and at 8. */
function testSetRecall(rows: RouterRow[], tools: Catalog['tools']) {
  const sliceSize = Math.max(1, ...rows.map((r) => r.tools.length));
  return retrieverRecall(
    rows,
    tools,
    [...new Set([1, sliceSize, 8])].sort((x, y) => x - y),
  );
}

function fmt(x: number | null): string {
  return x === null ? '—' : x.toFixed(3);
}

/**
 * Serve the candidate adapter on this worker for the length of the evaluation. Before the first deploy (no
 * production), the same server's base model stands in for production: a candidate must beat what it was
 * trained from. Base scores are memoised by base and cases, so a retrain on an unchanged test set skips them.
 */
async function evaluateCandidate(
  store: ArtifactStore,
  a: EvaluateArgs,
  cases: EvalCase[],
  bfcl?: { catalog: Catalog | undefined; out: BfclScore[] },
): Promise<EndpointResult[]> {
  // Chunks of one evaluation may run at once on workers sharing this host's work root: each gets its own directory.
  const chunk = a as Partial<ChunkRange>;
  const range = chunk.from !== undefined ? `-${chunk.from}-${chunk.to}` : '';
  const work = resolve(workRoot(), `eval-${a.adapterVersion}${range}-${Context.current().info.attempt}`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    await store.materializeDir(a.adapter, join(work, 'adapter-dir'));
    const adapterDir = join(work, 'adapter-dir', 'adapter');
    const served = await startServe(['--adapter', `${a.adapterVersion}=${adapterDir}`], join(work, 'serve.log'));
    try {
      const results = [
        await score(
          cases,
          // Its logprobs give each decision's confidence, for the report's calibration; production is asked too.
          {
            label: 'candidate',
            baseUrl: served.url,
            model: a.adapterVersion,
            cost: a.evaluate.cost,
            logprobs: true,
            confidence: a.evaluate.calibration.confidence,
          },
          a.evaluate,
        ),
      ];
      if (!a.production && a.evaluate.scoreBase)
        results.push(await scoreBase(store, await baseOf(adapterDir), served.url, cases, a));
      if (bfcl) bfcl.out.push(...(await scoreOnBfcl(a, served.url, bfcl.catalog)));
      return results;
    } catch (err) {
      const log = await readFile(join(work, 'serve.log'), 'utf8').catch(() => '');
      throw new Error(`${(err as Error).message}\nserve log tail:\n${log.slice(-1500)}`);
    } finally {
      served.run.kill(2000);
      await served.run.done.catch(() => undefined);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The base model an adapter was trained on, as its flywheel.json records it. */
async function baseOf(adapterDir: string): Promise<string> {
  const meta = JSON.parse(await readFile(join(adapterDir, 'flywheel.json'), 'utf8').catch(() => '{}')) as {
    base?: string;
  };
  return meta.base ?? 'unknown';
}

/** The base (served by the candidate's server as "base") scored in production's place, from the memo when it has it. */
async function scoreBase(
  store: ArtifactStore,
  base: string,
  url: string,
  cases: EvalCase[],
  a: EvaluateArgs,
): Promise<EndpointResult> {
  const key = baseScoresKey(
    base,
    a.renderedTest.sha256,
    cases.map((c) => c.id),
    a.evaluate,
  );
  const memo = key ? await store.getPointer<EndpointResult>(key) : undefined;
  if (memo) return memo;
  const result = {
    ...(await score(
      cases,
      { label: 'production', baseUrl: url, model: 'base', cost: a.evaluate.cost, logprobs: true },
      a.evaluate,
    )),
    model: `base ${base}`,
  };
  if (key) await store.putPointer(key, result);
  return result;
}

/**
 * The candidate, and before a first deploy its base, on BFCL's questions (evaluate.bfcl), judged by BFCL's own
 * checker. A function the run's catalog holds is offered under its name there; any other under its own.
 */
async function scoreOnBfcl(a: EvaluateArgs, url: string, catalog: Catalog | undefined): Promise<BfclScore[]> {
  const cfg = a.evaluate.bfcl!;
  const ctx = Context.current();
  const { groups } = await bfclGroups(cfg.categories, {
    ...(cfg.limit !== undefined ? { limit: cfg.limit } : {}),
    seed: String(a.evaluate.sampleSeed),
    ...(catalog ? { catalog, catalogNames: 'prefer' as const } : {}),
  });
  const endpoints: EndpointSpec[] = [
    { label: 'candidate', baseUrl: url, model: a.adapterVersion, cost: a.evaluate.cost },
    ...(!a.production && a.evaluate.scoreBase
      ? [{ label: 'base', baseUrl: url, model: 'base', cost: a.evaluate.cost }]
      : []),
  ];
  const scores: BfclScore[] = [];
  for (const spec of endpoints)
    scores.push(
      await scoreBfcl(groups, spec, {
        ...a.evaluate,
        onProgress: (category, done, total) => ctx.heartbeat({ endpoint: spec.label, bfcl: category, done, total }),
      }),
    );
  return scores;
}

/** `; BFCL candidate live_simple 0.412, irrelevance 0.800` */
function bfclSummary(scores: BfclScore[]): string {
  const candidate = scores.find((s) => s.label === 'candidate');
  if (!candidate) return '';
  return `; BFCL candidate ${candidate.categories.map((c) => `${c.category} ${fmt(c.accuracy.value)}`).join(', ')}`;
}

function score(cases: EvalCase[], spec: EndpointSpec, cfg: EvaluateConfig): Promise<EndpointResult> {
  const ctx = Context.current();
  return evaluateEndpoint(cases, spec, {
    ...cfg,
    onProgress: (done, total) => ctx.heartbeat({ endpoint: spec.label, done, total }),
  });
}

/** The teacher is scored when it is an endpoint; the built-in template teacher cannot answer free-form prompts. */
function teacherSpec(teacher: TeacherConfig, cfg: EvaluateConfig): EndpointSpec | undefined {
  if (!cfg.teacher || teacher.kind !== 'openai') return undefined;
  const apiKey = process.env[teacher.apiKeyEnv];
  return {
    label: 'teacher',
    baseUrl: teacher.baseUrl,
    model: teacher.model,
    // A frontier API: tool names go as it takes them (core/catalog/wire-names.ts).
    wireNames: 'openai',
    ...(apiKey ? { apiKey } : {}),
    cost: cfg.teacherCost,
  };
}
