/**
 * What the router model is taught for a row. Scopes are checked after the model (core/scope-guard.ts): the
 * model picks the tool, code decides whether this caller may use it. So a row labelled missing_scope that
 * records the call its caller asked for teaches that call; the check answers missing_scope in the model's
 * place, at serving and in scoring alike. Test rows keep their labels: they score the model and the check together.
 */
import { MISSING_SCOPE } from '../scope-guard.js';
import type { RouterRow } from './types.js';

/** Is this row's no-call the scope check's to make (a missing_scope label over a recorded call)? */
export const refusedByScopeCheck = (row: RouterRow): boolean =>
  row.target.tool === null && row.target.code === MISSING_SCOPE.code && row.provenance.negativeCall !== undefined;

/** Training and validation rows as the model learns them. */
export function asTaught(rows: RouterRow[]): RouterRow[] {
  return rows.map((r) => (refusedByScopeCheck(r) ? { ...r, target: r.provenance.negativeCall! } : r));
}
