import OpenAI from 'openai';
import type { Limiter } from '../../ratelimit/limiter.js';
import { InputError } from '../../errors.js';
import { redact, refusedCredential } from '../../secrets.js';

export class TeacherQuotaError extends InputError {
  override name = 'TeacherQuotaError';
}

/** The endpoint refused the API key (401/403): the message names the variable that holds it. */
export class TeacherKeyError extends InputError {
  override name = 'TeacherKeyError';
}

/**
 * The endpoint refused the request itself (a 4xx other than 408, 409 and 429: an unknown model, a field it does not
 * take, tools it cannot call): the same request cannot succeed later, so it is not retried.
 */
export class TeacherRequestError extends InputError {
  override name = 'TeacherRequestError';
}

export interface SendPolicy {
  /** The environment variable the client's API key came from, for an error that names it. */
  keyEnv: string;
  /** Retries of 5xx, 408/409, timeouts and dropped connections per request. */
  maxRetries: number;
  limiter?: Limiter;
  /** Called on every 429 and before each slice of a long wait, so the activity keeps heartbeating. */
  onWait?: (info: { rateLimited: number; waitMs: number }) => void;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * One chat completion, every HTTP attempt through the shared budget (the SDK's own retries are off, since they
 * would bypass it). A 429 holds every worker for its Retry-After (else an exponential backoff) and is retried
 * without counting against maxRetries: a busy endpoint slows the chunk, it does not fail it. A 429 for an
 * exhausted quota cannot succeed later and fails at once.
 */
export async function send(
  client: OpenAI,
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  policy: SendPolicy,
): Promise<OpenAI.Chat.ChatCompletion> {
  const estimate = estimateTokens(body);
  let failures = 0;
  let rateLimited = 0;
  for (;;) {
    const settle = await policy.limiter?.acquire(estimate);
    try {
      const completion = await client.chat.completions.create(body);
      await settle?.(completion.usage?.total_tokens ?? estimate);
      return completion;
    } catch (e) {
      await settle?.(estimate);
      if (e instanceof OpenAI.RateLimitError) {
        if (quotaExhausted(e))
          throw new TeacherQuotaError(
            `teacher: the endpoint refused with 429 insufficient_quota (the account's quota is spent; retrying cannot help): ${e.message}`,
          );
        const waitMs = retryAfterMs(e.headers) ?? Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(rateLimited, 5));
        rateLimited++;
        policy.onWait?.({ rateLimited, waitMs });
        if (policy.limiter) await policy.limiter.holdFor(waitMs);
        else await new Promise((r) => setTimeout(r, waitMs));
        continue;
      }
      if (e instanceof OpenAI.APIError && refusedCredential(e.status)) {
        const env = policy.keyEnv;
        throw new TeacherKeyError(
          `teacher: ${client.baseURL} refused the API key in ${env} (${e.status}); set ${env} to a valid key on every worker: ${redact(e.message, client.apiKey, env)}`,
        );
      }
      if (e instanceof OpenAI.APIError && e.status !== undefined && e.status < 500 && !retryable(e))
        throw new TeacherRequestError(
          `teacher: ${client.baseURL} refused the request (${e.status}); it cannot succeed on a retry: ${redact(e.message, client.apiKey, policy.keyEnv)}`,
          { cause: e },
        );
      if (!retryable(e) || failures >= policy.maxRetries) throw e;
      await new Promise((r) => setTimeout(r, Math.min(MAX_BACKOFF_MS, 500 * 2 ** failures)));
      failures++;
    }
  }
}

function retryable(e: unknown): boolean {
  if (e instanceof OpenAI.APIConnectionError) return true; // includes timeouts
  return (
    e instanceof OpenAI.APIError && e.status !== undefined && (e.status >= 500 || e.status === 408 || e.status === 409)
  );
}

function quotaExhausted(e: InstanceType<typeof OpenAI.RateLimitError>): boolean {
  const error = e.error as { code?: unknown; type?: unknown } | undefined;
  return error?.code === 'insufficient_quota' || error?.type === 'insufficient_quota';
}

/** `retry-after-ms` or `retry-after` (seconds or an HTTP date), as OpenAI and most gateways send them. */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** What a request may cost the token bucket before its usage is known: its text at ~4 characters a token, plus the answer's cap. */
export function estimateTokens(body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming): number {
  const text = JSON.stringify(body.messages).length + (body.tools ? JSON.stringify(body.tools).length : 0);
  return Math.ceil(text / 4) + (body.max_completion_tokens ?? body.max_tokens ?? 256);
}
