/**
 * The router's contract as TypeScript reads it: trainer/router-contract.json is the one definition (the trainer's
 * contract.py reads the same file), so the no-call vocabulary, the rewrites the checks write, the problem codes
 * and the packaged bases are never typed twice.
 */
import contract from '../../trainer/router-contract.json' with { type: 'json' };

export type Verdict = 'abstain' | 'violation' | 'escalate';

export interface PackagedBaseSpec {
  module: string;
  pip: string;
  file: string;
  sha256: string;
  chunked: boolean;
  turns: [string, string];
  bos: boolean;
  terms: string | null;
  license: string;
}

interface RouterContract {
  version: number;
  verdicts: Verdict[];
  codes: Record<string, Verdict>;
  rewrites: Record<
    'notOffered' | 'missingArgument' | 'offSchema' | 'missingScope',
    { tool: null; verdict: Verdict; code: string }
  >;
  problems: Record<string, string>;
  hermes: { open: string; close: string };
  answerSchema: Record<string, unknown>;
  packagedBases: { conversion: number; bases: Record<string, PackagedBaseSpec> };
}

// A JSON module: the bundler and Node load it with the code, so reading the contract is not I/O of this file.
export const CONTRACT = contract as unknown as RouterContract;

export const VERDICTS: readonly Verdict[] = CONTRACT.verdicts;
/** Every code a no-call may carry, with its verdict. */
export const VERDICT_CODES: Readonly<Record<string, Verdict>> = CONTRACT.codes;

/** Why an answer is not a decision: the contract's problem codes (`problems`). */
export type ProblemCode =
  | 'empty'
  | 'not_json'
  | 'not_an_object'
  | 'no_tool_key'
  | 'bad_tool'
  | 'bad_arguments'
  | 'text_outside_blocks'
  | 'unknown_verdict'
  | 'unknown_code'
  | 'parallel_calls';

/** The no-call a call to a tool the request does not offer becomes. */
export const NOT_OFFERED = CONTRACT.rewrites.notOffered;
/** The no-call a call whose required id the conversation never gave becomes (the grounding check). */
export const MISSING_ARGUMENT = CONTRACT.rewrites.missingArgument;
/** The no-call a call whose arguments break its tool's schema becomes: the request did not give a value the call
 * can be made with (a required key left out, a number past a bound, a value outside an enum or a format). */
export const OFF_SCHEMA = CONTRACT.rewrites.offSchema;
/** The no-call a call the caller lacks scopes for becomes. */
export const MISSING_SCOPE = CONTRACT.rewrites.missingScope;
