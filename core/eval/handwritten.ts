import type { Catalog, CatalogTool } from '../catalog/types.js';
import { renderRow, type RenderedRow, type RenderFormat } from '../dataset/render.js';
import { offerSlice, retrievalQuery, retrievedSlice, type Slicing, sliceForText } from '../dataset/slice.js';
import type { Persona, RouterRow, Target } from '../dataset/types.js';
import { VERDICT_CODES, VERDICTS } from '../dataset/verdicts.js';
import { Rng } from '../rng.js';
import { compileSchema } from '../schema/compile.js';
import { EvalInputError, casesFrom } from './cases.js';
import type { EvalCase } from './types.js';

/**
 * Hand-written eval cases in a plain format, independent of how the flywheel renders prompts:
 *   {"id", "domain", "messages", "scopes"?, "tools"?, "expected"}
 * `messages` is the OpenAI conversation without a system prompt, ending with the user turn that decides;
 * `scopes` the caller's (absent or null: the domain's default persona's); `tools` the offered tool names
 * (absent: the project's slice); `expected` a call {tool, arguments} or a no-call {tool: null, verdict, code}.
 * Each case is rendered with the current renderer and the catalog's schemas, so a hand-written set stays valid
 * when the rendering changes.
 */
export interface HandwrittenContext {
  catalog: Catalog;
  /** Personas per domain; a case without scopes asks as its domain's persona holding the most scopes. */
  personas: Persona[];
  sliceSize: number;
  /** dataset.slicing: how a case without `tools` gets its slice (absent: neighbours). */
  slicing?: Slicing;
  seed: string | number;
  /** File name, for errors. */
  source: string;
}

const ROLES = new Set(['user', 'assistant', 'tool']);

/** JSONL text to objects; a line that is not JSON is an error naming it. */
export function parseJsonl(text: string, source: string): Array<{ line: number; value: unknown }> {
  const out: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      throw new EvalInputError(`${source}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

/** The first non-empty line parsed, or undefined when it is not JSON (the caller's own parser then says where). */
export function firstJsonLine(text: string): unknown {
  const line = text.split('\n').find((l) => l.trim());
  try {
    return line === undefined ? undefined : JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Whether parsed rows are hand-written cases (they carry `expected` and `messages`), not rendered or router rows. */
export function isHandwritten(value: unknown): boolean {
  return !!value && typeof value === 'object' && 'expected' in value && 'messages' in value;
}

/** Router rows for hand-written cases. Every problem names the file, line and case id; none is skipped. */
export function handwrittenRows(lines: Array<{ line: number; value: unknown }>, ctx: HandwrittenContext): RouterRow[] {
  const ids = new Set<string>();
  const tools = new Map(ctx.catalog.tools.map((t) => [t.id, t]));
  const validators = new Map<string, ReturnType<typeof compileSchema>>();
  return lines.map(({ line, value }) => {
    const c = value as Record<string, unknown>;
    const at = `${ctx.source}:${line}${typeof c?.id === 'string' ? ` (${c.id})` : ''}`;
    const fail = (msg: string): never => {
      throw new EvalInputError(`${at}: ${msg}`);
    };
    if (!c || typeof c !== 'object') fail('a case is a JSON object');
    if (typeof c.id !== 'string' || !c.id) fail('"id" must be a non-empty string');
    if (ids.has(c.id as string)) fail(`id ${String(c.id)} is used twice`);
    ids.add(c.id as string);
    const domain = c.domain;
    if (typeof domain !== 'string' || !ctx.catalog.servers.some((s) => s.name === domain))
      fail(
        `unknown domain ${JSON.stringify(domain)} (the catalog's servers: ${ctx.catalog.servers.map((s) => s.name).join(', ')})`,
      );
    const domainTools = ctx.catalog.tools.filter((t) => t.server === domain);
    const messages = c.messages as RouterRow['messages'];
    if (!Array.isArray(messages) || messages.length === 0)
      fail('"messages" must be a non-empty array (the conversation, without a system prompt)');
    messages!.forEach((m, i) => {
      if (!m || !ROLES.has(m.role))
        fail(`messages[${i}].role must be user, assistant or tool (no system prompt: the renderer adds it)`);
    });
    const last = messages![messages!.length - 1]!;
    if (last.role !== 'user' || typeof last.content !== 'string' || !last.content.trim())
      fail('the last message must be the user turn that decides, with text');
    const scopes = c.scopes;
    if (
      scopes !== undefined &&
      scopes !== null &&
      !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))
    )
      fail('"scopes" must be an array of strings, null or absent');
    const offered = c.tools;
    if (
      offered !== undefined &&
      !(Array.isArray(offered) && offered.length > 0 && offered.every((t) => typeof t === 'string'))
    )
      fail('"tools" must be a non-empty array of tool names, or absent');
    for (const name of (offered as string[] | undefined) ?? [])
      if (!tools.has(`${domain}/${name}`)) fail(`tools: ${name} is not a tool of ${domain}`);
    const target = expectedTarget(c.expected, domain as string, tools, validators, fail);
    if (target.tool !== null && offered && !(offered as string[]).includes(target.tool))
      fail(
        `expected.tool ${target.tool} is not among the offered tools; expect {"tool": null, "verdict": "abstain", "code": "tool_not_offered"} instead`,
      );
    const persona = personaFor(domain as string, scopes as string[] | null | undefined, ctx.personas);
    const rng = new Rng(`handwritten:${ctx.seed}:${c.id as string}`);
    const tool = target.tool === null ? undefined : tools.get(`${domain}/${target.tool}`);
    const slice =
      (offered as string[] | undefined) ??
      (ctx.slicing === 'retriever'
        ? retrievedSlice(
            retrievalQuery(
              last.content as string,
              messages!.slice(0, -1) as Array<{ role: string; content?: string | null }>,
            ),
            domainTools,
            ctx.sliceSize,
            rng,
          )
        : tool
          ? offerSlice(tool, domainTools, ctx.sliceSize, rng)
          : sliceForText(last.content as string, domainTools, ctx.sliceSize, rng));
    return {
      id: c.id as string,
      domain: domain as string,
      entities: [`${domain}:handwritten:${c.id as string}`],
      request: last.content as string,
      ...(messages!.length > 1 ? { messages } : {}),
      persona: { name: persona.name, scopes: persona.scopes },
      tools: slice,
      // A retrieved slice that misses the expected tool leaves the router one right answer, as in training.
      target:
        tool && !slice.includes(tool.name)
          ? {
              tool: null,
              verdict: 'abstain',
              code: 'tool_not_offered',
              reason: `${tool.name} was not among the retrieved tools`,
            }
          : target,
      provenance: { source: 'handwritten' },
    } satisfies RouterRow;
  });
}

function expectedTarget(
  e: unknown,
  domain: string,
  tools: Map<string, CatalogTool>,
  validators: Map<string, ReturnType<typeof compileSchema>>,
  fail: (m: string) => never,
): Target {
  const x = e as Record<string, unknown> | undefined;
  if (!x || typeof x !== 'object')
    return fail('"expected" must be {"tool", "arguments"} or {"tool": null, "verdict", "code"}');
  if (x.tool === null) {
    const verdict = x.verdict as string;
    const code = x.code as string;
    if (!VERDICTS.includes(verdict as never)) fail(`expected.verdict must be one of ${VERDICTS.join(', ')}`);
    if (VERDICT_CODES[code] === undefined)
      fail(
        `expected.code ${JSON.stringify(code)} is not one the renderer lists (${Object.keys(VERDICT_CODES).join(', ')})`,
      );
    if (VERDICT_CODES[code] !== verdict)
      fail(`expected.code ${code} goes with verdict ${VERDICT_CODES[code]}, not ${verdict}`);
    return { tool: null, verdict: verdict as 'abstain', code, reason: '' };
  }
  if (typeof x.tool !== 'string') return fail('expected.tool must be a tool name or null');
  const tool = tools.get(`${domain}/${x.tool}`);
  if (!tool) return fail(`expected.tool ${x.tool} is not a tool of ${domain}`);
  const args = x.arguments;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return fail('expected.arguments must be an object');
  let v = validators.get(tool.id);
  if (!v) validators.set(tool.id, (v = compileSchema(tool.inputSchema)));
  if (!v.ok) return fail(`${tool.id} has a schema that does not compile: ${v.error}`);
  if (!v.validate(args))
    fail(
      `expected.arguments fail ${tool.id}'s schema: ${(v.validate.errors ?? []).map((er) => `${er.instancePath || '(arguments)'} ${er.message}`).join('; ')}`,
    );
  return { tool: tool.name, arguments: args as Record<string, unknown> };
}

function personaFor(domain: string, scopes: string[] | null | undefined, personas: Persona[]): Persona {
  if (scopes) return { name: 'caller', domain, scopes };
  const mine = personas.filter((p) => p.domain === domain).sort((a, b) => b.scopes.length - a.scopes.length);
  return mine[0] ?? { name: `${domain}-user`, domain, scopes: [] };
}

/** Eval cases for hand-written rows: rendered exactly as training renders, scored like the frozen test set. */
export function handwrittenCases(
  rows: RouterRow[],
  catalog: Catalog,
  format: RenderFormat,
  source: string,
): EvalCase[] {
  const tools = new Map(catalog.tools.map((t) => [t.id, t]));
  const rendered: Array<RenderedRow & { domain: string }> = rows.map((r) => ({
    ...renderRow(r, tools, format),
    domain: r.domain,
  }));
  return casesFrom(rendered, rows, source, catalog);
}
