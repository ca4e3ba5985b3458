/**
 * The checks after the router, for every backend: lookups, not judgements, so they run here rather than in any
 * engine's decoder, and the gateway, the evaluator and `flywheel eval` answer alike.
 *
 * In order, on a single call (several calls are left for `decide` to refuse, a no-call is left alone):
 * 1. offer: a call to a tool the request does not offer is the tool_not_offered no-call;
 * 2. grounding (core/router/grounding.ts): a required id the conversation never gave makes the missing_argument
 *    no-call, an optional one is dropped from the call;
 * 3. schema: a call whose arguments break its tool's JSON Schema (a required key left out, a bound, an enum, a
 *    format, a type) is the missing_argument no-call, so no engine's constraint decides what a server is sent;
 * 4. scopes (core/scope-guard.ts): a call the caller lacks scopes for is the missing_scope violation.
 */
import { scopeRefusal, type ScopeCheck } from '../scope-guard.js';
import type { Prediction } from './answer.js';
import { validatorFor } from '../schema/compile.js';
import { MISSING_ARGUMENT, MISSING_SCOPE, NOT_OFFERED, OFF_SCHEMA } from './contract.js';
import { sourceWords, ungrounded, type ConversationMessage } from './grounding.js';

export interface AnswerContext {
  /** The names the request offers; unknown (no offer check) when absent. */
  offered?: readonly string[];
  /** The offered tools' OpenAI definitions (the schema check) and the conversation (with them, the grounding check);
   * each check is skipped without what it reads. */
  tools?: ReadonlyArray<{ function: { name: string; parameters?: unknown } }>;
  messages?: readonly ConversationMessage[];
  /** False skips the grounding and schema checks (an ablation: the arguments as the weights wrote them). */
  argumentChecks?: boolean;
  /** The caller's scopes and each tool's; no scope check when absent. */
  scopes?: ScopeCheck;
}

/** A prediction after the checks, with what each check did. */
export interface Checked {
  prediction: Prediction;
  notOffered?: string;
  /** Required keys whose ids the conversation does not hold (the answer became missing_argument). */
  ungrounded?: string[];
  /** Optional arguments dropped for the same reason, with their values. */
  dropped?: Record<string, unknown>;
  /** What the tool's schema says is wrong with the call's arguments (the answer became missing_argument). */
  offSchema?: string;
  /** Why the scope check refused the call. */
  refused?: string;
}

const single = (p: Prediction): p is Extract<Prediction, { kind: 'call' }> => p.kind === 'call' && p.extraCalls === 0;

/** Whether `tool` is outside the offered names (never, when what was offered is unknown). */
export const isNotOffered = (tool: string, offered: readonly string[] | undefined): boolean =>
  offered !== undefined && !offered.includes(tool);

/** The four checks in order. */
export function checkAnswer(p: Prediction, ctx: AnswerContext): Checked {
  const offer = checkOffer(p, ctx.offered);
  if (offer.notOffered) return offer;
  const argued = ctx.argumentChecks === false ? { prediction: p } : checkArguments(p, ctx);
  const scoped = checkScopes(argued.prediction, ctx.scopes);
  return { ...argued, ...scoped };
}

/** Grounding, then the schema on what grounding kept. */
function checkArguments(p: Prediction, ctx: AnswerContext): Checked {
  const grounding = checkGrounding(p, ctx);
  const schema = checkSchema(grounding.prediction, ctx.tools);
  return { ...grounding, ...schema };
}

export function checkOffer(p: Prediction, offered: readonly string[] | undefined): Checked {
  if (!single(p) || !isNotOffered(p.tool, offered)) return { prediction: p };
  return { prediction: { kind: 'no-call', verdict: NOT_OFFERED.verdict, code: NOT_OFFERED.code }, notOffered: p.tool };
}

export function checkGrounding(p: Prediction, ctx: Pick<AnswerContext, 'tools' | 'messages'>): Checked {
  if (!single(p) || !ctx.tools || !ctx.messages) return { prediction: p };
  const tool = ctx.tools.find((t) => t.function.name === p.tool);
  if (!tool) return { prediction: p };
  const { missing, droppable } = ungrounded(p.arguments, tool.function.parameters, sourceWords(ctx.messages));
  if (missing.length > 0)
    return {
      prediction: { kind: 'no-call', verdict: MISSING_ARGUMENT.verdict, code: MISSING_ARGUMENT.code },
      ungrounded: missing,
    };
  if (droppable.length === 0) return { prediction: p };
  const args = p.arguments as Record<string, unknown>;
  const kept = Object.fromEntries(Object.entries(args).filter(([k]) => !droppable.includes(k)));
  // The dropped values leave rawArguments behind with them: what remains is the call as checked.
  const { rawArguments: _raw, ...call } = p;
  return {
    prediction: { ...call, arguments: kept },
    dropped: Object.fromEntries(droppable.map((k) => [k, args[k]])),
  };
}

export function checkSchema(p: Prediction, tools: AnswerContext['tools']): Checked {
  const parameters = single(p) ? tools?.find((t) => t.function.name === p.tool)?.function.parameters : undefined;
  // No schema, or one ajv cannot compile, judges nothing.
  const validate = parameters === undefined ? null : validatorFor(parameters);
  if (!single(p) || !validate || validate(p.arguments)) return { prediction: p };
  const offSchema = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim()).join('; ');
  return { prediction: { kind: 'no-call', verdict: OFF_SCHEMA.verdict, code: OFF_SCHEMA.code }, offSchema };
}

export function checkScopes(p: Prediction, scopes: ScopeCheck | undefined): Checked {
  const refused = scopes && single(p) ? scopeRefusal(p.tool, scopes) : null;
  if (!refused) return { prediction: p };
  return {
    prediction: { kind: 'no-call', verdict: MISSING_SCOPE.verdict, code: MISSING_SCOPE.code, refused },
    refused,
  };
}
