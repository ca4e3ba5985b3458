import type { Target } from '../dataset/types.js';
import type { Prediction } from './types.js';
import { VERDICTS } from '../dataset/verdicts.js';

/** The parts of an OpenAI chat completion message that carry a decision. */
export interface AnswerMessage {
  content?: string | null;
  tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
}

type Obj = Record<string, unknown>;

/**
 * Read an endpoint's answer: native tool_calls first (vLLM/OpenAI tool parsers), else the content as router JSON
 * or Hermes <tool_call> blocks. Whether the tool was offered is for scoring to judge, not the parser.
 */
export function parsePrediction(message: AnswerMessage | undefined): Prediction {
  const calls = message?.tool_calls ?? [];
  if (calls.length > 0) {
    const raw = JSON.stringify(calls);
    const name = calls[0]!.function?.name;
    if (!name) return invalid(raw, 'tool call without a function name');
    // Some servers send "" for a call without arguments.
    const args = parseObject(calls[0]!.function?.arguments?.trim() || '{}');
    if (typeof args === 'string') return invalid(raw, `tool call arguments: ${args}`);
    const rawOf = (c: (typeof calls)[number]) =>
      typeof c.function?.arguments === 'string' ? { rawArguments: c.function.arguments } : {};
    const others = calls.slice(1).map((c) => ({
      tool: c.function?.name ?? '',
      arguments: parseObject(c.function?.arguments?.trim() || '{}'),
      ...rawOf(c),
    }));
    return {
      kind: 'call',
      tool: name,
      arguments: args,
      extraCalls: others.length,
      ...rawOf(calls[0]!),
      ...(others.length ? { others } : {}),
    };
  }
  return parseContent(message?.content ?? '');
}

/** The target of a rendered test row (router-json or hermes completion); throws when it is not a valid one. */
export function targetFromCompletion(text: string): Target {
  const p = parseContent(text);
  if (p.kind === 'invalid') throw new Error(`completion is not a valid target: ${p.problem}`);
  if (p.kind === 'call') {
    if (p.extraCalls > 0) throw new Error(`completion is not a valid target: ${p.extraCalls + 1} calls`);
    return { tool: p.tool, arguments: p.arguments as Obj };
  }
  // parseContent accepted it as a JSON no-call, so this parse succeeds; targets also need a known verdict and a
  // code. The reason is optional (completions rendered since render v2 leave it out).
  const obj = JSON.parse(stripFence(text.trim())) as Obj;
  const verdict = VERDICTS.find((v) => v === obj.verdict);
  if (!verdict)
    throw new Error(
      `completion is not a valid target: verdict ${JSON.stringify(obj.verdict)} is not one of ${VERDICTS.join(', ')}`,
    );
  if (typeof obj.code !== 'string') throw new Error('completion is not a valid target: a no-call needs a string code');
  if (obj.reason !== undefined && typeof obj.reason !== 'string')
    throw new Error('completion is not a valid target: reason must be a string');
  return { tool: null, verdict, code: obj.code, reason: obj.reason ?? '' };
}

function parseContent(content: string): Prediction {
  const text = stripFence(content.trim());
  if (text === '') return invalid(content, 'empty output');
  if (text.includes('<tool_call>')) return parseHermes(content, text);
  const obj = parseObject(text);
  if (typeof obj === 'string') return invalid(content, obj);
  if (!('tool' in obj)) return invalid(content, 'JSON without a "tool" key');
  if (obj.tool === null) return { kind: 'no-call', verdict: stringOrNull(obj.verdict), code: stringOrNull(obj.code) };
  if (typeof obj.tool !== 'string') return invalid(content, '"tool" is neither a string nor null');
  const args = obj.arguments ?? {};
  if (!isObj(args)) return invalid(content, '"arguments" is not an object');
  return { kind: 'call', tool: obj.tool, arguments: args, extraCalls: 0 };
}

const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/** Hermes format: the whole output is one or more <tool_call>{"name", "arguments"}</tool_call> blocks. */
function parseHermes(raw: string, text: string): Prediction {
  const blocks = [...text.matchAll(BLOCK)].map((m) => m[1]!.trim());
  if (blocks.length === 0 || text.replace(BLOCK, '').trim() !== '')
    return invalid(raw, 'text outside <tool_call> blocks');
  const first = parseObject(blocks[0]!);
  if (typeof first === 'string') return invalid(raw, `<tool_call> block: ${first}`);
  if (typeof first.name !== 'string') return invalid(raw, '<tool_call> block without a "name"');
  const args = first.arguments ?? {};
  if (!isObj(args)) return invalid(raw, '<tool_call> "arguments" is not an object');
  const others = blocks.slice(1).map((b) => {
    const o = parseObject(b);
    return typeof o === 'string'
      ? { tool: '', arguments: o }
      : { tool: String(o.name ?? ''), arguments: o.arguments ?? {} };
  });
  return {
    kind: 'call',
    tool: first.name,
    arguments: args,
    extraCalls: others.length,
    ...(others.length ? { others } : {}),
  };
}

function stripFence(text: string): string {
  const m = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  return m ? m[1]! : text;
}

/** A JSON object, or a short problem. */
function parseObject(text: string): Obj | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  return isObj(value) ? value : 'JSON is not an object';
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function invalid(raw: string, problem: string): Prediction {
  return { kind: 'invalid', raw, problem };
}
