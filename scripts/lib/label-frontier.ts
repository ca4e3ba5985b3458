/**
 * A stand-in for a frontier model, for measuring the flywheel where no frontier model can be reached: an
 * OpenAI-compatible chat completions endpoint that answers each request from the label held for its text (the last
 * user message), and answers wrongly at a seeded rate (default 5 %), as a frontier model is sometimes wrong. Its token
 * counts are estimates (characters / 4), for pricing escalations at a frontier's rates.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { estimateTokens } from '../../core/flywheel/cost.js';
import { normaliseRequest } from '../../core/flywheel/traffic.js';
import { Rng } from '../../core/rng.js';

export interface HeldLabel {
  /** The tool to call; null: no tool fits. */
  tool: string | null;
  arguments: Record<string, unknown>;
}

export interface LabelFrontierOptions {
  /** Labels by request text (matched as core/flywheel/traffic.ts normalises it). */
  labels: ReadonlyMap<string, HeldLabel>;
  /** Share of requests answered wrongly, chosen by the seed and the request's text. */
  errorRate?: number;
  seed: string;
  port?: number;
}

export interface LabelFrontierStats {
  answered: number;
  wrong: number;
  /** Requests it held no label for: answered without a call. */
  unlabelled: number;
}

export interface LabelFrontier {
  /** Its OpenAI base URL (…/v1). */
  url: string;
  stats(): LabelFrontierStats;
  close(): Promise<void>;
}

export interface ChatBody {
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: Array<{ function?: { name?: string } }>;
}

/** The name a tool was offered under: its own, or the wire name a frontier path gave it (core/catalog/wire-names.ts). */
function offeredAs(tool: string, offered: string[]): string | undefined {
  return offered.find((o) => o === tool) ?? offered.find((o) => o === tool.replace(/[^A-Za-z0-9_-]/g, '_'));
}

/** The assistant message the stand-in answers with: the call, or the text of a no-call. */
function answerMessage(call: { name: string; arguments: unknown } | null, content: string | null, id: string) {
  return call
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } },
        ],
      }
    : { role: 'assistant', content };
}

/** The tokens the stand-in reports for a request and its answer (estimated; no frontier tokenizer is reachable). */
const frontierTokens = (body: ChatBody, message: unknown) => ({
  prompt: estimateTokens([body.messages, body.tools]),
  completion: estimateTokens(message),
});

/** The tokens the stand-in would report answering `request` with its label: what escalating it would cost. */
export function labelTokens(request: ChatBody, label: HeldLabel): { prompt: number; completion: number } {
  const message = answerMessage(
    label.tool === null ? null : { name: label.tool, arguments: label.arguments },
    label.tool === null ? 'None of these tools fits this request.' : null,
    'call_1',
  );
  return frontierTokens(request, message);
}

export async function startLabelFrontier(opts: LabelFrontierOptions): Promise<LabelFrontier> {
  const errorRate = opts.errorRate ?? 0.05;
  if (!(errorRate >= 0 && errorRate <= 1)) throw new RangeError(`errorRate must be in [0, 1], not ${errorRate}`);
  const labels = new Map([...opts.labels].map(([text, label]) => [normaliseRequest(text), label]));
  const stats: LabelFrontierStats = { answered: 0, wrong: 0, unlabelled: 0 };

  const answer = (body: ChatBody) => {
    const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
    const text = normaliseRequest(typeof user?.content === 'string' ? user.content : '');
    const offered = (body.tools ?? []).flatMap((t) => (t.function?.name ? [t.function.name] : []));
    const label = labels.get(text);
    if (!label) {
      stats.unlabelled++;
      return { call: null, content: 'No label is held for this request.' };
    }
    const right = label.tool === null ? undefined : offeredAs(label.tool, offered);
    if (new Rng(`${opts.seed}:${text}`).next() < errorRate) {
      stats.wrong++;
      const other = offered.find((o) => o !== right);
      if (other) return { call: { name: other, arguments: label.tool === null ? {} : label.arguments }, content: null };
      return { call: null, content: 'None of these tools fits.' };
    }
    if (label.tool === null) return { call: null, content: 'None of these tools fits this request.' };
    if (!right) return { call: null, content: `The tool this needs (${label.tool}) is not offered.` };
    return { call: { name: right, arguments: label.arguments }, content: null };
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      let body: ChatBody;
      try {
        body = JSON.parse(raw) as ChatBody;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"body is not JSON"}}');
        return;
      }
      const a = answer(body);
      stats.answered++;
      const message = answerMessage(a.call, a.content, `call_${stats.answered}`);
      const { prompt: promptTokens, completion: completionTokens } = frontierTokens(body, message);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${stats.answered}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'label-frontier',
          choices: [{ index: 0, message, finish_reason: a.call ? 'tool_calls' : 'stop' }],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stats: () => ({ ...stats }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
