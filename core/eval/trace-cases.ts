import { basename } from 'node:path';
import type { RenderedRow } from '../dataset/render.js';
import type { NoCallTarget, Target } from '../dataset/types.js';
import { checkTrace, type ParsedTrace } from '../traces/ingest.js';
import type { Trace } from '../traces/types.js';
import { parseAnswer } from '../router/answer.js';
import type { EvalCase } from './types.js';

/** A trace that cannot be a case, and why (the CLI prints the counts, the first few in full). */
export interface SkippedTrace {
  file: string;
  row: number;
  reason: 'invalid_shape' | 'no_answer' | 'no_tools' | 'no_decision' | 'several_calls' | 'not_escalated';
  detail: string;
}

/**
 * Production traffic as an eval set: each trace's conversation up to its final assistant message is the
 * prompt (as it was logged: a rendering gateway logs what the router saw), its tools are the offered tools,
 * and that final message is the expected decision — what production answered, the frontier's answer where
 * the gateway escalated. `escalatedOnly` keeps the frontier-answered decisions alone, the ones a stronger
 * model labelled, so a candidate is scored against them rather than against its predecessor's own answers.
 */
export function traceCases(
  parsed: ParsedTrace[],
  opts: { escalatedOnly?: boolean } = {},
): { cases: EvalCase[]; skipped: SkippedTrace[] } {
  const cases: EvalCase[] = [];
  const skipped: SkippedTrace[] = [];
  for (const p of parsed) {
    const skip = (reason: SkippedTrace['reason'], detail: string) =>
      skipped.push({ file: p.file, row: p.row, reason, detail });
    let trace: Trace;
    try {
      trace = checkTrace(p.trace);
    } catch (err) {
      skip('invalid_shape', (err as Error).message);
      continue;
    }
    const answer = trace.messages.at(-1);
    if (answer?.role !== 'assistant' || !trace.messages.slice(0, -1).some((m) => m.role === 'user')) {
      skip('no_answer', 'a case needs a user turn and a final assistant message (the decision)');
      continue;
    }
    if (!trace.tools?.length) {
      skip('no_tools', 'no tools were offered, so there was no routing decision');
      continue;
    }
    const gateway = trace.metadata?.gateway as { escalated?: unknown } | undefined;
    if (opts.escalatedOnly && gateway?.escalated !== true) {
      skip('not_escalated', 'answered by the router itself, not the frontier');
      continue;
    }
    const target = targetOf(answer);
    if (typeof target === 'string') {
      skip(target.startsWith('several') ? 'several_calls' : 'no_decision', target);
      continue;
    }
    cases.push({
      id: `${basename(p.file)}:${p.row}`,
      domain: typeof trace.metadata?.domain === 'string' ? trace.metadata.domain : null,
      messages: trace.messages.slice(0, -1).map((m) => ({
        role: m.role,
        content: m.content ?? null,
        ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
        ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
      })),
      tools: trace.tools.map((t): RenderedRow['tools'][number] => ({
        type: 'function',
        function: {
          name: t.function.name,
          description: t.function.description ?? '',
          parameters: t.function.parameters ?? { type: 'object', properties: {} },
        },
      })),
      target,
    });
  }
  return { cases, skipped };
}

/** The decision a final assistant message records, or why it records none. */
function targetOf(message: Trace['messages'][number]): Target | string {
  const p = parseAnswer({
    content: message.content ?? null,
    ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
  });
  if (p.kind === 'invalid') return `the final message is not a decision: ${p.problem}`;
  if (p.kind === 'call')
    return p.extraCalls > 0
      ? `several calls (${p.extraCalls + 1}) in one answer`
      : { tool: p.tool, arguments: p.arguments as Record<string, unknown> };
  // parseAnswer accepts a no-call only with a contract verdict and one of its codes.
  return { tool: null, verdict: p.verdict as NoCallTarget['verdict'], code: p.code!, reason: '' };
}
