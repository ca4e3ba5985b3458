/** Over-calling and per-operator scores: what the SFT vs SFT+DPO comparison reports. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overCallingRate, scoresByOperator } from '../../core/eval/by-operator.js';
import type { CaseResult, Outcome } from '../../core/eval/types.js';

function scored(
  id: string,
  target: 'call' | 'abstain',
  predicted: 'call' | 'abstain' | 'invalid',
  outcome: Outcome,
): CaseResult {
  return {
    id,
    domain: 'crm',
    targetTool: target === 'call' ? 'get_x' : 'ABSTAIN',
    predictedTool: predicted === 'call' ? 'get_x' : predicted === 'abstain' ? 'ABSTAIN' : 'INVALID',
    outcome,
    exact: outcome === 'correct',
    toolMatch: outcome === 'correct',
    targetAbstains: target === 'abstain',
    predictedAbstains: predicted === 'abstain',
    schemaValid: predicted === 'call' ? true : null,
    detail: '',
    measure: { latencyMs: 1, promptTokens: 1, completionTokens: 1 },
  } as CaseResult;
}

describe('scores by operator', () => {
  const cases = [
    scored('p1', 'call', 'call', 'correct'),
    scored('p2', 'call', 'abstain', 'spurious_abstention'),
    scored('s1', 'abstain', 'call', 'missed_abstention'),
    scored('s2', 'abstain', 'abstain', 'correct'),
    scored('i1', 'abstain', 'invalid', 'invalid_output'),
  ];
  const operators: Record<string, string | null> = {
    p1: null,
    p2: null,
    s1: 'scope_missing',
    s2: 'scope_missing',
    i1: 'injection',
  };

  it('over-calling counts calls where the target abstains; invalid output is no call; none to abstain is null', () => {
    assert.equal(overCallingRate(cases), 1 / 3);
    assert.equal(overCallingRate(cases.filter((c) => !c.targetAbstains)), null);
  });

  it('groups by the row\'s operator, positives under "positive"', () => {
    assert.deepEqual(
      scoresByOperator(cases, (id) => operators[id]),
      {
        injection: { cases: 1, exact: 0, abstainTargets: 1, overCalls: 0 },
        positive: { cases: 2, exact: 1, abstainTargets: 0, overCalls: 0 },
        scope_missing: { cases: 2, exact: 1, abstainTargets: 2, overCalls: 1 },
      },
    );
  });
});
