/**
 * Local OpenAI-compatible servers for the gateway tests.
 *
 * startBackendStandIn stands in for a serving backend (the trainer's `serve`, vLLM, LoRAX): it answers scripted
 * router decisions the way the trainer's serve does (a call as message.tool_calls, an abstention as router JSON
 * content) and, when asked, with OpenAI `logprobs.content` tokens whose probabilities on the chosen tool name
 * multiply to the scripted confidence. The real trainer-serve path is tested in trainer-serve.test.ts.
 *
 * startFrontierStandIn stands in for a frontier endpoint (e.g. OpenAI): it requires a Bearer key and answers a
 * scripted message, or fails with a 500 while `failing` is set.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { canonicalJson } from '../../core/hash.js';

export type Scripted =
  | { call: string; arguments: Record<string, unknown>; confidence: number }
  | { abstain: { code: string; reason: string; verdict?: string }; confidence: number }
  /** Output that is not a decision (sent as content, with uniform logprobs). */
  | { raw: string }
  | { status: number; message: string };

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content?: string | null }>;
  tools?: Array<{ type: 'function'; function: { name: string } }>;
  logprobs?: boolean;
  [k: string]: unknown;
}

interface Running {
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

export type BackendStandIn = Running;
export interface FrontierStandIn extends Running {
  failing: boolean;
  authorizations: Array<string | undefined>;
}

/** A crude tokenizer: words, digits, runs of spaces, single punctuation characters (so `get_record` is 3 tokens). */
export function tokenize(text: string): string[] {
  return text.match(/[A-Za-z]+|\d+|\s+|[^A-Za-z\d\s]/g) ?? [];
}

/** Logprobs whose tokens inside `span` (a substring located after `"tool":`) sum to ln(confidence). */
function logprobsFor(text: string, span: string | null, confidence: number) {
  const tokens = tokenize(text);
  let start = -1;
  if (span !== null) {
    const key = text.lastIndexOf('"tool":');
    start = text.indexOf(span, key);
  }
  const end = start + (span?.length ?? 0);
  let pos = 0;
  const inside = tokens.map((t) => {
    const a = pos;
    pos += t.length;
    return start >= 0 && a < end && pos > start;
  });
  const n = inside.filter(Boolean).length;
  return {
    content: tokens.map((token, i) => {
      const logprob = inside[i] ? Math.log(confidence) / n : -0.0001;
      return {
        token,
        logprob,
        bytes: [...Buffer.from(token)],
        top_logprobs: [{ token, logprob, bytes: [...Buffer.from(token)] }],
      };
    }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => resolve(raw));
  });
}

function json(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function completion(model: string, message: unknown, finish: string, logprobs: unknown) {
  return {
    id: 'chatcmpl-stand-in',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason: finish, logprobs }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

export async function startBackendStandIn(script: (body: ChatRequest) => Scripted): Promise<BackendStandIn> {
  const requests: ChatRequest[] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node ignores the promise; a throw here fails the test that caused it
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return json(res, 404, { error: { message: `no route ${req.url}` } });
    const body = JSON.parse(raw) as ChatRequest;
    requests.push(body);
    const s = script(body);
    if ('status' in s)
      return json(res, s.status, { error: { message: s.message, type: 'BadRequestError', code: s.status } });
    if ('raw' in s)
      return json(
        res,
        200,
        completion(
          body.model,
          { role: 'assistant', content: s.raw },
          'stop',
          body.logprobs ? logprobsFor(s.raw, null, 1) : null,
        ),
      );
    if ('call' in s) {
      const text = canonicalJson({ tool: s.call, arguments: s.arguments });
      const message = {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_standin1', type: 'function', function: { name: s.call, arguments: JSON.stringify(s.arguments) } },
        ],
      };
      return json(
        res,
        200,
        completion(body.model, message, 'tool_calls', body.logprobs ? logprobsFor(text, s.call, s.confidence) : null),
      );
    }
    const text = canonicalJson({
      tool: null,
      verdict: s.abstain.verdict ?? 'abstain',
      code: s.abstain.code,
      reason: s.abstain.reason,
    });
    return json(
      res,
      200,
      completion(
        body.model,
        { role: 'assistant', content: text },
        'stop',
        body.logprobs ? logprobsFor(text, 'null', s.confidence) : null,
      ),
    );
  });
  const running = await listen(server);
  return { ...running, requests };
}

export async function startFrontierStandIn(
  key: string,
  answer: (body: ChatRequest) => Record<string, unknown>,
): Promise<FrontierStandIn> {
  const state: FrontierStandIn = { url: '', requests: [], authorizations: [], failing: false, close: async () => {} };
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node ignores the promise; a throw here fails the test that caused it
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return json(res, 404, { error: { message: `no route ${req.url}` } });
    state.authorizations.push(req.headers.authorization);
    // OpenAI echoes the refused key (partly masked); this one echoes it whole, the harder case for redaction.
    if (req.headers.authorization !== `Bearer ${key}`)
      return json(res, 401, {
        error: {
          message: `Incorrect API key provided: ${String(req.headers.authorization).replace(/^Bearer /, '')}`,
          type: 'invalid_request_error',
        },
      });
    const body = JSON.parse(raw) as ChatRequest;
    state.requests.push(body);
    if (state.failing)
      return json(res, 500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      });
    const message = { role: 'assistant', content: null, ...answer(body) };
    return json(res, 200, completion(body.model, message, 'tool_calls', null));
  });
  const running = await listen(server);
  state.url = running.url;
  state.close = running.close;
  return state;
}
