import { Rng } from '../rng.js';
import type { CatalogTool } from '../catalog/types.js';
import { hashOf, shortSha } from '../hash.js';
import { offerSlice, sliceForText } from './slice.js';
import type { Candidate } from './teacher/types.js';
import type { Intent, RouterRow } from './types.js';

export function rowId(parts: unknown): string {
  return `row-${shortSha(hashOf(parts), 16)}`;
}

/** A row from a validated candidate: its slice is the correct tool plus siblings and near neighbours. */
export function candidateRow(intent: Intent, candidate: Candidate, domainTools: CatalogTool[], sliceSize: number, seed: string | number): RouterRow {
  const rng = new Rng(`slice:${seed}:${intent.id}`);
  const tool = candidate.target.tool === null ? undefined : domainTools.find((t) => t.name === candidate.target.tool);
  const tools = tool ? offerSlice(tool, domainTools, sliceSize, rng) : sliceForText(candidate.request, domainTools, sliceSize, rng);
  return {
    id: rowId({ intent: intent.id, request: candidate.request, target: candidate.target, ...(candidate.context ? { context: candidate.context } : {}) }),
    domain: intent.domain,
    entities: intent.entities,
    request: candidate.request,
    ...(candidate.context ? { messages: [...candidate.context, { role: 'user', content: candidate.request }] } : {}),
    persona: { name: intent.persona.name, scopes: intent.persona.scopes },
    tools,
    target: candidate.target,
    provenance: { source: 'generated', intent: intent.id, goal: intent.goal, teacher: candidate.teacher },
  };
}
