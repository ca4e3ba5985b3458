/**
 * Tool names for endpoints that refuse some characters. MCP allows `[A-Za-z0-9_.-]{1,128}` (`uber.ride`);
 * OpenAI's API takes function names of `[A-Za-z0-9_-]{1,64}` only, and other OpenAI-compatible APIs are as
 * strict. The frontier paths (the `openai` teacher, the gateway's escalation, a `flywheel eval` column with
 * `wireNames: openai`) send each offered tool under a wire name and map the names in the answer back, here and
 * nowhere else. A router backend (`flywheel serve`, vLLM, LoRAX) gets the names it was trained on.
 */
import { sha256Hex } from '../hash.js';

/** OpenAI's rule for a function name. */
export const WIRE_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface WireNames {
  /** The name to send (the name itself when the wire takes it). */
  toWire(name: string): string;
  /** The tool's own name for a name the endpoint answered with (unknown names come back unchanged). */
  fromWire(name: string): string;
}

/**
 * A mapping for these names, deterministic in their order: names the wire takes keep themselves; another name
 * has each refused character replaced by `_`, is cut to 64 with a hash of the whole name when longer, and gets
 * `_2`, `_3`, … if that collides with a name already given.
 */
export function wireNames(names: Iterable<string>): WireNames {
  const all = [...new Set(names)];
  const wire = new Map<string, string>();
  const taken = new Set(all.filter((n) => WIRE_NAME_RE.test(n)));
  for (const n of taken) wire.set(n, n);
  for (const name of all) {
    if (wire.has(name)) continue;
    let base = name.replace(/[^A-Za-z0-9_-]/g, '_');
    if (base.length > 64) base = `${base.slice(0, 55)}_${sha256Hex(name).slice(0, 8)}`;
    let given = base;
    for (let k = 2; taken.has(given); k++) given = `${base.slice(0, 64 - `_${k}`.length)}_${k}`;
    taken.add(given);
    wire.set(name, given);
  }
  const back = new Map([...wire].map(([n, w]) => [w, n]));
  return { toWire: (n) => wire.get(n) ?? n, fromWire: (w) => back.get(w) ?? w };
}

interface ToolCallLike {
  type?: string;
  function?: { name?: string; [k: string]: unknown };
  [k: string]: unknown;
}
interface MessageLike {
  tool_calls?: ToolCallLike[] | null;
  [k: string]: unknown;
}
interface ToolLike {
  type?: string;
  function?: { name?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/**
 * A message with its tool calls renamed, the `name` of a tool result, and the tool a router-JSON answer in the
 * text names (`{"tool": NAME, …}`: what the router prompt asks a model to write).
 */
function renameCalls<M extends MessageLike>(message: M, rename: (n: string) => string): M {
  const out: MessageLike = { ...message };
  if (Array.isArray(message.tool_calls))
    out.tool_calls = message.tool_calls.map((c) =>
      typeof c.function?.name === 'string' ? { ...c, function: { ...c.function, name: rename(c.function.name) } } : c,
    );
  if (message.role === 'tool' && typeof message.name === 'string') out.name = rename(message.name);
  if (typeof message.content === 'string') out.content = renameInText(message.content, rename);
  return out as M;
}

function renameInText(content: string, rename: (n: string) => string): string {
  let answer: unknown;
  try {
    answer = JSON.parse(content);
  } catch {
    return content;
  }
  const tool = (answer as { tool?: unknown } | null)?.tool;
  if (typeof tool !== 'string' || rename(tool) === tool) return content;
  return JSON.stringify({ ...(answer as object), tool: rename(tool) });
}

/**
 * A chat completions body as the wire takes it: its tools and the tool calls in its conversation renamed. The
 * mapping is returned for the answer (`fromWire`), so names the conversation used but no tool offers map too.
 */
export function toWire<B extends object>(request: B): { body: B; names: WireNames } {
  const body = request as { tools?: ToolLike[]; messages?: MessageLike[]; tool_choice?: ToolLike };
  const offered = (body.tools ?? []).map((t) => t.function?.name).filter((n): n is string => typeof n === 'string');
  const called = (body.messages ?? []).flatMap((m) => [
    ...(m.tool_calls ?? []).map((c) => c.function?.name),
    m.role === 'tool' ? m.name : undefined,
  ]);
  const names = wireNames(
    [...offered, ...called, body.tool_choice?.function?.name].filter((n): n is string => typeof n === 'string'),
  );
  return {
    names,
    body: {
      ...request,
      ...(body.tools
        ? {
            tools: body.tools.map((t) =>
              typeof t.function?.name === 'string'
                ? { ...t, function: { ...t.function, name: names.toWire(t.function.name) } }
                : t,
            ),
          }
        : {}),
      ...(body.messages ? { messages: body.messages.map((m) => renameCalls(m, names.toWire)) } : {}),
      ...(typeof body.tool_choice?.function?.name === 'string'
        ? {
            tool_choice: {
              ...body.tool_choice,
              function: { ...body.tool_choice.function, name: names.toWire(body.tool_choice.function.name) },
            },
          }
        : {}),
    } as B,
  };
}

/** An answer's message with its tool calls named as the tools are named. */
export function fromWire<M extends object>(message: M, names: WireNames): M {
  return renameCalls(message as MessageLike, names.fromWire) as M;
}
