import { ConfigError } from '../core/config/load.js';
import { traceFiles, type TraceFile } from '../core/traces/files.js';
import { TraceSourceUnavailable } from '../core/traces/s3-source.js';
import { ingestTraces, parseTraceFile } from '../core/traces/ingest.js';
import type { TraceRejection } from '../core/traces/types.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import { catalogVersion } from '../core/catalog/history.js';
import type { Catalog } from '../core/catalog/types.js';
import type { ServerConfig } from '../core/config/schema.js';
import { mcpDryRunner } from '../core/dataset/mcp-dry-run.js';
import {
  distinctCallsByTool,
  type Rejection,
  rowStats,
  validateCandidates,
  type ToolNote,
} from '../core/dataset/pipeline.js';
import { renderRows } from '../core/dataset/render.js';
import { asTaught } from '../core/dataset/taught.js';
import { preferencePairs } from '../core/dataset/pairs.js';
import { describeCap, entityOverlap, splitByEntity, trainingRows } from '../core/dataset/split.js';
import { makeTeacher } from '../core/dataset/teacher/index.js';
import { readShared } from './shared-inputs.js';
import type { Candidate, RequestDraft } from '../core/dataset/teacher/types.js';
import type { Intent, RouterRow } from '../core/dataset/types.js';
import { CallValidator } from '../core/dataset/validate.js';
import { frozenTestSet, pinTestSet } from '../core/dataset/testset.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { coverageSummary, toolCoverage } from '../core/dataset/coverage.js';
import { withConnections } from './connections.js';
import { beat } from './heartbeat.js';
import { runChunk, runStage, type DatasetStageArgs } from './stage.js';
import type { ArtifactStore } from '../core/artifacts/store.js';
import { type ChunkRange, sumStats } from '../core/pipeline/chunks.js';
import { storeFor } from './store.js';

type Common = DatasetStageArgs;

type GenerateArgs = Common & { intents: ArtifactRef };
type SolveArgs = Common & { catalog: ArtifactRef; intents: ArtifactRef; requests: ArtifactRef };
type ValidateArgs = Common & {
  catalog: ArtifactRef;
  intents: ArtifactRef;
  candidates: ArtifactRef;
  servers: ServerConfig[];
};
/** The chunks a row-parallel stage ran (workflows/contract/table.ts `chunkedBy`), each chunk's outputs: merged, not recomputed. */
type Parts = { parts?: Array<Record<string, ArtifactRef>> };

export async function generateStage(a: GenerateArgs & Parts): Promise<StageOutcome> {
  return runStage(a, 'generate', async (store) => {
    const { rows, stats } = a.parts
      ? await mergeParts<RequestDraft>(store, a.parts, 'requests')
      : await draftRequests(store, a);
    const ref = await store.putJsonl('requests', rows, { parents: [a.intents], stats });
    return {
      outputs: { requests: ref },
      summary: `${rows.length} requests drafted by the ${String(stats.teacher)} teacher${teacherUsage(stats)}${chunked(a)}`,
    };
  });
}

export async function solveStage(a: SolveArgs & Parts): Promise<StageOutcome> {
  return runStage(a, 'solve', async (store) => {
    const { rows, stats } = a.parts
      ? await mergeParts<Candidate>(store, a.parts, 'candidates')
      : await solveRequests(store, a);
    const ref = await store.putJsonl('candidates', rows, { parents: [a.intents, a.requests], stats });
    return {
      outputs: { candidates: ref },
      summary: `${rows.length} candidate answers from the ${String(stats.teacher)} teacher${teacherUsage(stats)}${chunked(a)}`,
    };
  });
}

export async function validateStage(a: ValidateArgs & Parts): Promise<StageOutcome> {
  return runStage(a, 'validate', async (store) => {
    const { rows, rejections, stats } = a.parts ? await mergeValidated(store, a.parts) : await validateRows(store, a);
    const catalog = await store.readJson<Catalog>(a.catalog);
    const intents = await store.readJsonl<Intent>(a.intents);
    const notes = ((await store.manifest(a.intents.sha256)).stats.tools ?? {}) as Record<string, ToolNote>;
    const coverage = toolCoverage(catalog, notes, intents, rows, rejections);
    const parents = [a.catalog, a.intents, a.candidates];
    const validated = await store.putJsonl('validated', rows, { parents, stats: { ...stats, coverage } });
    const rejected = await store.putJsonl('rejections', rejections, {
      parents,
      stats: { rejected: stats.rejected, byReason: stats.rejectionsByReason },
    });
    return {
      outputs: { validated, rejections: rejected },
      summary: `${stats.valid} valid, ${stats.rejected} rejected (${
        Object.entries(stats.rejectionsByReason)
          .map(([r, n]) => `${r} ${n}`)
          .join(', ') || 'none'
      }); ${coverageSummary(coverage)}${chunked(a)}`,
    };
  });
}

export type ChunkArgs =
  | (GenerateArgs & { stage: 'generate' } & ChunkRange)
  | (SolveArgs & { stage: 'solve' } & ChunkRange)
  | (ValidateArgs & { stage: 'validate' } & ChunkRange);

/**
 * One chunk of a row-parallel stage: the rows `[from, to)` of its chunked input, with the whole input as context,
 * written as part artifacts the stage activity then merges. Memoised on its own, so a retried or resumed stage
 * redoes only the chunks that had not finished.
 */
export async function stageChunk(a: ChunkArgs): Promise<StageOutcome> {
  const range = { from: a.from, to: a.to };
  return runChunk(
    a,
    a.stage,
    range,
    async (store): Promise<{ outputs: Record<string, ArtifactRef>; summary: string }> => {
      switch (a.stage) {
        case 'generate': {
          const { rows, stats } = await draftRequests(store, a, range);
          return {
            outputs: { requests: await store.putJsonl('requests-part', rows, { parents: [a.intents], stats }) },
            summary: `${rows.length} requests`,
          };
        }
        case 'solve': {
          const { rows, stats } = await solveRequests(store, a, range);
          return {
            outputs: {
              candidates: await store.putJsonl('candidates-part', rows, { parents: [a.intents, a.requests], stats }),
            },
            summary: `${rows.length} candidates`,
          };
        }
        case 'validate': {
          const { rows, rejections, stats } = await validateRows(store, a, range);
          const parents = [a.catalog, a.intents, a.candidates];
          return {
            outputs: {
              validated: await store.putJsonl('validated-part', rows, { parents, stats }),
              rejections: await store.putJsonl('rejections-part', rejections, { parents }),
            },
            summary: `${stats.valid} valid, ${stats.rejected} rejected`,
          };
        }
      }
    },
  );
}

async function draftRequests(store: ArtifactStore, a: GenerateArgs, range?: ChunkRange) {
  const intents = await readShared(a.intents, (r) => store.readJsonl<Intent>(r));
  const teacher = makeTeacher(a.dataset.teacher, a.dataset.seed, { store, onProgress: beat });
  const rows = await teacher.generate(intents, range).finally(() => teacher.close?.());
  return {
    rows,
    stats: { requests: rows.length, teacher: teacher.name, ...teacher.stats?.() } as Record<string, unknown>,
  };
}

async function solveRequests(store: ArtifactStore, a: SolveArgs, range?: ChunkRange) {
  const catalog = await readShared(a.catalog, (r) => store.readJson<Catalog>(r));
  const intents = await readShared(a.intents, (r) => store.readJsonl<Intent>(r));
  const drafts = await readShared(a.requests, (r) => store.readJsonl<RequestDraft>(r));
  const toolsByDomain = new Map(catalog.servers.map((s) => [s.name, catalog.tools.filter((t) => t.server === s.name)]));
  const teacher = makeTeacher(a.dataset.teacher, a.dataset.seed, { store, onProgress: beat }, toolsByDomain);
  const rows = await teacher
    .solve(intents, range ? drafts.slice(range.from, range.to) : drafts)
    .finally(() => teacher.close?.());
  return {
    rows,
    stats: { candidates: rows.length, teacher: teacher.name, ...teacher.stats?.() } as Record<string, unknown>,
  };
}

async function validateRows(store: ArtifactStore, a: ValidateArgs, range?: ChunkRange) {
  const catalog = await readShared(a.catalog, (r) => store.readJson<Catalog>(r));
  const intents = await readShared(a.intents, (r) => store.readJsonl<Intent>(r));
  const candidates = await readShared(a.candidates, (r) => store.readJsonl<Candidate>(r));
  return withConnections(a.servers, async (conns) => {
    const runner = mcpDryRunner(conns, a.servers);
    const { rows, rejections, stats } = await validateCandidates(
      intents,
      range ? candidates.slice(range.from, range.to) : candidates,
      catalog,
      new CallValidator(catalog, runner),
      a.dataset,
      (done) => beat({ done }),
    );
    return { rows, rejections, stats: { ...stats, notDryRunChecked: runner.skipped, callsCheckedBy: runner.counts } };
  });
}

/** The chunks' rows of one output, in chunk order, and their manifests' stats summed. */
async function mergeParts<T>(
  store: ArtifactStore,
  parts: Array<Record<string, ArtifactRef>>,
  output: string,
): Promise<{ rows: T[]; stats: Record<string, unknown> }> {
  const rows: T[] = [];
  const stats: Array<Record<string, unknown>> = [];
  for (const part of parts) {
    const ref = part[output];
    if (!ref) throw new Error(`a chunk of this stage has no ${output} output`);
    beat({ merging: rows.length });
    rows.push(...(await store.readJsonl<T>(ref)));
    stats.push((await store.manifest(ref.sha256)).stats);
  }
  return { rows, stats: sumStats(stats) };
}

async function mergeValidated(store: ArtifactStore, parts: Array<Record<string, ArtifactRef>>) {
  const { rows, stats } = await mergeParts<RouterRow>(store, parts, 'validated');
  const { rows: rejections } = await mergeParts<Rejection>(store, parts, 'rejections');
  return { rows, rejections, stats: stats as Awaited<ReturnType<typeof validateRows>>['stats'] };
}

/** "; 12,345 tokens billed ($0.0123)" for a teacher that counts its tokens (openai); "" for the template teacher. */
export function teacherUsage(stats: Record<string, unknown>): string {
  if (typeof stats.promptTokens !== 'number' || typeof stats.completionTokens !== 'number') return '';
  const tokens = stats.promptTokens + stats.completionTokens;
  const cost = typeof stats.costUsd === 'number' ? ` ($${stats.costUsd.toFixed(4)})` : '';
  return `; ${tokens.toLocaleString('en-US')} tokens billed${cost}`;
}

function chunked(a: Parts): string {
  return a.parts ? ` (${a.parts.length} chunks)` : '';
}

export async function splitStage(
  a: Common & { project: string; catalog: ArtifactRef; augmented: ArtifactRef },
): Promise<StageOutcome> {
  const version = catalogVersion(a.catalog);
  const pinned = await frozenTestSet(storeFor(a.store), a.project, version);
  // The key names the project, the catalog and the pinned test set, so a memo hit never stands in for a split
  // that should have used (or created) another frozen test set.
  const outcome = await runStage(
    a,
    'split',
    async (store) => {
      beat({ stage: 'split' });
      const rows = await store.readJsonl<RouterRow>(a.augmented);
      const frozen = pinned ? await store.readJsonl<RouterRow>(pinned.ref) : undefined;
      const s = splitByEntity(rows, a.dataset.split, a.dataset.seed, frozen);
      const overlap = entityOverlap(s);
      if (overlap.length) throw new Error(`entity overlap across splits: ${overlap.slice(0, 5).join(', ')}`);
      const { rows: train, cap } = trainingRows(s.train, a.dataset);
      const parents = [a.augmented];
      const trainRef = await store.putJsonl('train', train, {
        parents,
        stats: { ...rowStats(train), distinctByTool: distinctCallsByTool(s.train), ...(cap ? { cap } : {}) },
      });
      const valRef = await store.putJsonl('val', s.val, { parents, stats: rowStats(s.val) });
      const testRef = pinned ? pinned.ref : await store.putJsonl('test', s.test, { parents, stats: rowStats(s.test) });
      return {
        outputs: { train: trainRef, val: valRef, test: testRef },
        summary: `train ${train.length} (${s.train.length} before oversampling${cap ? `; ${describeCap(cap)}` : ''}), val ${s.val.length}, test ${s.test.length}${pinned ? ' (frozen)' : ' (new, now frozen)'}${s.heldOut ? `, ${s.heldOut} held out for touching test entities` : ''}`,
      };
    },
    { key: { frozenTest: pinned?.ref.sha256 ?? null } },
  );
  // Pinned outside the memo, so a reused split still pins its test set; the first pin wins.
  if (!pinned)
    await pinTestSet(storeFor(a.store), a.project, version, outcome.outputs.test!, 'split', { onlyIfAbsent: true });
  return outcome;
}

export async function renderStage(
  a: Common & { catalog: ArtifactRef; train: ArtifactRef; val: ArtifactRef; test: ArtifactRef },
): Promise<StageOutcome> {
  return runStage(a, 'render', async (store) => {
    const catalog = await store.readJson<Catalog>(a.catalog);
    const outputs: Record<string, ArtifactRef> = {};
    const counts: string[] = [];
    for (const name of ['train', 'val', 'test'] as const) {
      beat({ rendering: name });
      const rows = await store.readJsonl<RouterRow>(a[name]);
      // The test set keeps its labels: it scores the model and the checks after it together (taught.ts).
      const rendered = renderRows(
        name === 'test' ? rows : asTaught(rows, a.dataset.render.format),
        catalog,
        a.dataset.render.format,
      );
      const Name = `${name[0]!.toUpperCase()}${name.slice(1)}`;
      outputs[`rendered${Name}`] = await store.putJsonl(`rendered-${name}`, rendered, {
        parents: [a[name], a.catalog],
        stats: { rows: rendered.length, format: a.dataset.render.format },
      });
      // Preference pairs from this split's near-miss negatives, for preference tuning after SFT. Each names the
      // SFT dataset it belongs with (the rendered train file's sha256), which the trainer checks against the
      // starting adapter's.
      const { pairs, counts: byOperator } = preferencePairs(rows, catalog, a.dataset.render.format);
      const dataset = outputs.renderedTrain!.sha256;
      outputs[`pairs${Name}`] = await store.putJsonl(
        `pairs-${name}`,
        pairs.map((p) => ({ ...p, dataset })),
        { parents: [a[name], a.catalog], stats: { pairs: pairs.length, byOperator, format: a.dataset.render.format } },
      );
      counts.push(`${name} ${rendered.length} (${pairs.length} pairs)`);
    }
    return { outputs, summary: `${a.dataset.render.format} rows: ${counts.join(', ')}` };
  });
}

export async function tracesStage(
  a: Common & { catalog: ArtifactRef; traces: Array<string | { path: string; domain?: string }> },
): Promise<StageOutcome> {
  // Trace files are read once and stored, so the memo key and the lineage pin their exact content.
  const store = storeFor(a.store);
  const files: Array<{ ref: ArtifactRef; path: string; domain?: string }> = [];
  for (const t of a.traces) {
    // A source is a file, a directory of them (the gateway writes one JSONL file per day) or an s3:// prefix.
    const source = typeof t === 'string' ? t : t.path;
    let found: TraceFile[];
    try {
      found = await traceFiles(source, a.store.s3);
    } catch (err) {
      throw sourceError(err);
    }
    for (const f of found) {
      let bytes: Buffer;
      try {
        bytes = await f.read();
      } catch (err) {
        throw sourceError(err);
      }
      files.push({
        ref: await store.putBytes('traces-raw', bytes, 'application/octet-stream', 1, { stats: { path: f.path } }),
        path: f.path,
        ...(typeof t !== 'string' && t.domain ? { domain: t.domain } : {}),
      });
    }
  }
  return runStage(
    a,
    'traces',
    async (store) => {
      const catalog = await store.readJson<Catalog>(a.catalog);
      const validator = new CallValidator(catalog, async () => ({ ok: true }));
      const rows: RouterRow[] = [];
      const rejections: TraceRejection[] = [];
      let traces = 0;
      for (const f of files) {
        const parsed = parseTraceFile(f.path, (await store.read(f.ref)).toString('utf8'));
        const result = ingestTraces(parsed.traces, validator, {
          catalog,
          ...(f.domain ? { defaultDomain: f.domain } : {}),
        });
        rows.push(...result.rows);
        rejections.push(...parsed.rejections, ...result.rejections);
        traces += parsed.traces.length + parsed.rejections.length;
      }
      const byReason: Record<string, number> = {};
      for (const r of rejections) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
      const parents = [a.catalog, ...files.map((f) => f.ref)];
      const rowsRef = await store.putJsonl('trace-rows', rows, { parents, stats: { ...rowStats(rows), traces } });
      const rejRef = await store.putJsonl('trace-rejections', rejections, {
        parents,
        stats: { rejected: rejections.length, byReason },
      });
      return {
        outputs: { traceRows: rowsRef, traceRejections: rejRef },
        summary: `${traces} traces -> ${rows.length} rows, ${rejections.length} rejected${
          rejections.length
            ? ` (${Object.entries(byReason)
                .map(([r, n]) => `${r} ${n}`)
                .join(', ')})`
            : ''
        }`,
      };
    },
    { inputs: files.map((f) => f.ref), key: { files: files.map((f) => ({ path: f.path, domain: f.domain ?? null })) } },
  );
}

/** A store that did not answer is retried; a missing file, bucket or key is the config's problem: fail at once. */
function sourceError(err: unknown): Error {
  return err instanceof TraceSourceUnavailable ? err : new ConfigError('traces', [(err as Error).message]);
}
