import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideGate } from '../../core/eval/gate.js';
import { aggregate } from '../../core/eval/metrics.js';
import { ABSTAIN, type CaseResult, type EndpointResult, type GateConfig } from '../../core/eval/types.js';

const BOOT = { resamples: 500, seed: 11 };
const CFG: GateConfig = { margin: 0.02, abstentionF1Tolerance: 0, minExactMatch: 0.7 };

/** A case where the target is `t` and the model answered `p`; `exact` says whether it matched. */
function res(id: string, t: string, p: string, exact: boolean): CaseResult {
  return {
    id,
    domain: 'crm',
    targetTool: t,
    predictedTool: p,
    outcome: exact ? 'correct' : 'value_error',
    exact,
    toolMatch: t === p,
    targetAbstains: t === ABSTAIN,
    predictedAbstains: p === ABSTAIN,
    schemaValid: p === ABSTAIN ? null : true,
    detail: '',
    measure: { latencyMs: 1, promptTokens: 1, completionTokens: 1 },
  };
}

function endpoint(label: string, cases: CaseResult[]): EndpointResult {
  return {
    label,
    endpoint: 'http://x/v1',
    model: 'm',
    cases,
    metrics: aggregate(cases, { bootstrap: BOOT, cost: { kind: 'none' }, wallSeconds: 1 }),
  };
}

/** 100 call cases, the first `exact` of them right, then `abstain` abstention cases answered correctly. */
function calls(label: string, exact: number, abstain = 0): EndpointResult {
  const cases = Array.from({ length: 100 }, (_, i) => res(`c${i}`, 'get_x', 'get_x', i < exact));
  for (let i = 0; i < abstain; i++) cases.push(res(`a${i}`, ABSTAIN, ABSTAIN, true));
  return endpoint(label, cases);
}

describe('promotion gate', () => {
  it('refuses a clearly worse candidate', () => {
    const d = decideGate(calls('candidate', 60, 10), calls('production', 90, 10), CFG, BOOT);
    assert.equal(d.promote, false);
    assert.ok(d.exactMatchDelta!.high! < -CFG.margin, JSON.stringify(d.exactMatchDelta));
    assert.match(
      d.reasons[0]!,
      /^exact match: candidate 0\.636 vs production 0\.909, paired Δ −0\.273 \[95% CI −0\.\d{3}, −0\.\d{3}\] < −0\.020 margin: fail$/,
    );
    assert.match(d.reasons[1]!, /abstention F1: candidate 1\.000 vs production 1\.000, Δ \+0\.000 .*: pass/);
    assert.deepEqual([d.candidate, d.production], ['candidate', 'production']);
  });

  it('judges the CI low bound, not the point estimate', () => {
    // Δ = −0.01 is within the margin, but the two disagree on 21 of 100 cases: the interval reaches well below it.
    const prod = endpoint(
      'production',
      Array.from({ length: 100 }, (_, i) => res(`c${i}`, 'get_x', 'get_x', i < 50 || (i >= 60 && i < 71))),
    );
    const cand = endpoint(
      'candidate',
      Array.from({ length: 100 }, (_, i) => res(`c${i}`, 'get_x', 'get_x', i < 60)),
    );
    const d = decideGate(cand, prod, CFG, BOOT);
    assert.ok(Math.abs(d.exactMatchDelta!.value! + 0.01) < 1e-12);
    assert.ok(d.exactMatchDelta!.low! < -CFG.margin);
    assert.equal(d.promote, false);
  });

  it('promotes an equal candidate and a better one', () => {
    const equal = decideGate(calls('candidate', 80, 10), calls('production', 80, 10), CFG, BOOT);
    assert.equal(equal.promote, true);
    assert.deepEqual(equal.exactMatchDelta, { value: 0, low: 0, high: 0 });
    assert.equal(equal.abstentionF1Delta, 0);
    const better = decideGate(calls('candidate', 95, 10), calls('production', 80, 10), CFG, BOOT);
    assert.equal(better.promote, true);
    assert.ok(better.exactMatchDelta!.value! > 0);
    assert.match(better.reasons[0]!, /≥ −0\.020 margin: pass$/);
  });

  it('refuses an abstention-F1 regression at equal exact match', () => {
    // Same exact cases on both sides; on 20 cases both miss, but the candidate misses by abstaining.
    const prod = calls('production', 80, 20);
    const cand = endpoint(
      'candidate',
      prod.cases.map((c) => (c.exact ? c : res(c.id, c.targetTool, ABSTAIN, false))),
    );
    const d = decideGate(cand, prod, CFG, BOOT);
    assert.deepEqual(d.exactMatchDelta, { value: 0, low: 0, high: 0 });
    assert.ok(Math.abs(d.abstentionF1Delta! - (2 / 3 - 1)) < 1e-12);
    assert.equal(d.promote, false);
    assert.match(d.reasons[0]!, /: pass$/);
    assert.match(d.reasons[1]!, /abstention F1: candidate 0\.667 vs production 1\.000, Δ −0\.333 < .*tolerance: fail$/);
  });

  it('compares only the cases both were scored on, and passes F1 when it is undefined', () => {
    const cand = calls('candidate', 100);
    const prod = endpoint('production', [...cand.cases.slice(0, 50), res('only-prod', ABSTAIN, ABSTAIN, true)]);
    const d = decideGate(cand, prod, CFG, BOOT);
    assert.equal(d.promote, true);
    assert.equal(d.abstentionF1Delta, null);
    assert.match(d.reasons[1]!, /undefined for candidate and production on the 50 paired cases.*: pass$/);
  });

  it('first deploy: the candidate must reach minExactMatch', () => {
    const pass = decideGate(calls('candidate', 80), null, CFG, BOOT);
    assert.equal(pass.promote, true);
    assert.equal(pass.production, null);
    assert.equal(pass.exactMatchDelta, null);
    assert.match(pass.reasons[0]!, /candidate 0\.800 ≥ 0\.700 minimum.*: pass$/);
    const fail = decideGate(calls('candidate', 60), null, CFG, BOOT);
    assert.equal(fail.promote, false);
    assert.match(fail.reasons[0]!, /candidate 0\.600 < 0\.700 minimum.*: fail$/);
  });

  it('throws when the two were scored on different cases', () => {
    const prod = endpoint('production', [res('other', 'get_x', 'get_x', true)]);
    assert.throws(() => decideGate(calls('candidate', 80), prod, CFG, BOOT), /no common case ids/);
  });
});
