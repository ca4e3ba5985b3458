import { canonicalJson } from '../hash.js';
import type { Ask, ChatAnswer } from '../eval/client.js';
import { decisionOf } from '../router/answer.js';
import type { EvalCase } from '../eval/types.js';

/** A probe prompt: a test case's messages and offered tools. */
export type SmokeProbe = Pick<EvalCase, 'id' | 'messages' | 'tools'>;

export interface SmokeResult {
  passed: boolean;
  /** One line for humans: why it passed or failed. */
  summary: string;
  probes: Array<{ id: string; answer: string; baseAnswer: string; parses: boolean; problem?: string }>;
}

function answerText(a: ChatAnswer): string {
  const m = a.message;
  if (!m) return '';
  return m.tool_calls?.length ? canonicalJson(m.tool_calls.map((c) => c.function ?? null)) : (m.content ?? '');
}

/**
 * After a version is loaded and before the alias moves: every probe's answer must be one decision (core/router/answer.ts), and at
 * least one must differ from the base model's answer — an adapter that loads but changes nothing is caught.
 */
export async function smokeTest(probes: SmokeProbe[], version: Ask, base: Ask): Promise<SmokeResult> {
  if (probes.length === 0) return { passed: false, summary: 'no probe prompts to smoke-test with', probes: [] };
  const results: SmokeResult['probes'] = [];
  for (const p of probes) {
    const [mine, theirs] = [await version(p.messages, p.tools), await base(p.messages, p.tools)];
    const decision = decisionOf(mine.message);
    const parses = decision.kind !== 'invalid';
    results.push({
      id: p.id,
      answer: answerText(mine),
      baseAnswer: answerText(theirs),
      parses,
      ...(decision.kind === 'invalid' ? { problem: decision.detail } : {}),
    });
  }
  const unparsed = results.filter((r) => !r.parses);
  const differs = results.some((r) => r.answer !== r.baseAnswer);
  if (unparsed.length > 0)
    return {
      passed: false,
      summary: `${unparsed.length}/${results.length} probe answers do not parse (${unparsed[0]!.id}: ${unparsed[0]!.problem})`,
      probes: results,
    };
  if (!differs)
    return {
      passed: false,
      summary: `all ${results.length} probe answers equal the base model's: the adapter changes nothing`,
      probes: results,
    };
  return {
    passed: true,
    summary: `${results.length} probes parse, ${results.filter((r) => r.answer !== r.baseAnswer).length} differ from the base`,
    probes: results,
  };
}
