import type { Prediction } from '../types.js';
import type { BfclModelResult } from './data.js';

/**
 * An answer as BFCL's function-calling handlers record a model's: each call `{name: arguments JSON text}`, under
 * the function's own BFCL name (`names`: offered name → BFCL name, which undoes a catalog's `NAME__2` renaming).
 * A native tool call keeps its arguments text exactly as sent, so BFCL's checker decodes its numbers itself (`5.0`
 * stays a float); a call the router wrote in its answer text is serialised from the parsed arguments. An
 * abstention is no call (`[]`); output that is not a decision is the text itself, which BFCL cannot decode: its
 * checker fails that on an AST category and passes it on an irrelevance one, as it does for any model.
 */
export function toBfclCalls(p: Prediction, names: ReadonlyMap<string, string>): BfclModelResult {
  if (p.kind === 'no-call') return [];
  if (p.kind === 'invalid') return p.raw || p.problem;
  const calls = [{ tool: p.tool, arguments: p.arguments, rawArguments: p.rawArguments }, ...(p.others ?? [])];
  return calls.map((c) => ({
    [names.get(c.tool) ?? c.tool]: c.rawArguments ?? JSON.stringify(c.arguments),
  }));
}
