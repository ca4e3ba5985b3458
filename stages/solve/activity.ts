import type { ArtifactStore } from '../../core/artifacts/store.js';
import type { Catalog } from '../../core/catalog/types.js';
import type { ChunkRange } from '../../core/pipeline/chunks.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { makeTeacher } from '../../core/dataset/teacher/index.js';
import type { Candidate, RequestDraft } from '../../core/dataset/teacher/types.js';
import type { Intent } from '../../core/dataset/types.js';
import { beat } from '../../activities/heartbeat.js';
import { chunked, mergeParts, teacherUsage } from '../../activities/merge-parts.js';
import { readShared } from '../../activities/shared-inputs.js';
import { runStage } from '../../activities/stage.js';
import type { SolveArgs, SolveStageArgs } from './spec.js';

/** The solve stage's activity: the teacher's candidate answers, or its chunks' answers merged in order. */
export async function solve(a: SolveStageArgs): Promise<StageOutcome> {
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

/** Candidate answers for the drafts in `range` (all of them without one). */
export async function solveRequests(store: ArtifactStore, a: SolveArgs, range?: ChunkRange) {
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
