/**
 * The flywheel's cost per 1K decisions (core/flywheel/cost.ts): the router's serving time at a GPU-hour price plus
 * the frontier's token price for each escalated request, against sending every request to the frontier.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PRICES, estimateTokens, turnCost, type Decision } from '../../core/flywheel/cost.js';

const decision = (escalated: boolean): Decision => ({
  escalated,
  frontierTokens: { prompt: 1000, completion: 100 },
});

describe('flywheel cost', () => {
  it('prices the router by the hour at its throughput and each escalation by its tokens', () => {
    // 10 decisions/s: 1,000 decisions take 100 s of a $2.50 GPU-hour.
    const none = turnCost([decision(false), decision(false)], 10);
    assert.ok(Math.abs(none.router - (100 / 3600) * 2.5) < 1e-12);
    assert.equal(none.escalations, 0);
    assert.equal(none.escalationRate, 0);
    // One request: 1,000 input tokens at $3/M and 100 output at $15/M is $0.0045; every request: $4.50 per 1K.
    assert.ok(Math.abs(none.allFrontierPer1k - 4.5) < 1e-9);
    const half = turnCost([decision(true), decision(false)], 10);
    assert.equal(half.escalationRate, 0.5);
    assert.ok(Math.abs(half.escalations - 2.25) < 1e-9, 'half the requests escalated: half the frontier bill');
    assert.ok(Math.abs(half.per1k - (half.router + 2.25)) < 1e-12);
  });

  it('refuses what cannot be priced', () => {
    assert.throws(() => turnCost([], 10), /no decisions/);
    assert.throws(() => turnCost([decision(true)], 0), /decisions per second/);
  });

  it('estimates tokens as a quarter of the characters, at least one', () => {
    assert.equal(estimateTokens('abcdefgh'), 2);
    assert.equal(estimateTokens(''), 1);
    assert.equal(estimateTokens({ a: 1 }), 2);
    assert.deepEqual(DEFAULT_PRICES, { gpuHour: 2.5, inputPerMillion: 3, outputPerMillion: 15 });
  });
});
