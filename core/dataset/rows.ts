import { Rng } from '../rng.js';
import type { CatalogTool } from '../catalog/types.js';
import { hashOf, shortSha } from '../hash.js';
import { offerSlice, retrievalQuery, retrievedSlice, rowSliceSize, type Slicing, sliceForText } from './slice.js';
import type { Candidate } from './teacher/types.js';
import type { Intent, RouterRow, Target } from './types.js';

export function rowId(parts: unknown): string {
  return `row-${shortSha(hashOf(parts), 16)}`;
}

/**
 * A row from a validated candidate. Its slice is the correct tool plus siblings and near neighbours, or with
 * `retriever` slicing what the retriever finds for the request; where that misses the correct tool, the row is
 * labelled tool_not_offered, since that is all a router shown that slice can rightly answer. With `minSliceSize`
 * the row offers a size drawn from [minSliceSize, sliceSize] (slice.ts, rowSliceSize).
 */
export function candidateRow(
  intent: Intent,
  candidate: Candidate,
  domainTools: CatalogTool[],
  sliceSize: number,
  seed: string | number,
  slicing: Slicing = 'neighbours',
  minSliceSize?: number,
): RouterRow {
  const rng = new Rng(`slice:${seed}:${intent.id}`);
  const size = rowSliceSize(rng, sliceSize, minSliceSize);
  const tool = candidate.target.tool === null ? undefined : domainTools.find((t) => t.name === candidate.target.tool);
  const tools =
    slicing === 'retriever'
      ? retrievedSlice(retrievalQuery(candidate.request, candidate.context), domainTools, size, rng)
      : tool
        ? offerSlice(tool, domainTools, size, rng)
        : sliceForText(candidate.request, domainTools, size, rng);
  const missed = tool !== undefined && !tools.includes(tool.name);
  const target: Target = missed
    ? {
        tool: null,
        verdict: 'abstain',
        code: 'tool_not_offered',
        reason: `${tool.name} was not among the retrieved tools`,
      }
    : candidate.target;
  return {
    id: rowId({
      intent: intent.id,
      request: candidate.request,
      target: candidate.target,
      ...(candidate.context ? { context: candidate.context } : {}),
    }),
    domain: intent.domain,
    entities: intent.entities,
    request: candidate.request,
    ...(candidate.context ? { messages: [...candidate.context, { role: 'user', content: candidate.request }] } : {}),
    persona: { name: intent.persona.name, scopes: intent.persona.scopes },
    tools,
    target,
    // A miss records the call its request needs: router-json rows teach it, and serve answers tool_not_offered (taught.ts).
    provenance: {
      source: 'generated',
      intent: intent.id,
      goal: intent.goal,
      teacher: candidate.teacher,
      ...(candidate.style ? { style: candidate.style } : {}),
      ...(missed && candidate.target.tool !== null ? { negativeCall: candidate.target } : {}),
    },
  };
}
