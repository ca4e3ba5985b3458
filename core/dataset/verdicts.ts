import type { NoCallTarget } from './types.js';

/**
 * The no-call vocabulary: every code a no-call target may carry, with its verdict. The system prompt lists
 * these (render.ts), the corruption operators and unsatisfiable asks produce only these, and hand-written
 * eval cases are checked against them — one list, so the router is never asked for a code it was not told.
 */
export const VERDICT_CODES: Record<string, NoCallTarget['verdict']> = {
  no_tool: 'abstain',
  tool_not_offered: 'abstain',
  missing_argument: 'abstain',
  wrong_entity_type: 'abstain',
  missing_scope: 'violation',
  invalid_transition: 'violation',
  policy_violation: 'violation',
  rule_violation: 'violation',
  prompt_injection: 'escalate',
};

export const VERDICTS: ReadonlyArray<NoCallTarget['verdict']> = ['abstain', 'violation', 'escalate'];

/** "abstain: no_tool|tool_not_offered|…; violation: …; escalate: …" for the system prompt. */
export function codeList(): string {
  return VERDICTS.map(
    (v) =>
      `${v}: ${Object.entries(VERDICT_CODES)
        .filter(([, x]) => x === v)
        .map(([c]) => c)
        .join('|')}`,
  ).join('; ');
}
