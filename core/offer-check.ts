/**
 * The offer check after the router: a call naming a tool the request does not offer is answered as the
 * tool_not_offered no-call. The router names the tool a request needs (router-json adapters are taught to name it
 * even when it is left out, core/dataset/taught.ts); whether the request offers it is a lookup. `flywheel serve`
 * makes it in its decoder; the gateway and the evaluator make it for any backend, so every path answers alike.
 */
import { VERDICT_CODES } from './dataset/verdicts.js';

/** The no-call a call to a tool the request does not offer becomes, its verdict from the one vocabulary. */
export const NOT_OFFERED = { tool: null, verdict: VERDICT_CODES.tool_not_offered!, code: 'tool_not_offered' } as const;

/** Whether `tool` is outside the offered names (never, when what was offered is unknown). */
export const isNotOffered = (tool: string, offered: readonly string[] | undefined): boolean =>
  offered !== undefined && !offered.includes(tool);
