import type { Prediction } from '../types.js';
import type { BfclCall } from './data.js';

/**
 * An answer in BFCL's call form, as BFCL's function-calling handlers decode one: each call `{name: arguments}`,
 * under the function's own BFCL name (`names`: offered name → BFCL name, which undoes a catalog's `NAME__2`
 * renaming). An abstention is no call (`[]`); output that is not a decision is the text BFCL could not decode,
 * which its checker fails on an AST category and passes on an irrelevance one, as it does for any model.
 */
export function toBfclCalls(p: Prediction, names: ReadonlyMap<string, string>): BfclCall[] | string {
  if (p.kind === 'no-call') return [];
  if (p.kind === 'invalid') return p.raw || p.problem;
  const calls = [{ tool: p.tool, arguments: p.arguments }, ...(p.others ?? [])];
  // A call whose arguments are not an object cannot be decoded into BFCL's form at all.
  const bad = calls.find((c) => !isObject(c.arguments));
  if (bad) return `${bad.tool}: arguments are not a JSON object`;
  return calls.map((c) => ({ [names.get(c.tool) ?? c.tool]: c.arguments as Record<string, unknown> }));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
