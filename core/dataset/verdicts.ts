import { VERDICT_CODES, VERDICTS } from '../router/contract.js';

/**
 * The no-call vocabulary lives in the router contract (trainer/router-contract.json): every code a no-call target
 * may carry, with its verdict. The system prompt lists these (render.ts), the corruption operators and
 * unsatisfiable asks produce only these, and hand-written eval cases are checked against them.
 */
export { VERDICT_CODES, VERDICTS };

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
