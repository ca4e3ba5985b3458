/**
 * BFCL questions as eval cases: the question's functions are the slice, in JSON Schema as the tool-file catalogs
 * convert them (core/catalog/tools-file.ts), the conversation is the question's (its system message kept, after
 * the router's own), and the prompt is rendered as training renders one. The expected decision, for our own
 * metrics beside BFCL's, is the first acceptable answer; BFCL's checker accepts any of them.
 */
import { canonicalJson } from '../../hash.js';
import type { Catalog, CatalogTool } from '../../catalog/types.js';
import { parseToolsFile, SOURCE_NAME_META, type ListedTool } from '../../catalog/tools-file.js';
import { inOfferOrder, offeredTool, routerPrompt, type ChatMessage } from '../../dataset/render.js';
import type { Target } from '../../dataset/types.js';
import type { EvalCase } from '../types.js';
import {
  BfclInputError,
  expectsNoCall,
  type BfclCategory,
  type BfclFunction,
  type BfclGroundTruth,
  type BfclQuestion,
  type BfclSet,
} from './data.js';

export interface BfclCase {
  category: BfclCategory;
  case: EvalCase;
  /** The question's functions as BFCL documents them: what its checker reads. */
  functions: BfclFunction[];
  answer: BfclGroundTruth | null;
  /** Offered name → the function's BFCL name. */
  names: Map<string, string>;
}

export interface BfclCaseOptions {
  /**
   * The catalog a router was trained on: each function is offered under the name that catalog gave it (its
   * renamed duplicates included), and a function it lacks is an error. Absent: the question's own names.
   */
  catalog?: Catalog;
  /**
   * `require` (the default): a function the catalog lacks is an error. `prefer`: a question whose functions the
   * catalog does not all hold is offered under its own names (a router trained on other tools, asked BFCL's).
   */
  catalogNames?: 'require' | 'prefer';
  /** Who asks; absent: the catalog server's user, or `bfcl-user` with no scopes. */
  persona?: { name: string; scopes: string[] };
}

/** No offered function fits: what the router answers for an irrelevance question. */
export const NO_TOOL_TARGET: Target = { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' };

/** Every question of a set as a case; any function or answer that cannot be placed names the question. */
export function bfclCases(set: BfclSet, opts: BfclCaseOptions = {}): BfclCase[] {
  const index = opts.catalog ? catalogIndex(opts.catalog) : undefined;
  return set.questions.map((q) => bfclCase(q, set, index, opts));
}

function bfclCase(
  q: BfclQuestion,
  set: BfclSet,
  index: Map<string, CatalogTool> | undefined,
  opts: BfclCaseOptions,
): BfclCase {
  const where = `BFCL ${set.category} ${q.id}`;
  const listed = questionTools(q, where);
  const names = new Map<string, string>();
  const offered: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> = [];
  let domain = 'bfcl';
  const inCatalog = (t: ListedTool) => index?.has(toolKey(sourceName(t), t)) === true;
  const byCatalog = opts.catalogNames === 'prefer' && !listed.every(inCatalog) ? undefined : index;
  for (const tool of listed) {
    const bfclName = sourceName(tool);
    if (!byCatalog) {
      names.set(tool.name, bfclName);
      offered.push(tool);
      continue;
    }
    const found = byCatalog.get(toolKey(bfclName, tool));
    if (!found)
      throw new BfclInputError(
        `${where}: function ${bfclName} is not in the catalog as this question documents it (the router must be trained on a catalog holding every scored question's functions)`,
      );
    names.set(found.name, bfclName);
    offered.push(found);
    domain = found.server;
  }
  const persona = opts.persona ?? { name: `${domain}-user`, scopes: [] };
  const turn = q.question[0]!;
  const system = turn.filter((m) => m.role === 'system').map((m) => m.content);
  const messages = routerPrompt(persona, turn as ChatMessage[]);
  // The question's own instructions stay, after the router's: one system message, as every chat template takes.
  if (system.length) messages[0] = { ...messages[0]!, content: `${messages[0]!.content}\n\n${system.join('\n\n')}` };
  const answer = expectsNoCall(set.category) ? null : (set.answers.get(q.id) ?? null);
  return {
    category: set.category,
    case: {
      id: q.id,
      domain,
      messages,
      tools: inOfferOrder(offered.map(offeredTool)),
      target: answer ? firstAnswer(answer, names, where) : NO_TOOL_TARGET,
    },
    functions: q.function,
    answer,
    names,
  };
}

/** The question's functions as a tool-file catalog reads them (one conversion, BFCL's types to JSON Schema). */
function questionTools(q: BfclQuestion, where: string): ListedTool[] {
  if (q.function.length === 0) return [];
  try {
    return parseToolsFile(JSON.stringify({ id: q.id, question: q.question, function: q.function }), where).tools;
  } catch (err) {
    throw new BfclInputError(`${where}: its functions cannot be offered: ${(err as Error).message}`);
  }
}

/** The first acceptable call: the first accepted value of each argument, leaving out those that may be absent. */
function firstAnswer(answer: BfclGroundTruth, names: Map<string, string>, where: string): Target {
  const [call] = answer;
  const [fn, params] = Object.entries(call ?? {})[0] ?? [];
  if (!fn || !params) throw new BfclInputError(`${where}: its answer names no function`);
  const offered = [...names].find(([, bfcl]) => bfcl === fn)?.[0];
  if (!offered) throw new BfclInputError(`${where}: its answer calls ${fn}, which the question does not offer`);
  return { tool: offered, arguments: firstOfEach(params) };
}

/**
 * BFCL nests its alternatives: an argument's accepted values are a list, and a dict among them maps each key to
 * its own list (a list of dicts likewise). The first of each list, all the way down; "" first: left out.
 */
function firstOfEach(alternatives: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(alternatives)) {
    const first = Array.isArray(values) ? values[0] : values;
    if (first === undefined || first === '') continue;
    out[key] = firstValue(first);
  }
  return out;
}

function firstValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (isObject(x) ? firstOfEach(x) : x));
  return isObject(v) ? firstOfEach(v) : v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sourceName(tool: { name: string; _meta?: Record<string, unknown> }): string {
  const from = tool._meta?.[SOURCE_NAME_META];
  return typeof from === 'string' ? from : tool.name;
}

/** A function is the same tool when its BFCL name, description, title and schema all agree. */
function toolKey(
  bfclName: string,
  t: { title?: string; description?: string; inputSchema: Record<string, unknown> },
): string {
  return canonicalJson({
    name: bfclName,
    title: t.title ?? null,
    description: t.description ?? null,
    schema: t.inputSchema,
  });
}

function catalogIndex(catalog: Catalog): Map<string, CatalogTool> {
  const index = new Map<string, CatalogTool>();
  for (const t of catalog.tools) {
    const key = toolKey(sourceName(t), t);
    if (!index.has(key)) index.set(key, t);
  }
  return index;
}
