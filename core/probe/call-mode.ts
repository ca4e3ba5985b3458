import type { CatalogTool } from '../catalog/types.js';

/**
 * How the flywheel may touch a tool, by what it declares. `execute`: call it for real (read-only, or listed
 * by the operator); `dry-run`: call it with `_meta.dryRun` (the server promises to roll back); `schema`:
 * never call it, check arguments against the schema only. Nothing that may write is ever executed unless
 * the operator listed it.
 */
export type CallMode = 'execute' | 'dry-run' | 'schema';

export function callMode(tool: CatalogTool, allow: readonly string[] = []): { mode: CallMode; why: string } {
  if (allow.includes(tool.name)) return { mode: 'execute', why: 'listed in the server\'s probe.allow' };
  if (tool._meta?.dryRun === true) return { mode: 'dry-run', why: 'the server declares dry-run support (_meta.dryRun)' };
  if (tool.annotations?.readOnlyHint !== true) return { mode: 'schema', why: 'not read-only (no readOnlyHint) and no dry-run support' };
  // Open-world tools reach systems outside the server (the web, email): not ours to call while building data.
  if (tool.annotations?.openWorldHint === true) return { mode: 'schema', why: 'read-only but open-world (openWorldHint: true)' };
  return { mode: 'execute', why: 'read-only (readOnlyHint: true)' };
}
