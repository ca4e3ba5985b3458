import type { ValidateFunction } from 'ajv';
import type { Catalog, CatalogTool } from '../catalog/types.js';
import { compileSchema } from '../schema/compile.js';
import { lackedScopes } from '../scope-guard.js';
import type { Persona, Target } from './types.js';

/** Why a candidate is not training data. Sandbox refusals are `sandbox:<CODE>` with the sandbox's own code. */
export type RejectionReason =
  | 'teacher_malformed'
  | 'disagrees_with_intent'
  | 'unknown_tool'
  | 'not_offered'
  | 'schema_invalid'
  | 'missing_scope'
  | `sandbox:${string}`
  | 'dry_run_failed'
  | 'call_failed';

export interface DryRunResult {
  ok: boolean;
  code?: string;
  message?: string;
  /** How the call was checked: executed (read-only), dry-run, or not called at all (schema only). */
  checkedBy?: 'execute' | 'dry-run' | 'schema';
}

/**
 * Checks a call on the server that owns the tool, as the persona (its scopes): a dry-run where the server
 * supports one, a real call where the tool is read-only, nothing where it may write (see callMode).
 */
export type DryRunner = (tool: CatalogTool, args: Record<string, unknown>, scopes: string[]) => Promise<DryRunResult>;

export interface Verdict {
  valid: boolean;
  reason?: RejectionReason;
  detail?: string;
  checkedBy?: DryRunResult['checkedBy'];
}

/**
 * Checks a call the way production would: the tool exists in the catalog, the arguments satisfy its
 * inputSchema exactly (ajv strict, no coercion), the persona holds its scopes, and the sandbox accepts it
 * in a dry-run. Abstentions are valid as they stand (whether they should have been calls is the
 * corruption operators' and evaluation's business).
 */
export class CallValidator {
  /** By tool id (`server/name`): two servers may offer tools of the same name. */
  private readonly tools = new Map<string, { tool: CatalogTool; validate: ValidateFunction }>();

  constructor(
    catalog: Catalog,
    private readonly dryRun: DryRunner,
  ) {
    for (const tool of catalog.tools) {
      const compiled = compileSchema(tool.inputSchema);
      if (compiled.ok) this.tools.set(tool.id, { tool, validate: compiled.validate });
    }
  }

  /** The tool `name` of server `domain`. */
  tool(name: string, domain: string): CatalogTool | undefined {
    return this.tools.get(`${domain}/${name}`)?.tool;
  }

  /** Static checks only (schema and scopes), no sandbox call. */
  checkStatic(target: Target, persona: Persona, offered?: string[]): Verdict {
    if (target.tool === null) return { valid: true };
    const entry = this.tools.get(`${persona.domain}/${target.tool}`);
    if (!entry)
      return {
        valid: false,
        reason: 'unknown_tool',
        detail: `no tool ${target.tool} in the catalog of ${persona.domain}`,
      };
    if (offered && !offered.includes(target.tool))
      return { valid: false, reason: 'not_offered', detail: `${target.tool} is not among the offered tools` };
    if (!entry.validate(target.arguments)) {
      return {
        valid: false,
        reason: 'schema_invalid',
        detail: (entry.validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message}`).join('; '),
      };
    }
    const missing = lackedScopes(entry.tool.scopes, persona.scopes);
    if (missing.length)
      return { valid: false, reason: 'missing_scope', detail: `persona ${persona.name} lacks ${missing.join(', ')}` };
    return { valid: true };
  }

  /** `offered`: the row's tool slice; a call outside it is rejected as not_offered. */
  async check(target: Target, persona: Persona, offered?: string[]): Promise<Verdict> {
    const first = this.checkStatic(target, persona, offered);
    if (!first.valid || target.tool === null) return first;
    const tool = this.tools.get(`${persona.domain}/${target.tool}`)!.tool;
    const r = await this.dryRun(tool, target.arguments, persona.scopes);
    const checkedBy = r.checkedBy ? { checkedBy: r.checkedBy } : {};
    if (r.ok) return { valid: true, ...checkedBy };
    const reason = r.code
      ? (`sandbox:${r.code}` as const)
      : r.checkedBy === 'execute'
        ? 'call_failed'
        : 'dry_run_failed';
    return { valid: false, reason, ...(r.message ? { detail: r.message } : {}), ...checkedBy };
  }
}
