import type { ArtifactStore } from '../../core/artifacts/store.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { Catalog } from '../../core/catalog/types.js';
import { coverageSummary, toolCoverage } from '../../core/dataset/coverage.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { type Rejection, type ToolNote, validateCandidates } from '../../core/dataset/pipeline.js';
import type { Candidate } from '../../core/dataset/teacher/types.js';
import type { Intent, RouterRow } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import type { ChunkRange } from '../../core/pipeline/chunks.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { withConnections } from '../../activities/connections.js';
import { beat } from '../../activities/heartbeat.js';
import { chunked, mergeParts } from '../../activities/merge-parts.js';
import { readShared } from '../../activities/shared-inputs.js';
import { runStage } from '../../activities/stage.js';
import type { ValidateArgs, ValidateStageArgs } from './spec.js';

/** The validate stage's activity: valid rows and named rejections, with each tool's coverage. */
export async function validate(a: ValidateStageArgs): Promise<StageOutcome> {
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

/** The candidates in `range` (all of them without one) checked against the servers. */
export async function validateRows(store: ArtifactStore, a: ValidateArgs, range?: ChunkRange) {
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

async function mergeValidated(store: ArtifactStore, parts: Array<Record<string, ArtifactRef>>) {
  const { rows, stats } = await mergeParts<RouterRow>(store, parts, 'validated');
  const { rows: rejections } = await mergeParts<Rejection>(store, parts, 'rejections');
  return { rows, rejections, stats: stats as Awaited<ReturnType<typeof validateRows>>['stats'] };
}
