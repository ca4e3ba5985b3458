import { Rng } from '../../rng.js';
import type { BfclQuestion } from './data.js';

/** A seeded sample of n questions, kept in BFCL's order; all of them when n is absent or not smaller. */
export function sampleQuestions(questions: BfclQuestion[], n: number | undefined, seed: string): BfclQuestion[] {
  if (n === undefined || n >= questions.length) return questions;
  const chosen = new Set(new Rng(`bfcl-sample:${seed}`).shuffle(questions.map((q) => q.id)).slice(0, n));
  return questions.filter((q) => chosen.has(q.id));
}

/**
 * A seeded half of a category for choosing settings (dev) and the other half to report only: the same seed
 * always splits the same way, so a figure reported never came from questions a choice was made on.
 */
export function halves(questions: BfclQuestion[], seed: string): { dev: BfclQuestion[]; report: BfclQuestion[] } {
  const ids = new Rng(`bfcl-halves:${seed}`).shuffle(questions.map((q) => q.id));
  const dev = new Set(ids.slice(0, Math.floor(ids.length / 2)));
  return { dev: questions.filter((q) => dev.has(q.id)), report: questions.filter((q) => !dev.has(q.id)) };
}
