/**
 * What the router model is taught for a row. Two no-calls are lookups, made after the model: whether the caller
 * may use the tool (core/scope-guard.ts: missing_scope) and whether the request offers it (core/offer-check.ts:
 * tool_not_offered, for router-json, whose decoding in `serve` may name any tool the adapter was trained on). The
 * model names the tool the request needs; code decides. So a row with such a label teaches the call its request
 * needs, where that call is known, and the check answers the no-call in the model's place, at serving and in
 * scoring alike. Test rows keep their labels: they score the model and the checks together.
 */
import { MISSING_SCOPE, NOT_OFFERED } from '../router/contract.js';
import type { RenderFormat } from './render.js';
import type { RouterRow, ToolCallTarget } from './types.js';

/** Rows by id: where a negative's positive is looked up (a negative shares its positive's entities, so its split). */
export type RowsById = ReadonlyMap<string, RouterRow>;

/** Is this row's no-call the scope check's to make (a missing_scope label over a recorded call)? */
export const refusedByScopeCheck = (row: RouterRow): boolean =>
  row.target.tool === null && row.target.code === MISSING_SCOPE.code && row.provenance.negativeCall !== undefined;

/**
 * The call a tool_not_offered row's request needs, to a tool its slice lacks (router-json only: hermes is decoded
 * freely, so nothing answers in the model's place): the recorded call of a tool_absent negative or a retriever
 * miss, or for a sibling swap (whose recorded call is the offered sibling, the tempting wrong one) the call of the
 * positive it came from. Undefined when it is not known.
 */
export function absentToolCall(row: RouterRow, format: RenderFormat, byId: RowsById): ToolCallTarget | undefined {
  if (format !== 'router-json' || row.target.tool !== null || row.target.code !== NOT_OFFERED.code) return undefined;
  const from = row.provenance.from ? byId.get(row.provenance.from)?.target : undefined;
  return [row.provenance.negativeCall, from].find(
    (c): c is ToolCallTarget => c !== undefined && c.tool !== null && !row.tools.includes(c.tool),
  );
}

/** Is this row's no-call made by a check after the model rather than by the model? */
export const decidedAfterModel = (row: RouterRow, format: RenderFormat, byId: RowsById): boolean =>
  refusedByScopeCheck(row) || absentToolCall(row, format, byId) !== undefined;

/** Training and validation rows as the model learns them. */
export function asTaught(rows: RouterRow[], format: RenderFormat): RouterRow[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return rows.map((r) => {
    const target = refusedByScopeCheck(r) ? r.provenance.negativeCall : absentToolCall(r, format, byId);
    return target ? { ...r, target } : r;
  });
}
