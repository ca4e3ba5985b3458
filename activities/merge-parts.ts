import type { ArtifactStore } from '../core/artifacts/store.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import { sumStats } from '../core/pipeline/chunks.js';
import { beat } from './heartbeat.js';

/** The chunks a row-parallel stage ran (workflows/contract/table.ts `chunkedBy`), each chunk's outputs: merged, not recomputed. */
export type Parts = { parts?: Array<Record<string, ArtifactRef>> };

/** The chunks' rows of one output, in chunk order, and their manifests' stats summed. */
export async function mergeParts<T>(
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

/** " (4 chunks)" in a merged stage's summary. */
export function chunked(a: Parts): string {
  return a.parts ? ` (${a.parts.length} chunks)` : '';
}

/** "; 12,345 tokens billed ($0.0123)" for a teacher that counts its tokens (openai); "" for the template teacher. */
export function teacherUsage(stats: Record<string, unknown>): string {
  if (typeof stats.promptTokens !== 'number' || typeof stats.completionTokens !== 'number') return '';
  const tokens = stats.promptTokens + stats.completionTokens;
  const cost = typeof stats.costUsd === 'number' ? ` ($${stats.costUsd.toFixed(4)})` : '';
  return `; ${tokens.toLocaleString('en-US')} tokens billed${cost}`;
}
