import type { RenderedRow } from '../dataset/render.js';
import type { RouterRow } from '../dataset/types.js';
import { targetFromCompletion } from './parse.js';
import type { EvalCase } from './types.js';

/** Raised for a test set that cannot be scored; names the row. Retrying cannot help. */
export class EvalInputError extends Error {
  override name = 'EvalInputError';
}

/**
 * Eval cases from rendered test rows (the prompts exactly as training saw them) joined by id with the router
 * rows they were rendered from (for the domain). Rows may also carry `domain` themselves (standalone files).
 */
export function casesFrom(rendered: Array<RenderedRow & { domain?: string }>, routerRows: RouterRow[] = [], source = 'test set'): EvalCase[] {
  const domains = new Map(routerRows.map((r) => [r.id, r.domain]));
  return rendered.map((row, i) => {
    const where = `${source} row ${i + 1}${row?.id ? ` (${row.id})` : ''}`;
    if (!row || typeof row.id !== 'string' || !Array.isArray(row.prompt) || !Array.isArray(row.completion) || !Array.isArray(row.tools)) {
      throw new EvalInputError(`${where}: expected a rendered row {id, prompt[], completion[], tools[]}`);
    }
    const text = row.completion[0]?.content;
    if (typeof text !== 'string') throw new EvalInputError(`${where}: completion[0].content must be the target text`);
    let target;
    try {
      target = targetFromCompletion(text);
    } catch (err) {
      throw new EvalInputError(`${where}: completion: ${(err as Error).message}`);
    }
    return { id: row.id, domain: row.domain ?? domains.get(row.id) ?? null, messages: row.prompt, tools: row.tools, target };
  });
}

/** The first `limit` cases by id: a stable, smoke-sized slice of a frozen test set. */
export function firstCases(cases: EvalCase[], limit: number | undefined): EvalCase[] {
  if (limit === undefined || limit >= cases.length) return cases;
  return [...cases].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
}
