/**
 * A local OpenAI-compatible chat completions server that answers from a script. It stands in for a real
 * teacher endpoint (OpenAI, vLLM), which cannot be reached from here. The script is the inverse of the
 * teacher's prompts: a generated request embeds the call it asks for, and solving reads it back.
 * Faults are injected on the first attempt of selected requests: 429 (retry-after-ms), 500, a hang past
 * the client timeout, a 200 whose content is not JSON, or a drafting answer that leaves out its last task. `latencyMs` delays every answer (a real teacher's
 * generation time); `hold()` parks answers until `release()`, when those whose client has gone (a killed worker)
 * are dropped unanswered. `answersByRequest()` counts the answers each request got: a teacher bills each one.
 * `dieAfter` answers, the server drops every connection (a dead endpoint) until `revive()`.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export type Fault = '429' | '500' | 'hang' | 'garbage' | 'always-garbage' | 'partial';

export interface StandIn {
  url: string;
  requests: number;
  /** When each chat completion request arrived (ms since the epoch), in order. */
  arrivals: number[];
  faultsServed: Record<string, number>;
  /** Answers delivered (200s with a teacher's answer), all requests together. */
  answered: number;
  /** Answers waiting for `release()`. */
  parked: number;
  hold(): void;
  release(): void;
  /** Answers delivered so far, per request (the hash of its messages). */
  answersByRequest(): Map<string, number>;
  /** The `seed` of every request that carried one. */
  seeds: Set<number>;
  /** The first user message of every request, in order (what the teacher asked). */
  prompts: string[];
  /** After `dieAfter` answers the endpoint dropped every connection, as a dead server does: answer again. */
  revive(): void;
  close(): Promise<void>;
}

interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  tools?: Array<{ function: { name: string } }>;
}

/** A drafting prompt's numbered tasks, each answered with a request that embeds its call (or restates its goal). */
function draft(user: string, partial: boolean): string {
  const tasks = user.split('\n').flatMap((line) => {
    const task = /^Task (\d+): (.*)$/.exec(line);
    return task ? [{ task: Number(task[1]), text: task[2]! }] : [];
  });
  const requests = tasks.map(({ task, text }) => {
    const call = /will call (\w+) with (\{.*\}); mention/.exec(text);
    const request = call
      ? `Please run ${call[1]} using ${call[2]}`
      : `Could you help with this: ${text.replace(/^.*keeping its meaning: /, '')}`;
    return { task, request };
  });
  // A partial answer leaves out the last task, as a model that stops short does.
  return JSON.stringify({ requests: partial && requests.length > 1 ? requests.slice(0, -1) : requests });
}

function answer(body: ChatBody, partial = false): { content: string | null; tool_calls?: unknown[] } {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  if (!body.tools) return { content: draft(user, partial) };
  const m = /Please run (\w+) using (\{.*\})$/.exec(user);
  if (m && body.tools.some((t) => t.function.name === m[1])) {
    return {
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: m[1], arguments: m[2] } }],
    };
  }
  return { content: JSON.stringify({ tool: null, reason: 'no tool can do this' }) };
}

/** `faultFor(bodyHash)` picks the fault (if any) for the first attempt at a request; `apiKey` is the only key it accepts. */
export async function startStandIn(
  faultFor: (key: string) => Fault | undefined = () => undefined,
  hangMs = 2500,
  latencyMs = 0,
  apiKey = 'test-key',
  opts: { dieAfter?: number } = {},
): Promise<StandIn> {
  let dieAfter = opts.dieAfter ?? Infinity;
  const seeds = new Set<number>();
  const prompts: string[] = [];
  const attempts = new Map<string, number>();
  const answers = new Map<string, number>();
  const state = {
    requests: 0,
    arrivals: [] as number[],
    answered: 0,
    faultsServed: {} as Record<string, number>,
    holding: false,
    parked: [] as Array<() => void>,
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      state.requests++;
      state.arrivals.push(Date.now());
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return void res.writeHead(404).end('{}');
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
      // A dead endpoint: the connection drops without an answer (the client sees it as a connection error).
      if (state.answered >= dieAfter) return void req.socket.destroy();
      const body = JSON.parse(raw) as ChatBody & { seed?: number };
      if (typeof body.seed === 'number') seeds.add(body.seed);
      prompts.push(body.messages.find((m) => m.role === 'user')?.content ?? '');
      const key = createHash('sha256').update(JSON.stringify(body.messages)).digest('hex');
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      const fault = faultFor(key);
      const firstUser = body.messages.find((m) => m.role === 'user')?.content ?? '';
      // A partial answer needs a second task to leave out.
      const canServe = fault !== 'partial' || (!body.tools && /^Task 2: /m.test(firstUser));
      const serveFault = canServe && (fault === 'always-garbage' || (fault && n === 1));
      if (serveFault) state.faultsServed[fault!] = (state.faultsServed[fault!] ?? 0) + 1;
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
      if (serveFault && fault === '429')
        return void json(429, { error: { message: 'rate limited' } }, { 'retry-after-ms': '20' });
      if (serveFault && fault === '500') return void json(500, { error: { message: 'boom' } });
      if (serveFault && fault === 'hang') return void setTimeout(() => res.destroyed || json(500, {}), hangMs);
      const message =
        serveFault && fault !== 'partial'
          ? { role: 'assistant', content: 'Sure! {not json' }
          : { role: 'assistant', ...answer(body, serveFault && fault === 'partial') };
      const deliver = () => {
        if (state.holding) return void state.parked.push(deliver);
        // A client that has gone (its worker killed) gets no answer and pays for none.
        if (res.destroyed || req.socket.destroyed) return;
        if (!serveFault || fault === 'partial') {
          answers.set(key, (answers.get(key) ?? 0) + 1);
          state.answered++;
        }
        json(200, {
          id: 'cmpl',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      };
      if (latencyMs > 0) setTimeout(deliver, latencyMs);
      else deliver();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get arrivals() {
      return state.arrivals;
    },
    get answered() {
      return state.answered;
    },
    get parked() {
      return state.parked.length;
    },
    hold: () => {
      state.holding = true;
    },
    release: () => {
      state.holding = false;
      for (const deliver of state.parked.splice(0)) deliver();
    },
    answersByRequest: () => new Map(answers),
    seeds,
    prompts,
    revive: () => {
      dieAfter = Infinity;
    },
    faultsServed: state.faultsServed,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
