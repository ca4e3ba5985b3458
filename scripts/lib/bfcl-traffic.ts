/**
 * BFCL's live requests as the flywheel's traffic: requests people sent with their own functions (`live_simple`,
 * `live_multiple`), split by a seed into the slices a turn needs (core/flywheel/traffic.ts). Each request is sent as
 * an agent sends it (its conversation and its functions, under the names the catalog gave them); its first
 * acceptable answer is the label the frontier stand-in holds and the held-out score compares against.
 */
import { writeFile } from 'node:fs/promises';
import type { Catalog } from '../../core/catalog/types.js';
import type { ChatMessage } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import type { DatasetConfig } from '../../core/config/schema.js';
import { bfclCases, type BfclCase } from '../../core/eval/bfcl/cases.js';
import { loadBfclSet, type BfclCategory, type BfclQuestion, type BfclSet } from '../../core/eval/bfcl/data.js';
import { locateBfcl } from '../../core/eval/bfcl/judge.js';
import { EvalInputError } from '../../core/eval/cases.js';
import type { EvalCase } from '../../core/eval/types.js';
import { splitTraffic, type TrafficSizes, type TrafficSplit } from '../../core/flywheel/traffic.js';
import type { HeldLabel } from './label-frontier.js';
import { handwrittenRowsOf } from './handwritten.js';

export const TRAFFIC_CATEGORIES: BfclCategory[] = ['live_simple', 'live_multiple'];

export interface Traffic {
  split: TrafficSplit;
  /** Every question of the traffic's categories, by id. */
  questions: Map<string, { category: BfclCategory; question: BfclQuestion }>;
  sets: BfclSet[];
}

/** The user's words in a question: its last user message. */
export const requestText = (q: BfclQuestion): string =>
  [...(q.question[0] ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';

export async function loadTraffic(sizes: TrafficSizes, seed: string): Promise<Traffic> {
  const { dataDir } = await locateBfcl();
  const sets = await Promise.all(TRAFFIC_CATEGORIES.map((c) => loadBfclSet(dataDir, c)));
  const questions = new Map<string, { category: BfclCategory; question: BfclQuestion }>();
  for (const set of sets) for (const q of set.questions) questions.set(q.id, { category: set.category, question: q });
  const requests = [...questions.values()]
    .filter(({ question }) => requestText(question).trim() !== '')
    .map(({ question }) => ({ id: question.id, text: requestText(question) }));
  return { split: splitTraffic(requests, sizes, seed), questions, sets };
}

/** The ids the benchmark uses: every slice and batch. */
export const usedIds = (s: TrafficSplit): string[] => [...s.heldOut, ...s.validation, ...s.gate, ...s.batches.flat()];

/** The union of the used questions' functions, as a tool file (one BFCL function per line); no question text. */
export async function writeFunctionsFile(traffic: Traffic, ids: readonly string[], file: string): Promise<number> {
  const lines = new Set<string>();
  for (const id of ids) for (const f of traffic.questions.get(id)!.question.function) lines.add(JSON.stringify(f));
  await writeFile(file, [...lines].map((l) => `${l}\n`).join(''));
  return lines.size;
}

export interface TrafficCase {
  id: string;
  text: string;
  /** What an agent sends: its conversation and the functions it offers, under the catalog's names. */
  request: { messages: ChatMessage[]; tools: EvalCase['tools'] };
  /** Rendered as the router sees it without a gateway (every offered function, the router's prompt). */
  rendered: EvalCase;
  label: HeldLabel;
}

/** The questions `ids` as cases against the catalog the router was trained on. */
export function trafficCases(traffic: Traffic, ids: readonly string[], catalog: Catalog): TrafficCase[] {
  const byCategory = new Map<BfclCategory, BfclQuestion[]>();
  for (const id of ids) {
    const { category, question } = traffic.questions.get(id)!;
    byCategory.set(category, [...(byCategory.get(category) ?? []), question]);
  }
  const cases = new Map<string, BfclCase>();
  for (const set of traffic.sets) {
    const questions = byCategory.get(set.category);
    if (questions) for (const c of bfclCases({ ...set, questions }, { catalog })) cases.set(c.case.id, c);
  }
  return ids.map((id) => {
    const c = cases.get(id)!;
    const question = traffic.questions.get(id)!.question;
    const target = c.case.target;
    return {
      id,
      text: requestText(question),
      request: { messages: question.question[0] as ChatMessage[], tools: c.case.tools },
      rendered: c.case,
      label: target.tool === null ? { tool: null, arguments: {} } : { tool: target.tool, arguments: target.arguments },
    };
  });
}

/**
 * The gate slice as frozen test rows, in the hand-written case format (checked against the catalog like any
 * hand-written case). A question whose label the catalog's schemas refuse is left out and counted.
 */
export function gateRows(
  cases: readonly TrafficCase[],
  catalog: Catalog,
  dataset: DatasetConfig,
  domain: string,
): { rows: RouterRow[]; refused: Array<{ id: string; why: string }> } {
  const rows: RouterRow[] = [];
  const refused: Array<{ id: string; why: string }> = [];
  for (const c of cases) {
    const line = JSON.stringify({
      id: c.id,
      domain,
      messages: c.request.messages.filter((m) => m.role !== 'system'),
      tools: c.request.tools.map((t) => t.function.name),
      expected: c.label.tool === null ? { tool: null, verdict: 'abstain', code: 'no_tool' } : c.label,
    });
    try {
      rows.push(...handwrittenRowsOf(line, 'gate-slice', catalog, dataset));
    } catch (err) {
      if (!(err instanceof EvalInputError)) throw err;
      refused.push({ id: c.id, why: err.message });
    }
  }
  return { rows, refused };
}
