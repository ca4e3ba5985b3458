/**
 * Stable error codes every sandbox returns (in `structuredContent.error.code` of an isError result).
 * Training negatives are labelled by these codes, so they never change meaning.
 */
export const ERROR_CODES = {
  UNKNOWN_TOOL: 'no tool with that name',
  INVALID_ARGUMENTS: 'arguments do not match the tool inputSchema (types are never coerced)',
  PAYLOAD_TOO_LARGE: 'the arguments exceed the size limit',
  INSUFFICIENT_SCOPE: 'the caller lacks a scope the tool requires',
  NOT_FOUND: 'a referenced record does not exist',
  INVALID_QUERY: 'the query is outside the supported safe subset',
  INVALID_STATUS_TRANSITION: 'the record cannot move from its current status/stage to the requested one',
  REQUIRED_FIELD_MISSING: 'a field required by a business rule (not by the schema) is missing',
  DUPLICATE_RECORD: 'a record with the same natural key already exists',
  POLICY_LIMIT_EXCEEDED: 'an amount, discount or limit is beyond policy',
  CURRENCY_MISMATCH: 'the currency differs from the one of the record it applies to',
  PERIOD_CLOSED: 'the GL period is not open for this operation',
  JOURNAL_UNBALANCED: 'journal debits and credits differ',
  AMOUNT_EXCEEDS_BALANCE: 'the amount is larger than the remaining balance',
  DEPENDENT_RECORDS_EXIST: 'the record has open dependent records',
  INTERNAL_ERROR: 'a bug in the sandbox; the call had no effect',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A business-rule or input failure: reported to the caller as an isError result, never thrown through. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function fail(code: ErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new SandboxError(code, message, details);
}
