/**
 * RBAC after the router: a call to a tool whose scopes the caller lacks is answered as the missing_scope
 * violation, whatever the model said. Authorisation is a lookup, not a judgement: the model picks the tool, code
 * decides whether this caller may use it. The gateway, the evaluate stage and `flywheel eval` all apply it, so
 * a router is scored as it answers in production.
 */
import type { CatalogTool } from './catalog/types.js';
import { MISSING_SCOPE } from './router/contract.js';

/** Who asks and what the offered tools need: the caller's scopes, each tool's required scopes by name. */
export interface ScopeCheck {
  caller: string[];
  tools: Record<string, string[]>;
}

/** The no-call a forbidden call becomes (the router contract's missingScope rewrite). */
export { MISSING_SCOPE };

/** The scopes in `required` that `held` lacks, in `required`'s order. */
export function lackedScopes(required: readonly string[], held: readonly string[]): string[] {
  return required.filter((s) => !held.includes(s));
}

/**
 * Required scopes by tool name for a domain's tools (every server's when domain is null). A name that two
 * servers share needs the scopes of both: the check errs towards refusing.
 */
export function toolScopes(tools: readonly CatalogTool[], domain: string | null = null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of tools) {
    if (domain !== null && t.server !== domain) continue;
    out[t.name] = [...new Set([...(out[t.name] ?? []), ...t.scopes])];
  }
  return out;
}

/** Why a call to `tool` is refused ("called X; the caller lacks Y"), or null: allowed, or a tool the check does not know. */
export function scopeRefusal(tool: string, check: ScopeCheck): string | null {
  const lacked = lackedScopes(check.tools[tool] ?? [], check.caller);
  return lacked.length ? `called ${tool}; the caller lacks ${lacked.join(', ')}` : null;
}
