import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseScoresKey } from '../../core/eval/base-scores.js';
import { sampleCases, showcaseCases } from '../../core/eval/cases.js';
import type { EvalCase } from '../../core/eval/types.js';

/** A test set shaped like a real one: one common tool, several rare ones, a few no-calls, two domains. */
function testSet(): EvalCase[] {
  const cases: EvalCase[] = [];
  const add = (domain: string, tool: string | null, n: number) => {
    for (let i = 0; i < n; i++) {
      const id = `row-${domain}-${tool ?? 'none'}-${String(i).padStart(3, '0')}`;
      const target = tool
        ? { tool, arguments: { i } }
        : { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: '' };
      cases.push({ id, domain, messages: [{ role: 'user', content: id }], tools: [], target });
    }
  };
  add('crm', 'get_account', 60);
  add('crm', 'close_case', 3);
  add('crm', null, 10);
  add('erp', 'get_invoice', 20);
  add('erp', 'void_invoice', 1);
  add('erp', null, 6);
  return cases;
}
const stratum = (c: EvalCase) => `${c.domain}/${c.target.tool ?? 'none'}`;

describe('sampleCases: the eval subset', () => {
  it('takes every case when no limit is set or the limit covers them', () => {
    const all = testSet();
    assert.equal(sampleCases(all, undefined, 7), all);
    assert.equal(sampleCases(all, all.length + 5, 7).length, all.length);
  });

  it('is exactly `limit` cases, deterministic per seed, in id order, and another seed draws others', () => {
    const all = testSet();
    const a = sampleCases(all, 20, 7);
    assert.equal(a.length, 20);
    assert.deepEqual(
      a.map((c) => c.id),
      sampleCases([...all].reverse(), 20, 7).map((c) => c.id),
      'input order does not matter',
    );
    assert.deepEqual(
      a.map((c) => c.id),
      [...a.map((c) => c.id)].sort(),
    );
    assert.equal(new Set(a.map((c) => c.id)).size, 20, 'no case twice');
    assert.notDeepEqual(
      a.map((c) => c.id),
      sampleCases(all, 20, 8).map((c) => c.id),
    );
  });

  it('keeps every stratum, even a one-case one, and shares the rest by size', () => {
    const all = testSet();
    const sample = sampleCases(all, 20, 7);
    const counts = new Map<string, number>();
    for (const c of sample) counts.set(stratum(c), (counts.get(stratum(c)) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), [...new Set(all.map(stratum))].sort(), 'every stratum is represented');
    assert.ok(
      counts.get('crm/get_account')! >= 9 && counts.get('crm/get_account')! <= 12,
      `the common tool keeps its share (${counts.get('crm/get_account')} of 20)`,
    );
    // The first 20 ids would cover two strata of six: the sample is not the head of the list.
    const head = [...all].sort((x, y) => (x.id < y.id ? -1 : 1)).slice(0, 20);
    assert.equal(new Set(head.map(stratum)).size, 2);
  });

  it('with fewer slots than strata, keeps the mix of calls and no-calls (a real test set has many one-case tools)', () => {
    const all = testSet();
    // 40 one-case tools beside the common strata: rarest-first would spend every slot on them.
    for (let t = 0; t < 40; t++)
      all.push({
        id: `row-rare-${t}`,
        domain: 'crm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [],
        target: { tool: `rare_${t}`, arguments: {} },
      });
    const sample = sampleCases(all, 20, 7);
    assert.equal(sample.length, 20);
    const noCalls = sample.filter((c) => c.target.tool === null).length;
    const share = all.filter((c) => c.target.tool === null).length / all.length;
    assert.ok(Math.abs(noCalls / 20 - share) <= 0.1, `no-calls ${noCalls}/20 vs ${share.toFixed(2)} of the test set`);
  });
});

describe("baseScoresKey: where a base model's scores are memoised", () => {
  const cfg = {
    bootstrap: { resamples: 1000, seed: 7 },
    cost: { kind: 'none' as const },
    maxTokens: 160,
    timeoutMs: 120_000,
    maxRetries: 2,
  };
  it('names a packaged base by its weights and the cases by test set and ids', () => {
    const key = baseScoresKey('smollm2-135m-instruct', 'a'.repeat(64), ['r1', 'r2'], cfg);
    assert.match(key!, /^base-scores\/[0-9a-f]{64}$/);
    assert.equal(baseScoresKey('smollm2-135m-instruct', 'a'.repeat(64), ['r1', 'r2'], cfg), key, 'stable');
    assert.notEqual(baseScoresKey('smollm2-135m-instruct', 'b'.repeat(64), ['r1', 'r2'], cfg), key, 'another test set');
    assert.notEqual(baseScoresKey('smollm2-135m-instruct', 'a'.repeat(64), ['r1'], cfg), key, 'another sample');
    assert.notEqual(
      baseScoresKey('smollm2-135m-instruct', 'a'.repeat(64), ['r1', 'r2'], {
        ...cfg,
        bootstrap: { resamples: 200, seed: 7 },
      }),
      key,
    );
    assert.notEqual(baseScoresKey('HuggingFaceTB/SmolLM2-135M-Instruct', 'a'.repeat(64), ['r1', 'r2'], cfg), key);
    assert.notEqual(
      baseScoresKey('smollm2-135m-instruct', 'a'.repeat(64), ['r1', 'r2'], { ...cfg, maxTokens: 64 }),
      key,
      'answers cut shorter',
    );
  });
  it('has none for a base built per run (tiny:, the adapter-relative ../base) or an unknown one', () => {
    for (const base of ['../base', 'tiny:nano', 'unknown'])
      assert.equal(baseScoresKey(base, 'a'.repeat(64), ['r1'], cfg), null, base);
  });
});

describe('showcaseCases: what the demo sends through the gateway', () => {
  const make = (id: string, request: string, target: EvalCase['target']): EvalCase => ({
    id,
    domain: 'crm',
    messages: [{ role: 'user', content: request }],
    tools: [],
    target,
  });
  const noTool = { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: '' };
  const scope = { tool: null, verdict: 'violation' as const, code: 'missing_scope', reason: '' };

  it('shows each request once, a label not shown yet first, in test-set order', () => {
    const cases = [
      make('a', 'Send the aging report by email.', noTool),
      make('b', 'Send the aging report by email.', noTool), // the same request again
      make('c', 'Close case 7.', scope),
      make('d', 'Translate it into French.', noTool), // a label already shown: after the new ones
      make('e', 'Close case 7.', { tool: 'close_case', arguments: { id: 7 } }), // the same words, a new label
      make('f', 'Show account 12.', { tool: 'get_account', arguments: { id: 12 } }),
    ];
    assert.deepEqual(
      showcaseCases(cases, 4).map((c) => c.id),
      ['a', 'c', 'f', 'd'],
    );
    assert.deepEqual(
      showcaseCases(cases, 2).map((c) => c.id),
      ['a', 'c'],
    );
    assert.deepEqual(
      showcaseCases(cases, 10).map((c) => c.id),
      ['a', 'c', 'f', 'd'],
      'never a request twice',
    );
  });
});
