/**
 * BFCL's questions and answers as bfcl-eval ships them (`bfcl_eval/data/BFCL_v4_<category>.json`, answers under
 * `possible_answer/`): JSON lines of {id, question: [turn[]], function: [...]} and {id, ground_truth}.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../../errors.js';

/** A function as BFCL documents it (Python-flavoured types: `dict`, `float`, `tuple`, …). */
export interface BfclFunction {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface BfclMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

export interface BfclQuestion {
  id: string;
  /** Turns, each a list of messages; the categories scored here have one. */
  question: BfclMessage[][];
  function: BfclFunction[];
}

/**
 * An answer as BFCL's function-calling handlers record it: the calls, each `{function name: arguments JSON text}`
 * (BFCL decodes the text itself), or the answer's text when it made no native call.
 */
export type BfclModelResult = Array<Record<string, string>> | string;

/** Acceptable calls: per function, per argument, the values accepted ("" among them: the argument may be left out). */
export type BfclGroundTruth = Array<Record<string, Record<string, unknown[]>>>;

import { BFCL_CATEGORIES, type BfclCategory } from './categories.js';

export { BFCL_CATEGORIES, type BfclCategory };

/** BFCL's categories a router's decision does not answer, and why. */
const OUT_OF_SCOPE: Array<[RegExp, string]> = [
  [/parallel/, 'it wants several calls in one answer, and a router answers with one decision'],
  [/multi_turn|memory|web_search|agentic/, 'it is an agent loop over several turns, not one routing decision'],
  [/java|javascript/, "its answers are in Java or JavaScript syntax, and the router's arguments are JSON"],
  [/format_sensitivity/, 'it varies the prompt format, which the router fixes'],
  [/^live_relevance$/, 'any call passes there, so there is no expected call to score the router against'],
];

export class BfclInputError extends InputError {}

/** Categories from `live_simple,irrelevance`; an unknown or unscorable one is an error saying why. */
export function parseCategories(list: string): BfclCategory[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new BfclInputError(`--bfcl: name at least one category (${BFCL_CATEGORIES.join(', ')})`);
  for (const name of names) {
    if ((BFCL_CATEGORIES as readonly string[]).includes(name)) continue;
    const why = OUT_OF_SCOPE.find(([re]) => re.test(name))?.[1];
    throw new BfclInputError(
      why
        ? `--bfcl ${name}: not scored here: ${why} (see docs/bfcl.md)`
        : `--bfcl ${name}: not a BFCL category; the scored ones are ${BFCL_CATEGORIES.join(', ')}`,
    );
  }
  return [...new Set(names)] as BfclCategory[];
}

/** Whether a category judges abstaining (no call) as the right answer. */
export function expectsNoCall(category: BfclCategory): boolean {
  return category.includes('irrelevance');
}

/** Whether a category has possible answers (AST) rather than the irrelevance rule. */
export function hasAnswers(category: BfclCategory): boolean {
  return !expectsNoCall(category);
}

export interface BfclSet {
  category: BfclCategory;
  questions: BfclQuestion[];
  /** ground_truth by question id; empty for the relevance categories. */
  answers: Map<string, BfclGroundTruth>;
}

/** A category's questions and answers from bfcl_eval's data folder; every problem names the file and line. */
export async function loadBfclSet(dataDir: string, category: BfclCategory): Promise<BfclSet> {
  const file = join(dataDir, `BFCL_v4_${category}.json`);
  const questions = (await jsonLines(file)).map(({ line, value }) => checkQuestion(value, `${file}:${line}`));
  const answers = new Map<string, BfclGroundTruth>();
  if (hasAnswers(category)) {
    const answerFile = join(dataDir, 'possible_answer', `BFCL_v4_${category}.json`);
    for (const { line, value } of await jsonLines(answerFile)) {
      const a = value as { id?: unknown; ground_truth?: unknown };
      if (typeof a?.id !== 'string' || !Array.isArray(a.ground_truth))
        throw new BfclInputError(`${answerFile}:${line}: expected {"id", "ground_truth": [...]}`);
      answers.set(a.id, a.ground_truth as BfclGroundTruth);
    }
    const unanswered = questions.find((q) => !answers.has(q.id));
    if (unanswered) throw new BfclInputError(`${answerFile}: no answer for question ${unanswered.id}`);
  }
  return { category, questions, answers };
}

async function jsonLines(file: string): Promise<Array<{ line: number; value: unknown }>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new BfclInputError(`${file}: ${(err as Error).message}`);
  }
  const out: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      throw new BfclInputError(`${file}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

function checkQuestion(value: unknown, where: string): BfclQuestion {
  const q = value as Partial<BfclQuestion> | null;
  if (!q || typeof q.id !== 'string' || !Array.isArray(q.question) || !Array.isArray(q.function))
    throw new BfclInputError(`${where}: expected {"id", "question": [[...]], "function": [...]}`);
  if (q.question.length !== 1 || !Array.isArray(q.question[0]) || q.question[0].length === 0)
    throw new BfclInputError(`${where} (${q.id}): expected one turn of messages, got ${q.question.length}`);
  return q as BfclQuestion;
}
