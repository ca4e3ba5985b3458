import OpenAI from 'openai';
import { fromWire, toWire } from '../../catalog/wire-names.js';
import type { ArtifactStore } from '../../artifacts/index.js';
import type { TeacherConfig } from '../../config/schema.js';
import { canonicalJson, hashOf } from '../../hash.js';
import { pool } from '../../pool.js';
import type { Intent } from '../types.js';
import type { Candidate, RequestDraft, Teacher } from './types.js';
import { InputError } from '../../errors.js';
import { openLimiter, type Limiter } from '../../ratelimit/limiter.js';
import { send } from './send.js';

type OpenAiConfig = Extract<TeacherConfig, { kind: 'openai' }>;

/** How often a malformed answer (unparseable, wrong shape) is asked again before it counts as a rejection. */
export const MALFORMED_RETRIES = 2;

export class TeacherConfigError extends InputError {
  override name = 'TeacherConfigError';
}

export interface ToolDef {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A teacher on any OpenAI-compatible endpoint. Drafting asks for `batchSize` intents' requests in one prompt
 * (numbered tasks); solving asks one request per call, with the domain's tools, as a router is asked. Every HTTP
 * attempt waits for the endpoint's shared budget (`rateLimit`, when set); 429s back off (Retry-After honoured)
 * without failing, 5xx and timeouts are retried up to maxRetries (send.ts); a malformed answer is asked again up to
 * MALFORMED_RETRIES times and then becomes a counted rejection. Every good response is cached in the artifact
 * store under the hash of its request, so an activity retry or a resumed run never pays for it twice.
 */
export function openaiTeacher(
  config: OpenAiConfig,
  deps: { store: ArtifactStore; onProgress?: (d: unknown) => void; seed?: string | number },
  toolsByDomain?: Map<string, ToolDef[]>,
): Teacher {
  // The dataset's seed goes with every request (endpoints that honour it sample reproducibly) and so into its
  // cache key: a new seed asks anew, the same seed reads the cache.
  const seed = deps.seed === undefined ? {} : { seed: Number.parseInt(hashOf(deps.seed).slice(0, 8), 16) };
  const apiKey = process.env[config.apiKeyEnv];
  if (!apiKey)
    throw new TeacherConfigError(
      `teacher: environment variable ${config.apiKeyEnv} (API key for ${config.baseUrl}) is not set on this worker`,
    );
  // Retries are send()'s, so that each attempt passes the shared budget.
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey, maxRetries: 0, timeout: config.timeoutMs });
  const counters = {
    requests: 0,
    cacheHits: 0,
    malformedRetries: 0,
    malformed: 0,
    // Intents a batched drafting answer left out or wrote badly, asked again on their own.
    askedAlone: 0,
    rateLimited: 0,
    // Tokens the endpoint billed for this activity's calls (cached answers cost nothing again).
    promptTokens: 0,
    completionTokens: 0,
  };
  let done = 0;
  const beat = () => deps.onProgress?.({ done, ...counters });
  let limiter: Promise<Limiter> | undefined;
  const limiterOf = () => (limiter ??= openLimiter(`teacher:${config.baseUrl}`, config.rateLimit!, beat));
  const policy = async () => ({
    keyEnv: config.apiKeyEnv,
    maxRetries: config.maxRetries,
    limiter: config.rateLimit ? await limiterOf() : undefined,
    onWait: () => {
      counters.rateLimited++;
      beat();
    },
  });

  // Identical requests in flight at once (two intents that read the same) share one call.
  const inFlight = new Map<string, Promise<OpenAI.Chat.ChatCompletionMessage | undefined>>();
  const call = (key: string, body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) => {
    let pending = inFlight.get(key);
    if (pending) {
      counters.cacheHits++;
      return pending;
    }
    counters.requests++;
    pending = (async () => {
      const completion = await send(client, body, await policy());
      counters.promptTokens += completion.usage?.prompt_tokens ?? 0;
      counters.completionTokens += completion.usage?.completion_tokens ?? 0;
      const message = completion.choices[0]?.message;
      if (message) await deps.store.putPointer(key, message);
      return message;
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
    return pending;
  };

  /**
   * One chat completion, through the cache. `parse` returns undefined for a malformed answer, and so does ask
   * after MALFORMED_RETRIES more tries (the caller counts the rejection). Tools go under wire names (an API refuses `uber.ride`), and the answer's calls come back under the catalog's names.
   */
  async function ask<T>(
    request: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    parse: (m: OpenAI.Chat.ChatCompletionMessage) => T | undefined,
  ): Promise<T | undefined> {
    const { body, names } = toWire(request);
    for (let attempt = 0; attempt <= MALFORMED_RETRIES; attempt++) {
      const key = `teacher-cache/${hashOf({ baseUrl: config.baseUrl, body, attempt })}`;
      let message = await deps.store.getPointer<OpenAI.Chat.ChatCompletionMessage>(key);
      if (message) counters.cacheHits++;
      else message = await call(key, body);
      const parsed = message ? parse(fromWire(message, names)) : undefined;
      if (parsed !== undefined) return parsed;
      if (attempt < MALFORMED_RETRIES) counters.malformedRetries++;
    }
    return undefined;
  }

  const progress = () => {
    // Every answer heartbeats: a slow endpoint must not look like a dead worker.
    done++;
    beat();
  };

  /** One request drafts every intent of the batch; one the answer leaves out or writes badly is asked alone. */
  async function draftBatch(batch: Intent[]): Promise<RequestDraft[]> {
    const written = await ask(draftingRequest(config, seed, batch), (m) => parseDrafts(m.content, batch.length));
    const drafts: RequestDraft[] = [];
    for (const [i, intent] of batch.entries()) {
      const request = written?.get(i + 1);
      if (request === undefined && batch.length > 1) {
        counters.askedAlone++;
        drafts.push(...(await draftBatch([intent])));
        continue;
      }
      if (request === undefined) counters.malformed++;
      progress();
      drafts.push({
        intentId: intent.id,
        request: request ?? '',
        teacher: teacher.name,
        ...(request === undefined ? { malformed: 'no parseable request after retries' } : {}),
      });
    }
    return drafts;
  }

  const teacher = {
    name: `openai:${config.model}`,
    stats: () => ({ ...counters, ...teacherCost(counters, config.pricing) }),
    async close() {
      // A store that never opened has nothing to close (its error already failed the calls that needed it).
      await limiter?.then(
        (l) => l.close(),
        () => undefined,
      );
    },
    async generate(intents: Intent[], range?: { from: number; to: number }): Promise<RequestDraft[]> {
      const todo = range ? intents.slice(range.from, range.to) : intents;
      // Batches are cut in order from the range, so a rerun asks the same prompts and reads them from the cache.
      const batches = Array.from({ length: Math.ceil(todo.length / config.batchSize) }, (_, b) =>
        todo.slice(b * config.batchSize, (b + 1) * config.batchSize),
      );
      return (await pool(batches, config.concurrency, draftBatch)).flat();
    },
    async solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]> {
      const byId = new Map(intents.map((i) => [i.id, i]));
      return pool(drafts, config.concurrency, async (d) => {
        const intent = byId.get(d.intentId);
        if (!intent) throw new Error(`draft for unknown intent ${d.intentId}`);
        if (d.malformed)
          return {
            intentId: d.intentId,
            request: d.request,
            target: { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: '' },
            teacher: teacher.name,
            malformed: d.malformed,
          };
        const tools = toolsByDomain?.get(intent.domain) ?? [];
        const answer = await ask(
          {
            model: config.model,
            ...seed,
            temperature: 0,
            ...answerCap(config),
            tools: tools.map((t) => ({
              type: 'function' as const,
              function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
            })),
            messages: [
              {
                role: 'system',
                content: `You are a tool router for ${intent.domain}. Call exactly one tool with exact arguments, or, if no tool can do it, reply with JSON {"tool": null, "reason": "..."}. Caller scopes: ${intent.persona.scopes.join(', ')}.`,
              },
              { role: 'user', content: d.request },
            ],
          },
          (m): Candidate['target'] | undefined => {
            const call = m.tool_calls?.[0];
            if (call && call.type === 'function') {
              try {
                const args = JSON.parse(call.function.arguments) as unknown;
                if (args && typeof args === 'object' && !Array.isArray(args))
                  return { tool: call.function.name, arguments: args as Record<string, unknown> };
              } catch {
                return undefined;
              }
              return undefined;
            }
            try {
              const j = JSON.parse(m.content ?? '') as { tool?: unknown; reason?: unknown };
              if (j.tool === null)
                return {
                  tool: null,
                  verdict: 'abstain',
                  code: 'no_tool',
                  reason: typeof j.reason === 'string' ? j.reason : 'no tool fits',
                };
            } catch {
              return undefined;
            }
            return undefined;
          },
        );
        progress();
        if (answer === undefined) {
          counters.malformed++;
          return {
            intentId: d.intentId,
            request: d.request,
            target: { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' },
            teacher: teacher.name,
            malformed: 'no parseable answer after retries',
          };
        }
        return { intentId: d.intentId, request: d.request, target: answer, teacher: teacher.name };
      });
    },
  };
  return teacher;
}

/**
 * How to write one request, picked by the intent's id so a rerun asks the same: the variety people type in (a
 * question, an indirect ask, a terse note, an unrelated sentence first, values first, a plain command).
 */
export const STYLE_HINTS = [
  'Write it as a question.',
  "Ask indirectly, the way people do ('I need …', 'I'd like …', 'can you help me …').",
  'Write it as a short, terse note typed in a hurry, no greeting.',
  'Start with a sentence about something else the person is busy with, then ask.',
  'Give the values first, then say what should be done with them.',
  'Write it as a plain command.',
];

export function styleHint(intentId: string): string {
  return STYLE_HINTS[Number.parseInt(hashOf(intentId).slice(0, 8), 16) % STYLE_HINTS.length]!;
}

/** What one intent's drafting task says: the call to ask for, in the style its id picks, or a goal to rephrase. */
function draftingTask(intent: Intent): string {
  return intent.tool
    ? `Write the message a ${intent.persona.name} would type to an assistant to get this done. The assistant will call ${intent.tool}${intent.toolDescription ? ` (${intent.toolDescription})` : ''} with ${canonicalJson(intent.arguments)}; mention every value it needs, naturally, without naming the tool. ${styleHint(intent.id)} Use the words a person would use for what they want done, not the tool's description, and keep every value exactly as given.`
    : `Rephrase this request the way a ${intent.persona.name} would type it, keeping its meaning: ${intent.phrasings[0]}`;
}

/** The configured cap on an answer's tokens; nothing when unset (so requests, and their cache keys, stay as they were). */
function answerCap(config: OpenAiConfig): { max_completion_tokens?: number } {
  return config.maxTokens ? { max_completion_tokens: config.maxTokens } : {};
}

/** How a drafting answer is asked to be JSON: its exact schema (one entry per task), any object, or not at all. */
function draftFormat(
  config: OpenAiConfig,
  tasks: number,
): Pick<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'response_format'> {
  if (config.jsonSchema) {
    const entry = {
      type: 'object',
      properties: { task: { type: 'integer' }, request: { type: 'string' } },
      required: ['task', 'request'],
      additionalProperties: false,
    };
    const schema = {
      type: 'object',
      properties: { requests: { type: 'array', items: entry, minItems: tasks, maxItems: tasks } },
      required: ['requests'],
      additionalProperties: false,
    };
    return { response_format: { type: 'json_schema', json_schema: { name: 'requests', strict: true, schema } } };
  }
  return config.jsonMode ? { response_format: { type: 'json_object' } } : {};
}

/** One drafting request for a batch of intents: numbered tasks, one line each, answered as one JSON object. */
function draftingRequest(
  config: OpenAiConfig,
  seed: { seed?: number },
  batch: Intent[],
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const intro =
    batch.length === 1
      ? 'Write one message for this task.'
      : `Write ${batch.length} messages, one per task; each is typed by a different person, on its own.`;
  return {
    model: config.model,
    ...seed,
    temperature: config.temperature,
    ...answerCap(config),
    ...draftFormat(config, batch.length),
    messages: [
      {
        role: 'system',
        content:
          'You write realistic user requests for an enterprise assistant. Reply with JSON: {"requests": [{"task": 1, "request": "..."}, ...]}, one entry per task.',
      },
      {
        role: 'user',
        content: [intro, ...batch.map((intent, i) => `Task ${i + 1}: ${draftingTask(intent)}`)].join('\n'),
      },
    ],
  };
}

/**
 * The requests a drafting answer wrote, by task number; undefined when it wrote none (malformed: asked again).
 * A single task may also come back as `{"request": "..."}`, the shape models fall into.
 */
function parseDrafts(content: string | null | undefined, tasks: number): Map<number, string> | undefined {
  let answer: { requests?: unknown; request?: unknown };
  try {
    answer = JSON.parse(content ?? '') as typeof answer;
  } catch {
    return undefined;
  }
  const written = new Map<number, string>();
  const text = (r: unknown) => (typeof r === 'string' && r.trim().length > 0 ? r.trim() : undefined);
  if (Array.isArray(answer?.requests))
    for (const entry of answer.requests as Array<{ task?: unknown; request?: unknown }>) {
      const task = Number(entry?.task);
      const request = text(entry?.request);
      if (Number.isInteger(task) && task >= 1 && task <= tasks && request && !written.has(task))
        written.set(task, request);
    }
  else if (tasks === 1 && text(answer?.request)) written.set(1, text(answer.request)!);
  return written.size > 0 ? written : undefined;
}

/** The calls' cost in dollars at the configured prices; nothing when no prices are configured. */
export function teacherCost(
  tokens: { promptTokens: number; completionTokens: number },
  pricing: OpenAiConfig['pricing'],
): { costUsd?: number } {
  if (!pricing) return {};
  const usd =
    (tokens.promptTokens * pricing.inputPerMillion + tokens.completionTokens * pricing.outputPerMillion) / 1e6;
  return { costUsd: Math.round(usd * 1e6) / 1e6 };
}
