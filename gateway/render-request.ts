/**
 * A live agent's request, rendered the way the router was trained: the router's system prompt with the
 * configured caller (never the request's), the agent's conversation, and a slice of its tools chosen by the
 * lexical retriever. The prompt pieces come from core/dataset/render.ts, the code that renders training rows.
 */
import { createHash } from 'node:crypto';
import { type ChatMessage, type OfferedTool, inOfferOrder, offeredTool, routerPrompt } from '../core/dataset/render.js';
import { canonicalJson } from '../core/hash.js';
import { bm25Retriever } from '../core/retrieve/tool-retriever.js';
import { compileSchema } from '../core/schema/compile.js';
import { InputError } from '../core/errors.js';

export interface RenderSettings {
  /** Tools the router sees per request: the retriever's best, in name order (as training lists them). */
  sliceSize: number;
  /** Who is asking: the persona whose scopes the router checks calls against. */
  caller: { name: string; scopes: string[] };
  /** A prompt estimated longer than this loses its oldest turns (the deciding user turn is always kept). */
  maxPromptTokens: number;
}

export interface RenderedRequest {
  messages: ChatMessage[];
  tools: OfferedTool[];
  /** Names of the offered tools, as rendered. */
  slice: string[];
  /** How many tools the agent offered. */
  offered: number;
  /** sha256 of the canonical JSON of {messages, tools}: what the backend was shown, comparable across traces. */
  promptSha256: string;
  /** Conversation turns dropped, oldest first, to fit maxPromptTokens (0: none). */
  truncatedTurns: number;
}

/**
 * The gateway has no tokenizer, so prompt length is estimated from characters: 3 per token undercounts what
 * BPE tokenizers fit in English and JSON (SmolLM2's: ~3.5-4), so the estimate errs towards cutting early.
 */
export const CHARS_PER_TOKEN = 3;
export const estimateTokens = (messages: ChatMessage[], tools: OfferedTool[]) =>
  Math.ceil((JSON.stringify(messages).length + JSON.stringify(tools).length) / CHARS_PER_TOKEN);

/**
 * Drop the oldest turns until the prompt fits: a turn and the tool results that answer it go together (a tool
 * message without its call is not a conversation a chat template accepts). The last user turn decides the
 * call, so it stays; if it alone does not fit, the request is refused.
 */
function fitConversation(
  conversation: ChatMessage[],
  tools: OfferedTool[],
  settings: RenderSettings,
): { kept: ChatMessage[]; dropped: number } {
  let kept = conversation.filter((m) => m.role !== 'system');
  let dropped = 0;
  const lastUser = () => kept.map((m) => m.role).lastIndexOf('user');
  while (estimateTokens(routerPrompt(settings.caller, kept), tools) > settings.maxPromptTokens && lastUser() > 0) {
    let n = 1;
    while (n < lastUser() && kept[n]!.role === 'tool') n++;
    kept = kept.slice(n);
    dropped += n;
  }
  const estimate = estimateTokens(routerPrompt(settings.caller, kept), tools);
  if (estimate > settings.maxPromptTokens) {
    throw new RequestError(
      `messages: the last user turn alone makes a prompt of ~${estimate} tokens with ${tools.length} tools, over gateway.render.maxPromptTokens (${settings.maxPromptTokens})`,
      'messages',
    );
  }
  return { kept, dropped };
}

/** A request the gateway refuses with a 400; `param` is the OpenAI error's `param`. */
export class RequestError extends InputError {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Compiled-schema verdicts by canonical schema text: agents send the same tools on every request. */
const schemaErrors = new Map<string, string | null>();
const SCHEMA_CACHE_LIMIT = 4096;

function schemaError(parameters: Record<string, unknown>): string | null {
  const key = canonicalJson(parameters);
  let error = schemaErrors.get(key);
  if (error === undefined) {
    const compiled = compileSchema(parameters);
    error = compiled.ok ? null : compiled.error;
    if (schemaErrors.size >= SCHEMA_CACHE_LIMIT) schemaErrors.clear();
    schemaErrors.set(key, error);
  }
  return error;
}

/** The agent's tools, checked: at least one, each a named function with a compilable parameters schema, no name twice. */
export function agentTools(tools: unknown): OfferedTool[] {
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new RequestError('tools: the router picks among offered tools, and this request offers none', 'tools');
  }
  const seen = new Set<string>();
  return tools.map((t, i) => {
    const fn = isObject(t) ? t.function : undefined;
    if (
      !isObject(t) ||
      (t.type !== undefined && t.type !== 'function') ||
      !isObject(fn) ||
      typeof fn.name !== 'string' ||
      !fn.name
    ) {
      throw new RequestError(
        `tools[${i}]: expected {"type": "function", "function": {"name": ..., "parameters": {...}}}`,
        `tools[${i}]`,
      );
    }
    const name = fn.name;
    if (seen.has(name))
      throw new RequestError(`tools[${i}]: tool ${name} is offered twice`, `tools[${i}].function.name`);
    seen.add(name);
    const parameters = fn.parameters === undefined ? { type: 'object', properties: {} } : fn.parameters;
    if (!isObject(parameters))
      throw new RequestError(
        `tools[${i}]: tool ${name}: parameters must be a JSON Schema object`,
        `tools[${i}].function.parameters`,
      );
    const error = schemaError(parameters);
    if (error)
      throw new RequestError(
        `tools[${i}]: tool ${name}: parameters is not a valid JSON Schema: ${error}`,
        `tools[${i}].function.parameters`,
      );
    return offeredTool({
      name,
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      inputSchema: parameters,
    });
  });
}

/** Text content of a message, OpenAI content parts included (text parts joined; other parts have no text). */
function textOf(content: unknown): string | null {
  if (typeof content === 'string' || content === null || content === undefined)
    return (content as string | null | undefined) ?? null;
  if (Array.isArray(content))
    return content.map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  return null;
}

/** The conversation as training rows carry it: role, text content, tool calls and tool call ids. */
export function conversationOf(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new RequestError('messages: a non-empty array is required', 'messages');
  return messages.map((m, i) => {
    if (!isObject(m) || !['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role as string)) {
      throw new RequestError(
        `messages[${i}]: role must be system, developer, user, assistant or tool`,
        `messages[${i}].role`,
      );
    }
    const role = (m.role === 'developer' ? 'system' : m.role) as ChatMessage['role'];
    const out: ChatMessage = { role, content: textOf(m.content) };
    if (Array.isArray(m.tool_calls) && m.tool_calls.length) out.tool_calls = m.tool_calls;
    if (typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
    return out;
  });
}

export function renderAgentRequest(
  body: { messages?: unknown; tools?: unknown },
  settings: RenderSettings,
): RenderedRequest {
  const conversation = conversationOf(body.messages);
  const tools = agentTools(body.tools);
  const query = conversation
    .filter((m) => m.role === 'user')
    .map((m) => m.content ?? '')
    .join('\n');
  const chosen = new Set(
    bm25Retriever(
      tools.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        inputSchema: t.function.parameters,
      })),
    ).rank(query, settings.sliceSize),
  );
  const sliced = inOfferOrder(tools.filter((t) => chosen.has(t.function.name))); // as training renders them
  const { kept, dropped } = fitConversation(conversation, sliced, settings);
  const messages = routerPrompt(settings.caller, kept);
  return {
    messages,
    tools: sliced,
    slice: sliced.map((t) => t.function.name),
    offered: tools.length,
    promptSha256: createHash('sha256')
      .update(canonicalJson({ messages, tools: sliced }))
      .digest('hex'),
    truncatedTurns: dropped,
  };
}
