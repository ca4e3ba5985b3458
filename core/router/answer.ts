/**
 * The router's answer, one module for every engine and every reader (the gateway, the evaluator, render, deploy's
 * smoke test): parse what an endpoint said, decide whether it is one decision, and write an answer in each of the
 * shapes the router speaks. The rules are the contract's (trainer/router-contract.json, docs/router-contract.md);
 * test/fixtures/router-answers.jsonl holds the edge cases both languages must read alike.
 *
 * - Native OpenAI `tool_calls` come first; the content is then ignored.
 * - Otherwise the content, trimmed, with one ``` or ```json fence around the whole of it removed, is router JSON
 *   (`{"tool": NAME, "arguments": {...}}` or `{"tool": null, "verdict": V, "code": C}`), or, when it does not open
 *   with `{` and holds a `<tool_call>`, Hermes blocks and nothing else.
 * - Arguments that are absent, null or "" are `{}`; anything but a JSON object is `bad_arguments`.
 * - A no-call's verdict must be one of the contract's and its code one of that verdict's.
 * - Several calls parse (BFCL's checker and scoring count them), but they are not a decision (`parallel_calls`).
 */
import { randomUUID } from 'node:crypto';
import type { Target } from '../dataset/types.js';
import { canonicalJson } from '../hash.js';
import { CONTRACT, VERDICT_CODES, VERDICTS, type ProblemCode, type Verdict } from './contract.js';

type Obj = Record<string, unknown>;

/** The parts of an OpenAI chat completion message that carry a decision. */
export interface AnswerMessage {
  role?: string;
  content?: string | null;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: unknown } }>;
  [k: string]: unknown;
}

/** What an answer says, before any check. */
export type Prediction =
  | {
      kind: 'call';
      tool: string;
      arguments: unknown;
      extraCalls: number;
      /** A native tool call's arguments exactly as sent (JSON text): what BFCL's checker decodes itself. */
      rawArguments?: string;
      /** The id of a native tool call. */
      callId?: string;
      /** The calls after the first, when the answer made several (parallel calls; BFCL's checker counts them). */
      others?: Array<{ tool: string; arguments: unknown; rawArguments?: string }>;
    }
  | { kind: 'no-call'; verdict: string | null; code: string | null; reason?: string; refused?: string }
  | { kind: 'invalid'; raw: string; problem: string; code?: ProblemCode };

/** One decision, or why the answer is not one: what the gateway acts on and the edge-case file states. */
export type Decision =
  | { kind: 'call'; tool: string; arguments: Obj; callId: string | null }
  | { kind: 'no-call'; verdict: string; code: string; reason: string | null }
  | { kind: 'invalid'; code: ProblemCode | null; detail: string };

interface Call {
  tool: string;
  arguments: Obj;
  rawArguments?: string;
  callId?: string;
}

/** Why a part of an answer is not usable (a class, so no argument object can pass for one). */
class Problem {
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
  ) {}
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const problem = (code: ProblemCode, detail: string): Problem => new Problem(code, detail);

/** Read an endpoint's answer (see the module comment for the rules). */
export function parseAnswer(message: AnswerMessage | null | undefined): Prediction {
  const native = message?.tool_calls ?? [];
  if (native.length > 0) return fromCalls(native.map(nativeCall), JSON.stringify(native));
  const raw = typeof message?.content === 'string' ? message.content : '';
  const text = stripFence(raw.trim());
  if (text === '') return invalid(raw, problem('empty', 'no tool call and no content'));
  if (!text.startsWith('{') && text.includes(CONTRACT.hermes.open)) return fromCalls(hermesCalls(text), raw);
  const obj = parseJson(text);
  if (obj instanceof Problem) return invalid(raw, obj);
  if (!('tool' in obj)) return invalid(raw, problem('no_tool_key', 'router JSON without a "tool" key'));
  if (obj.tool === null) return noCall(raw, obj);
  return fromCalls([callOf(obj.tool, obj.arguments)], raw);
}

/** The decision an answer makes: one call, one no-call, or invalid with the contract's problem code. */
export function decide(p: Prediction): Decision {
  if (p.kind === 'invalid') return { kind: 'invalid', code: p.code ?? null, detail: p.problem };
  if (p.kind === 'no-call')
    return { kind: 'no-call', verdict: p.verdict ?? '', code: p.code ?? '', reason: p.reason ?? null };
  if (p.extraCalls > 0)
    return {
      kind: 'invalid',
      code: 'parallel_calls',
      detail: `${p.extraCalls + 1} calls; a router decision is one call`,
    };
  return { kind: 'call', tool: p.tool, arguments: p.arguments as Obj, callId: p.callId ?? null };
}

/** parseAnswer then decide. */
export const decisionOf = (message: AnswerMessage | null | undefined): Decision => decide(parseAnswer(message));

function nativeCall(c: NonNullable<AnswerMessage['tool_calls']>[number]): Call | Problem {
  const raw = c.function?.arguments;
  const parsed = typeof raw === 'string' ? (raw.trim() === '' ? {} : parseJson(raw)) : raw;
  // Arguments JSON text that does not hold an object is a call's bad arguments, not a bad answer text.
  const args = parsed instanceof Problem ? problem('bad_arguments', `arguments: ${parsed.detail}`) : parsed;
  const call = callOf(c.function?.name, args);
  if (call instanceof Problem) return call;
  return { ...call, ...(typeof raw === 'string' ? { rawArguments: raw } : {}), ...(c.id ? { callId: c.id } : {}) };
}

const BLOCK = new RegExp(`${escape(CONTRACT.hermes.open)}([\\s\\S]*?)${escape(CONTRACT.hermes.close)}`, 'g');

/** Hermes output: one or more <tool_call>{"name", "arguments"}</tool_call> blocks and nothing else. */
function hermesCalls(text: string): Array<Call | Problem> {
  const blocks = [...text.matchAll(BLOCK)].map((m) => m[1]!.trim());
  if (blocks.length === 0 || text.replace(BLOCK, '').trim() !== '')
    return [problem('text_outside_blocks', 'text outside <tool_call> blocks')];
  return blocks.map((b) => {
    const obj = parseJson(b);
    return obj instanceof Problem ? obj : callOf(obj.name, obj.arguments);
  });
}

function callOf(tool: unknown, args: unknown): Call | Problem {
  if (typeof tool !== 'string' || tool === '') return problem('bad_tool', 'the tool name is missing or not a string');
  if (args instanceof Problem) return args;
  if (args === undefined || args === null) return { tool, arguments: {} };
  if (!isObj(args)) return problem('bad_arguments', `call ${tool}: arguments are not a JSON object`);
  return { tool, arguments: args };
}

function fromCalls(calls: Array<Call | Problem>, raw: string): Prediction {
  const bad = calls.find(isProblem);
  if (bad) return invalid(raw, bad);
  const [first, ...rest] = calls as Call[];
  return {
    kind: 'call',
    tool: first!.tool,
    arguments: first!.arguments,
    extraCalls: rest.length,
    ...(first!.rawArguments !== undefined ? { rawArguments: first!.rawArguments } : {}),
    ...(first!.callId ? { callId: first!.callId } : {}),
    ...(rest.length
      ? {
          others: rest.map((c) => ({
            tool: c.tool,
            arguments: c.arguments,
            ...(c.rawArguments !== undefined ? { rawArguments: c.rawArguments } : {}),
          })),
        }
      : {}),
  };
}

function noCall(raw: string, obj: Obj): Prediction {
  const verdict = VERDICTS.find((v) => v === obj.verdict);
  if (!verdict)
    return invalid(
      raw,
      problem('unknown_verdict', `verdict ${JSON.stringify(obj.verdict)} is not one of ${VERDICTS.join(', ')}`),
    );
  if (typeof obj.code !== 'string' || VERDICT_CODES[obj.code] !== verdict)
    return invalid(raw, problem('unknown_code', `code ${JSON.stringify(obj.code)} is not a code of ${verdict}`));
  return {
    kind: 'no-call',
    verdict,
    code: obj.code,
    ...(typeof obj.reason === 'string' ? { reason: obj.reason } : {}),
  };
}

function stripFence(text: string): string {
  const m = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  return m ? m[1]! : text;
}

/** The JSON object, or the problem. */
function parseJson(text: string): Obj | Problem {
  try {
    const value: unknown = JSON.parse(text);
    return isObj(value) ? value : problem('not_an_object', 'the JSON is not an object');
  } catch {
    return problem('not_json', 'not JSON');
  }
}

function isProblem(v: unknown): v is Problem {
  return v instanceof Problem;
}

function invalid(raw: string, p: Problem): Prediction {
  return { kind: 'invalid', raw, problem: p.detail, code: p.code };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Writing answers.

/** A no-call as router JSON, as the router is taught to write it (the reason left out: it costs decoding). */
export function noCallJson(verdict: Verdict | string, code: string): string {
  return JSON.stringify({ tool: null, verdict, code });
}

/** A call as router JSON, tool first, arguments canonical: the bytes a router-json adapter is trained on. */
export function callJson(tool: string, args: unknown): string {
  return `{"tool":${JSON.stringify(tool)},"arguments":${canonicalJson(args)}}`;
}

/** A call as one Hermes block. */
export function hermesCall(tool: string, args: unknown): string {
  return `${CONTRACT.hermes.open}\n${canonicalJson({ arguments: args, name: tool })}\n${CONTRACT.hermes.close}`;
}

/** A call as the OpenAI assistant message an agent expects (`tool_calls`, no content). */
export function toolCallMessage(tool: string, args: Obj): AnswerMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
        type: 'function',
        function: { name: tool, arguments: JSON.stringify(args) },
      },
    ],
  };
}

/** The target a rendered row's completion (router JSON or Hermes) teaches; throws when it is not one decision. */
export function targetFromCompletion(text: string): Target {
  const d = decisionOf({ content: text });
  if (d.kind === 'invalid') throw new Error(`completion is not a valid target: ${d.detail}`);
  if (d.kind === 'call') return { tool: d.tool, arguments: d.arguments };
  // The reason is optional (completions rendered since render v2 leave it out).
  if (d.reason === null && /"reason"\s*:/.test(text))
    throw new Error('completion is not a valid target: reason must be a string');
  return { tool: null, verdict: d.verdict as Verdict, code: d.code, reason: d.reason ?? '' };
}
