import type { EvaluateConfig } from '../config/schema.js';
import { sha256Hex } from '../hash.js';
import { PACKAGED_BASES, BASE_CONVERSION } from '../train/packaged-bases.js';

/**
 * Bump when scoring or serving changes what a base would score (decoding, parsing, metrics). 2: the constraint's
 * tokenizer alphabet and no exponents in numbers; serve's greedy decoder. 3: calls the caller
 * may not make are scored as the missing_scope violation (core/scope-guard.ts). 4: calls to a tool the case did not
 * offer are scored as tool_not_offered. 5: serve's copy prior on argument values, its
 * grounding check, and the date/date-time/time/uuid formats forced as patterns (trainer/flywheel_trainer/priors.py,
 * grounding.py, constrain.py). 6: serve's fill prior on optional values the request states (fill.py). 7: one
 * router contract (core/router/answer.ts: a no-call's code must be one of its verdict's) and the offer, grounding
 * and scope checks made after the answer for every endpoint (core/router/checks.ts), no longer inside serve. 8: the
 * schema check after the answer (a call off its tool's schema is the missing_argument no-call). 9: asked for logprobs,
 * as the candidate is, so their latency compares alike (and each case carries its confidence).
 */
export const BASE_SCORES_VERSION = 9;

/**
 * The store pointer holding a base model's eval result on these cases, or null when the base has no stable
 * identity: a tiny:<preset> base is built per run from its data (its adapter records "../base"). A packaged base
 * is named by its GGUF's sha256 and conversion; a Hugging Face id or local path by its name (a path whose
 * weights change in place keeps its old scores: give it a new path).
 */
export function baseScoresKey(
  base: string,
  testSetSha: string,
  caseIds: string[],
  cfg: Pick<EvaluateConfig, 'bootstrap' | 'cost' | 'maxTokens' | 'timeoutMs' | 'maxRetries'>,
): string | null {
  if (base === 'unknown' || base.startsWith('.') || base.startsWith('tiny:')) return null;
  const packaged = PACKAGED_BASES[base];
  const identity = packaged ? `${base}@${packaged.ggufSha256}/conversion-${BASE_CONVERSION}` : base;
  const digest = sha256Hex(
    JSON.stringify({
      v: BASE_SCORES_VERSION,
      identity,
      testSetSha,
      caseIds,
      bootstrap: cfg.bootstrap,
      cost: cfg.cost,
      // An answer cut short, or a request that timed out, scores as invalid: these limits change the scores.
      maxTokens: cfg.maxTokens,
      timeoutMs: cfg.timeoutMs,
      maxRetries: cfg.maxRetries,
    }),
  );
  return `base-scores/${digest}`;
}
