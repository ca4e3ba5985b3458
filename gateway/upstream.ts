/** One POST to an OpenAI-compatible /chat/completions, with a timeout and the upstream's own error message. */
import type { AssistantMessage, ChoiceLogprobs } from '../core/router/confidence.js';
import { TransientError } from '../core/errors.js';

export interface ChatCompletion {
  model?: string;
  choices: Array<{
    index?: number;
    message: AssistantMessage;
    finish_reason?: string | null;
    logprobs?: ChoiceLogprobs | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
  [k: string]: unknown;
}

/** The upstream answered with an error status, an unusable body, or not at all (status null). */
export class UpstreamError extends TransientError {
  override name = 'UpstreamError';
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.error?.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || '(empty body)';
}

/** `baseUrl` is the OpenAI base (…/v1). */
export async function postChat(
  baseUrl: string,
  body: Record<string, unknown>,
  opts: { timeoutMs: number; apiKey?: string },
): Promise<ChatCompletion> {
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${opts.timeoutMs} ms`
        : `${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}`;
    throw new UpstreamError(null, `${url}: ${why}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new UpstreamError(null, `${url}: reading the answer failed: ${(err as Error).message}`);
  }
  if (!res.ok) throw new UpstreamError(res.status, `${url} answered ${res.status}: ${errorMessage(text)}`);
  let json: ChatCompletion;
  try {
    json = JSON.parse(text) as ChatCompletion;
  } catch {
    throw new UpstreamError(
      res.status,
      `${url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (!Array.isArray(json?.choices) || !json.choices[0]?.message)
    throw new UpstreamError(res.status, `${url} answered without choices[0].message`);
  return json;
}
