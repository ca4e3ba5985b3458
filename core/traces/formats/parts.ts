/** What the format readers share: shape checks that name the field, and text out of content parts. */
import { TraceError } from '../trace-error.js';
import type { Trace, TraceMessage } from '../types.js';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function bad(detail: string): never {
  throw new TraceError('invalid_shape', detail);
}

export function obj(v: unknown, where: string): Obj {
  return isObj(v) ? v : bad(`${where} must be an object`);
}

export function str(v: unknown, where: string): string {
  return typeof v === 'string' ? v : bad(`${where} must be a string`);
}

/**
 * The text of a message's content: a string, or the text of its text parts (`text`, `input_text`, `output_text`)
 * joined by newlines; images, files and audio are not text a router reads. Null when there is none.
 */
export function textOf(content: unknown, where: string): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) bad(`${where} must be a string or a list of parts`);
  const texts = content.flatMap((p, i) => {
    const part = obj(p, `${where}[${i}]`);
    return ['text', 'input_text', 'output_text'].includes(part.type as string)
      ? [str(part.text, `${where}[${i}].text`)]
      : [];
  });
  return texts.length ? texts.join('\n') : null;
}

/** A function tool in the OpenAI chat shape the pipeline reads. */
export function functionTool(name: unknown, description: unknown, parameters: unknown, where: string) {
  return {
    type: 'function' as const,
    function: {
      name: str(name, `${where}.name`),
      ...(typeof description === 'string' ? { description } : {}),
      ...(isObj(parameters) ? { parameters } : {}),
    },
  };
}

/** Consecutive tool calls of one assistant turn go into one assistant message, as the chat format keeps them. */
export function pushCall(messages: TraceMessage[], call: NonNullable<TraceMessage['tool_calls']>[number]): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(call);
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** The caller, where a log record carries it beside the request (`metadata.domain`, `persona`, `scopes`). */
export function metadataOf(...sources: unknown[]): Trace['metadata'] | undefined {
  const meta: NonNullable<Trace['metadata']> = {};
  for (const s of sources) {
    if (!isObj(s)) continue;
    if (typeof s.domain === 'string') meta.domain = s.domain;
    if (typeof s.persona === 'string') meta.persona = s.persona;
    if (Array.isArray(s.scopes) && s.scopes.every((x) => typeof x === 'string')) meta.scopes = s.scopes as string[];
  }
  return Object.keys(meta).length ? meta : undefined;
}
