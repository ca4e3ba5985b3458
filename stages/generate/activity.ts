import type { ArtifactStore } from '../../core/artifacts/store.js';
import type { ChunkRange } from '../../core/pipeline/chunks.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { makeTeacher } from '../../core/dataset/teacher/index.js';
import type { RequestDraft } from '../../core/dataset/teacher/types.js';
import type { Intent } from '../../core/dataset/types.js';
import { beat } from '../../activities/heartbeat.js';
import { chunked, mergeParts, teacherUsage } from '../../activities/merge-parts.js';
import { readShared } from '../../activities/shared-inputs.js';
import { runStage } from '../../activities/stage.js';
import type { GenerateArgs, GenerateStageArgs } from './spec.js';

/** The generate stage's activity: the teacher's request drafts, or its chunks' drafts merged in order. */
export async function generate(a: GenerateStageArgs): Promise<StageOutcome> {
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

/** Requests for the intents in `range` (all of them without one). */
export async function draftRequests(store: ArtifactStore, a: GenerateArgs, range?: ChunkRange) {
  const intents = await readShared(a.intents, (r) => store.readJsonl<Intent>(r));
  const teacher = makeTeacher(a.dataset.teacher, a.dataset.seed, { store, onProgress: beat });
  const rows = await teacher.generate(intents, range).finally(() => teacher.close?.());
  return {
    rows,
    stats: { requests: rows.length, teacher: teacher.name, ...teacher.stats?.() } as Record<string, unknown>,
  };
}
