import type { Catalog, CatalogTool } from '../catalog/types.js';
import { callJson, hermesCall, noCallJson } from '../router/answer.js';
import type { RouterRow, Target } from './types.js';
import { codeList } from './verdicts.js';

export type RenderFormat = 'router-json' | 'hermes';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** TRL conversational prompt-completion row with a `tools` column (OpenAI function schema). */
export interface RenderedRow {
  id: string;
  prompt: ChatMessage[];
  completion: ChatMessage[];
  tools: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
}

/**
 * Short on purpose: every token here is paid on every request (a 135M model on a CPU reads ~600 tokens per
 * decision). It names the answer shapes and every no-call code, so the router is never asked for one it was not told.
 */
export const SYSTEM_PROMPT =
  'Pick the offered tool that serves the request and answer {"tool": NAME, "arguments": {...}}. If none should be ' +
  `called, answer {"tool": null, "verdict": V, "code": C}. Verdicts and codes: ${codeList()}.`;

/**
 * The completion text. Router JSON names the tool first, so the arguments are written knowing the tool (and
 * decoding can constrain them by its schema); a no-call carries verdict and code only: a free-text reason
 * would cost more decoding than the decision itself. Hermes calls are a <tool_call> block.
 */
export function completionText(target: Target, format: RenderFormat): string {
  if (target.tool === null) return noCallJson(target.verdict, target.code);
  return format === 'hermes' ? hermesCall(target.tool, target.arguments) : callJson(target.tool, target.arguments);
}

/** An OpenAI function tool as the router sees it: name, description (empty when absent), input schema. */
export type OfferedTool = RenderedRow['tools'][number];

export function offeredTool(t: {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}): OfferedTool {
  return { type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema } };
}

/**
 * Offered tools in name order, however they were drawn. The order is canonical so that rows with the same caller
 * and tools begin with the same tokens: training computes that shared beginning once (the trainer's
 * optim.sharedPrefixRows) and serve's prefix cache reuses it. Which tool is right is not in its position: a
 * slice is drawn around the right tool, and the right tool sorts anywhere among its neighbours.
 */
export function inOfferOrder<T extends OfferedTool>(tools: T[]): T[] {
  return [...tools].sort((a, b) =>
    a.function.name < b.function.name ? -1 : a.function.name > b.function.name ? 1 : 0,
  );
}

/**
 * The router's prompt: its system prompt with the caller line, then the conversation without the caller's own
 * system messages. Training, eval and the gateway all build prompts here, so they are the same bytes.
 */
export function routerPrompt(persona: { name: string; scopes: string[] }, conversation: ChatMessage[]): ChatMessage[] {
  return [
    { role: 'system', content: `${SYSTEM_PROMPT}\nCaller: ${persona.name}; scopes: ${persona.scopes.join(', ')}.` },
    ...conversation.filter((m) => m.role !== 'system').map(canonicalMessage),
  ];
}

/** A turn as the router reads it, whatever key order or extra keys it arrived with. */
function canonicalMessage(m: ChatMessage): ChatMessage {
  return {
    role: m.role,
    content: m.content ?? null,
    ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
  };
}

export function renderRow(
  row: RouterRow,
  catalog: Map<string, CatalogTool>,
  format: RenderFormat = 'router-json',
): RenderedRow {
  const tools = inOfferOrder(
    row.tools.map((name) => {
      const t = catalog.get(`${row.domain}/${name}`);
      if (!t) throw new Error(`row ${row.id} offers ${name}, which is not in the catalog of ${row.domain}`);
      return offeredTool(t);
    }),
  );
  // Rows unrolled from traces carry the conversation so far; generated rows are one request.
  const conversation = row.messages
    ? (row.messages as ChatMessage[])
    : [{ role: 'user' as const, content: row.request }];
  return {
    id: row.id,
    prompt: routerPrompt(row.persona, conversation),
    completion: [{ role: 'assistant', content: completionText(row.target, format) }],
    tools,
  };
}

/** Every row of a split, rendered against the catalog it was drawn from. */
export function renderRows(rows: RouterRow[], catalog: Catalog, format: RenderFormat = 'router-json'): RenderedRow[] {
  const tools = new Map(catalog.tools.map((t) => [t.id, t]));
  return rows.map((r) => renderRow(r, tools, format));
}
