/** BFCL as an eval source: questions → cases → the endpoint's answers → BFCL's checker (see docs/bfcl.md). */
import type { Catalog } from '../../catalog/types.js';
import { bfclCases, type BfclCase, type BfclCaseOptions } from './cases.js';
import { loadBfclSet, type BfclCategory } from './data.js';
import { locateBfcl } from './judge.js';
import { sampleQuestions } from './sample.js';

export { parseCategories, BFCL_CATEGORIES, type BfclCategory } from './data.js';
export { BfclJudgeMissing, locateBfcl } from './judge.js';
export { scoreBfcl, type BfclScore } from './score.js';
export { bfclMarkdown, bfclTable, type BfclReport } from './report.js';

export interface BfclGroup {
  category: BfclCategory;
  cases: BfclCase[];
  /** Questions in the category before sampling. */
  total: number;
}

/**
 * The categories' questions as cases, each category sampled to at most `limit` with the seed. Finds the judge
 * first: without BFCL's checker nothing is scored, and that is said before any request is made.
 */
export async function bfclGroups(
  categories: BfclCategory[],
  opts: {
    limit?: number;
    seed: string;
    catalog?: Catalog;
    catalogNames?: BfclCaseOptions['catalogNames'];
    persona?: BfclCaseOptions['persona'];
  },
): Promise<{ judge: { python: string; data: string }; groups: BfclGroup[] }> {
  const { python, dataDir } = await locateBfcl();
  const groups: BfclGroup[] = [];
  for (const category of categories) {
    const set = await loadBfclSet(dataDir, category);
    const questions = sampleQuestions(set.questions, opts.limit, `${opts.seed}:${category}`);
    groups.push({
      category,
      total: set.questions.length,
      cases: bfclCases(
        { ...set, questions },
        {
          ...(opts.catalog ? { catalog: opts.catalog } : {}),
          ...(opts.catalogNames ? { catalogNames: opts.catalogNames } : {}),
          ...(opts.persona ? { persona: opts.persona } : {}),
        },
      ),
    });
  }
  return { judge: { python, data: dataDir }, groups };
}
