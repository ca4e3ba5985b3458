/** Kept apart from the data loader so that the config schema can name the categories without file access. */

/**
 * The categories a router's single decision can be judged on: one call (or none) to one of the offered
 * functions, in Python's types. The irrelevance ones have no answers: no call is the right one. (live_relevance,
 * where any call passes, has no call to score ours against.)
 */
export const BFCL_CATEGORIES = [
  'live_simple',
  'live_multiple',
  'irrelevance',
  'live_irrelevance',
  'simple_python',
  'multiple',
] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];
