/**
 * Preference pairs from the near-miss negatives: the same prompt with a chosen and a
 * rejected answer that differ minimally. Two kinds, both from rows the corrupt stage already proved:
 * - `near_miss`: the positive row's prompt; chosen = its correct call, rejected = the negative's tempting call when
 *   that differs from it in the tool alone or in one argument (sibling tool, dropped field, out-of-policy value,
 *   another record's id);
 * - `abstention`: the negative row's prompt (text injected, tool not offered...); chosen = its no-call, rejected =
 *   the call a careless router would make there. A missing scope makes no pair: the scope check refuses those.
 * Pairs are built from one split's rows only, so no pair straddles train and test.
 */
import type { Catalog, CatalogTool } from '../catalog/types.js';
import { canonicalJson } from '../hash.js';
import { completionText, renderRow, type ChatMessage, type RenderedRow, type RenderFormat } from './render.js';
import { rowId } from './rows.js';
import type { RouterRow, ToolCallTarget } from './types.js';
import { decidedAfterModel } from './taught.js';

/** One pair in TRL's conversational preference format, with the tools the prompt offers. */
export interface PreferencePair {
  id: string;
  prompt: ChatMessage[];
  chosen: ChatMessage[];
  rejected: ChatMessage[];
  tools: RenderedRow['tools'];
  kind: 'near_miss' | 'abstention';
  operator: string;
  /** The row whose prompt it is, and the negative whose tempting call is rejected. */
  from: { prompt: string; negative: string };
}

/** How a rejected call differs from the chosen one, or null when it is not a one-step near miss. */
export function nearMissOf(chosen: ToolCallTarget, rejected: ToolCallTarget): 'tool' | 'argument' | null {
  const same = canonicalJson(chosen.arguments) === canonicalJson(rejected.arguments);
  if (chosen.tool !== rejected.tool) return same ? 'tool' : null;
  const keys = new Set([...Object.keys(chosen.arguments), ...Object.keys(rejected.arguments)]);
  const changed = [...keys].filter(
    (k) =>
      canonicalJson(chosen.arguments[k] ?? null) !== canonicalJson(rejected.arguments[k] ?? null) ||
      k in chosen.arguments !== k in rejected.arguments,
  );
  return changed.length === 1 ? 'argument' : null;
}

/** The pairs of one split, each once (an oversampled train split repeats rows), with counts by kind and operator. */
export function preferencePairs(
  rows: RouterRow[],
  catalog: Catalog,
  format: RenderFormat,
): { pairs: PreferencePair[]; counts: Record<string, number> } {
  const tools = new Map<string, CatalogTool>(catalog.tools.map((t) => [t.id, t]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const pairs = new Map<string, PreferencePair>();
  const answer = (text: string): ChatMessage[] => [{ role: 'assistant', content: text }];
  const add = (
    kind: PreferencePair['kind'],
    promptRow: RouterRow,
    negative: RouterRow,
    chosen: string,
    rejected: string,
  ) => {
    const rendered = renderRow(promptRow, tools, format);
    const pair: PreferencePair = {
      id: rowId({ pair: kind, prompt: rendered.prompt, tools: promptRow.tools, chosen, rejected }),
      prompt: rendered.prompt,
      chosen: answer(chosen),
      rejected: answer(rejected),
      tools: rendered.tools,
      kind,
      operator: negative.provenance.operator!,
      from: { prompt: promptRow.id, negative: negative.id },
    };
    if (!pairs.has(pair.id)) pairs.set(pair.id, pair);
  };
  for (const negative of rows) {
    const tempting = negative.provenance.negativeCall;
    if (!negative.provenance.operator || !tempting || negative.target.tool !== null) continue;
    // A missing scope or an absent tool is a check's to answer, not the model's (taught.ts): no pair teaches the no-call.
    if (!decidedAfterModel(negative, format, byId))
      add('abstention', negative, negative, completionText(negative.target, format), completionText(tempting, format));
    const positive = negative.provenance.from ? byId.get(negative.provenance.from) : undefined;
    if (positive && positive.target.tool !== null && nearMissOf(positive.target, tempting)) {
      add('near_miss', positive, negative, completionText(positive.target, format), completionText(tempting, format));
    }
  }
  const out = [...pairs.values()];
  const counts: Record<string, number> = {};
  for (const p of out) counts[`${p.kind}:${p.operator}`] = (counts[`${p.kind}:${p.operator}`] ?? 0) + 1;
  return { pairs: out, counts };
}
