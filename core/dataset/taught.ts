/**
 * What the router model is taught for a row. Two no-calls are lookups, made after the model: whether the caller
 * may use the tool (core/scope-guard.ts: missing_scope) and whether the request offers it (the constrained
 * decoder in `serve`: tool_not_offered, for router-json, whose decoding may name any tool the adapter was trained
 * on). The model names the tool the request needs; code decides. So a row with such a label that records the call
 * its request asked for teaches that call, and the check answers the no-call in the model's place, at serving and
 * in scoring alike. Test rows keep their labels: they score the model and the checks together.
 */
import { NOT_OFFERED } from '../offer-check.js';
import { MISSING_SCOPE } from '../scope-guard.js';
import type { RenderFormat } from './render.js';
import type { RouterRow } from './types.js';

/** Is this row's no-call the scope check's to make (a missing_scope label over a recorded call)? */
export const refusedByScopeCheck = (row: RouterRow): boolean =>
  row.target.tool === null && row.target.code === MISSING_SCOPE.code && row.provenance.negativeCall !== undefined;

/** Is this row's no-call the offer check's (a tool_not_offered label over the recorded call to the absent tool)? */
export const answeredByOfferCheck = (row: RouterRow, format: RenderFormat): boolean =>
  format === 'router-json' && row.target.tool === null && row.target.code === NOT_OFFERED.code && row.provenance.negativeCall !== undefined;

/** Is this row's no-call made by a check after the model rather than by the model? */
export const decidedAfterModel = (row: RouterRow, format: RenderFormat): boolean => refusedByScopeCheck(row) || answeredByOfferCheck(row, format);

/** Training and validation rows as the model learns them. */
export function asTaught(rows: RouterRow[], format: RenderFormat): RouterRow[] {
  return rows.map((r) => (decidedAfterModel(r, format) ? { ...r, target: r.provenance.negativeCall! } : r));
}
