/**
 * The router contract's edge cases (test/fixtures/router-answers.jsonl, hand-written): every answer parses to
 * what the file says and, after the offer, grounding and scope checks, makes the decision it says. The trainer's
 * test_router_answer.py reads the same file for its parse.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { decide, parseAnswer, type AnswerMessage, type Prediction } from '../../core/router/answer.js';
import { checkAnswer } from '../../core/router/checks.js';
import { CONTRACT, VERDICT_CODES, VERDICTS } from '../../core/router/contract.js';

interface Case {
  name: string;
  message: AnswerMessage | null;
  offered: string[];
  conversation: Array<{ role: string; content?: unknown }>;
  caller?: string[];
  parsed: Record<string, unknown>;
  decision: Record<string, unknown>;
}

const dir = new URL('../fixtures/', import.meta.url);
const cases = readFileSync(new URL('router-answers.jsonl', dir), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Case);
const catalog = JSON.parse(readFileSync(new URL('router-answers.tools.json', dir), 'utf8')) as {
  tools: Array<{ type: 'function'; function: { name: string; parameters: unknown } }>;
  scopes: Record<string, string[]>;
};

/** The file's language-neutral shape of a parse. */
function parsedShape(p: Prediction): Record<string, unknown> {
  if (p.kind === 'invalid') return { kind: 'invalid', problem: p.code };
  if (p.kind === 'no-call') return { kind: 'no-call', verdict: p.verdict, code: p.code };
  return {
    kind: 'call',
    calls: [
      { tool: p.tool, arguments: p.arguments },
      ...(p.others ?? []).map((o) => ({ tool: o.tool, arguments: o.arguments })),
    ],
  };
}

function decisionShape(c: Case): Record<string, unknown> {
  const checked = checkAnswer(parseAnswer(c.message), {
    offered: c.offered,
    tools: catalog.tools.filter((t) => c.offered.includes(t.function.name)),
    messages: c.conversation,
    ...(c.caller ? { scopes: { caller: c.caller, tools: catalog.scopes } } : {}),
  });
  const d = decide(checked.prediction);
  if (d.kind === 'invalid') return { kind: 'invalid', problem: d.code };
  if (d.kind === 'no-call') return { kind: 'no-call', verdict: d.verdict, code: d.code };
  return { kind: 'call', tool: d.tool, arguments: d.arguments };
}

describe('router answers: the shared edge cases', () => {
  it('holds at least 40 cases, each problem code of the contract among them', () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    const problems = new Set(cases.flatMap((c) => [c.parsed.problem, c.decision.problem]));
    for (const code of Object.keys(CONTRACT.problems)) assert.ok(problems.has(code), `no case for ${code}`);
  });

  it("the contract's answer schema lists each verdict's codes, and takes exactly the router JSON the parse takes", () => {
    const branches = (
      CONTRACT.answerSchema.anyOf as Array<{ properties: Record<string, { const?: string; enum?: string[] }> }>
    ).slice(1);
    for (const verdict of VERDICTS) {
      const branch = branches.find((b) => b.properties.verdict!.const === verdict);
      const codes = Object.keys(VERDICT_CODES).filter((c) => VERDICT_CODES[c] === verdict);
      assert.deepEqual(branch?.properties.code!.enum, codes, verdict);
    }
    const validate = new Ajv({ strict: false }).compile(CONTRACT.answerSchema);
    let checked = 0;
    for (const c of cases) {
      let obj: unknown;
      try {
        obj = JSON.parse(c.message?.content ?? '');
      } catch {
        continue;
      }
      if (c.message?.tool_calls?.length || typeof obj !== 'object' || obj === null || Array.isArray(obj)) continue;
      const decides = c.parsed.kind !== 'invalid' && ((c.parsed.calls as unknown[] | undefined)?.length ?? 1) === 1;
      assert.equal(validate(obj), decides, c.name);
      checked++;
    }
    assert.ok(checked >= 20, `${checked} router-JSON answers`);
  });

  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(parsedShape(parseAnswer(c.message)), c.parsed, 'parse');
      assert.deepEqual(decisionShape(c), c.decision, 'decision');
    });
  }
});
