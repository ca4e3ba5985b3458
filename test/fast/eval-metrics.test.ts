import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completionText } from '../../core/dataset/render.js';
import type { Target } from '../../core/dataset/types.js';
import { bootstrapInterval, estimate } from '../../core/eval/bootstrap.js';
import { abstentionBalance, aggregate, formatBalance } from '../../core/eval/metrics.js';
import { mergeEndpointResults } from '../../core/eval/merge.js';
import { parseAnswer, targetFromCompletion } from '../../core/router/answer.js';
import { scoreCase } from '../../core/eval/score.js';
import {
  ABSTAIN,
  ERROR_TYPES,
  INVALID,
  type CaseResult,
  type CostModel,
  type EvalCase,
  type Prediction,
} from '../../core/eval/types.js';

const TOOLS: EvalCase['tools'] = [
  {
    type: 'function',
    function: {
      name: 'get_customer',
      description: 'Look up a customer',
      parameters: {
        type: 'object',
        properties: {
          customer_id: { type: 'string' },
          include_orders: { type: 'boolean' },
          limit: { type: 'integer' },
        },
        required: ['customer_id'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_invoice',
      description: 'An invoice',
      parameters: { type: 'object', properties: { invoice_id: { type: 'string' } }, required: ['invoice_id'] },
    },
  },
];
const CALL: Target = { tool: 'get_customer', arguments: { customer_id: 'C1', include_orders: true } };
const NO_CALL: Target = { tool: null, verdict: 'abstain', code: 'no_tool', reason: 'nothing fits' };
const MEASURE = { latencyMs: 100, promptTokens: 50, completionTokens: 10 };

function evalCase(target: Target): EvalCase {
  return { id: 'c1', domain: 'crm', messages: [{ role: 'user', content: 'hi' }], tools: TOOLS, target };
}
const call = (tool: string, args: unknown, extraCalls = 0): Prediction => ({
  kind: 'call',
  tool,
  arguments: args,
  extraCalls,
});
const noCall = (verdict: string | null, code: string | null): Prediction => ({ kind: 'no-call', verdict, code });

// The parse's edge cases are data (test/fixtures/router-answers.jsonl, test/fast/router-answer.test.ts); here what
// scoring and BFCL's checker read besides the decision.
describe('parseAnswer for scoring', () => {
  it('keeps every native call and its arguments as sent, counting the extra ones', () => {
    const p = parseAnswer({
      content: null,
      tool_calls: [
        { id: 'a', function: { name: 'get_customer', arguments: '{"customer_id":"C1"}' } },
        { function: { name: 'get_invoice', arguments: '{}' } },
      ],
    });
    assert.deepEqual(p, {
      kind: 'call',
      tool: 'get_customer',
      arguments: { customer_id: 'C1' },
      extraCalls: 1,
      rawArguments: '{"customer_id":"C1"}',
      callId: 'a',
      others: [{ tool: 'get_invoice', arguments: {}, rawArguments: '{}' }],
    });
  });
  it('reads what render writes, in both formats', () => {
    assert.deepEqual(parseAnswer({ content: completionText(CALL, 'hermes') }), call('get_customer', CALL.arguments));
    assert.deepEqual(
      parseAnswer({ content: completionText(CALL, 'router-json') }),
      call('get_customer', CALL.arguments),
    );
    assert.deepEqual(parseAnswer({ content: completionText(NO_CALL, 'router-json') }), noCall('abstain', 'no_tool'));
  });
});

describe('targetFromCompletion', () => {
  it('round-trips both render formats (a no-call renders without its reason)', () => {
    for (const format of ['router-json', 'hermes'] as const) {
      assert.deepEqual(targetFromCompletion(completionText(CALL, format)), CALL);
      assert.deepEqual(targetFromCompletion(completionText(NO_CALL, format)), { ...NO_CALL, reason: '' });
    }
  });
  it('router JSON names the tool before its arguments, and a no-call carries verdict and code only', () => {
    assert.equal(
      completionText({ tool: 'get_customer', arguments: { limit: 2, customer_id: 'C1' } }, 'router-json'),
      '{"tool":"get_customer","arguments":{"customer_id":"C1","limit":2}}',
    );
    assert.equal(completionText(NO_CALL, 'router-json'), '{"tool":null,"verdict":"abstain","code":"no_tool"}');
  });
  it('reads completions rendered before render v2 (arguments first, with a reason)', () => {
    assert.deepEqual(targetFromCompletion('{"arguments":{"customer_id":"C1"},"tool":"get_customer"}'), {
      tool: 'get_customer',
      arguments: { customer_id: 'C1' },
    });
    assert.deepEqual(
      targetFromCompletion('{"code":"no_tool","reason":"nothing fits","tool":null,"verdict":"abstain"}'),
      NO_CALL,
    );
  });
  it('throws on text that is not a target', () => {
    assert.throws(() => targetFromCompletion('hello'), /not a valid target: not JSON/);
    assert.throws(
      () => targetFromCompletion('{"tool":null,"verdict":"shrug","code":"x","reason":"y"}'),
      /verdict "shrug"/,
    );
    assert.throws(
      () => targetFromCompletion('{"tool":null,"verdict":"abstain"}'),
      /code undefined is not a code of abstain/,
    );
    assert.throws(
      () => targetFromCompletion('{"tool":null,"verdict":"abstain","code":"no_tool","reason":3}'),
      /reason must be a string/,
    );
  });
});

describe('scoreCase outcomes', () => {
  const outcomes: Array<[string, Target, Prediction, string, RegExp]> = [
    [
      'correct call (key order irrelevant)',
      CALL,
      call('get_customer', { include_orders: true, customer_id: 'C1' }),
      'correct',
      /^$/,
    ],
    ['correct no-call', NO_CALL, noCall('abstain', 'no_tool'), 'correct', /^$/],
    ['invalid output', CALL, { kind: 'invalid', raw: 'x', problem: 'not JSON' }, 'invalid_output', /not JSON/],
    ['non-object arguments', CALL, call('get_customer', 'C1'), 'invalid_output', /not an object/],
    ['two calls, first one right', CALL, call('get_customer', CALL.arguments, 1), 'spurious_call', /2 calls/],
    [
      'call to a tool not offered',
      NO_CALL,
      call('delete_customer', {}),
      'spurious_call',
      /delete_customer, which was not offered/,
    ],
    [
      'missed abstention',
      NO_CALL,
      call('get_invoice', { invoice_id: 'I1' }),
      'missed_abstention',
      /called get_invoice, expected abstain\/no_tool/,
    ],
    ['spurious abstention', CALL, noCall('abstain', 'no_tool'), 'spurious_abstention', /expected get_customer/],
    [
      'wrong verdict',
      NO_CALL,
      noCall('violation', 'policy'),
      'wrong_verdict',
      /expected abstain\/no_tool, got violation\/policy/,
    ],
    ['wrong code', NO_CALL, noCall('abstain', 'missing_scope'), 'wrong_verdict', /got abstain\/missing_scope/],
    [
      'wrong tool',
      CALL,
      call('get_invoice', { invoice_id: 'C1' }),
      'wrong_tool',
      /called get_invoice, expected get_customer/,
    ],
    [
      'missing required',
      CALL,
      call('get_customer', { include_orders: true }),
      'missing_required',
      /missing required customer_id/,
    ],
    [
      'unexpected argument',
      CALL,
      call('get_customer', { customer_id: 'C1', include_orders: true, verbose: 1 }),
      'unexpected_argument',
      /unexpected argument verbose/,
    ],
    [
      'type error',
      CALL,
      call('get_customer', { customer_id: 'C1', include_orders: 'yes' }),
      'type_error',
      /include_orders should be boolean, got string/,
    ],
    [
      'integer type',
      CALL,
      call('get_customer', { customer_id: 'C1', include_orders: true, limit: 1.5 }),
      'type_error',
      /limit should be integer, got number/,
    ],
    [
      'value error',
      CALL,
      call('get_customer', { customer_id: 'C2', include_orders: true }),
      'value_error',
      /customer_id: got "C2", expected "C1"/,
    ],
    [
      'value error on an omitted optional',
      CALL,
      call('get_customer', { customer_id: 'C1' }),
      'value_error',
      /include_orders: got nothing, expected true/,
    ],
  ];
  for (const [name, target, prediction, outcome, detail] of outcomes) {
    it(name, () => {
      const r = scoreCase(evalCase(target), prediction, MEASURE);
      assert.equal(r.outcome, outcome);
      assert.equal(r.exact, outcome === 'correct');
      assert.match(r.detail, detail);
    });
  }
  it('covers every error type', () => {
    assert.deepEqual(new Set(outcomes.map(([, , , o]) => o).filter((o) => o !== 'correct')), new Set(ERROR_TYPES));
  });
  it('a failed request is invalid output whatever the prediction says', () => {
    const r = scoreCase(evalCase(CALL), call('get_customer', CALL.arguments), { ...MEASURE, error: 'timeout' });
    assert.equal(r.outcome, 'invalid_output');
    assert.equal(r.predictedTool, INVALID);
    assert.equal(r.schemaValid, null);
    assert.match(r.detail, /request failed: timeout/);
  });
  it('labels, tool match and schema validity', () => {
    const wrongValue = scoreCase(
      evalCase(CALL),
      call('get_customer', { customer_id: 'C2', include_orders: true }),
      MEASURE,
    );
    assert.deepEqual(
      [wrongValue.targetTool, wrongValue.predictedTool, wrongValue.toolMatch, wrongValue.schemaValid],
      ['get_customer', 'get_customer', true, true],
    );
    const typeErr = scoreCase(evalCase(CALL), call('get_customer', { customer_id: 7 }), MEASURE);
    assert.equal(typeErr.schemaValid, false);
    const notOffered = scoreCase(evalCase(CALL), call('drop_table', {}), MEASURE);
    assert.deepEqual([notOffered.schemaValid, notOffered.toolMatch], [false, false]);
    const abstain = scoreCase(evalCase(NO_CALL), noCall('abstain', 'other'), MEASURE);
    assert.deepEqual(
      [abstain.targetTool, abstain.predictedTool, abstain.toolMatch, abstain.schemaValid],
      [ABSTAIN, ABSTAIN, true, null],
    );
    assert.deepEqual([abstain.targetAbstains, abstain.predictedAbstains], [true, true]);
  });
});

interface Spec {
  t: string;
  p: string;
  exact?: boolean;
  schemaValid?: boolean | null;
  domain?: string | null;
  latency?: number;
  outcome?: CaseResult['outcome'];
}
let nextId = 0;
function res(s: Spec): CaseResult {
  const exact = s.exact ?? s.t === s.p;
  return {
    id: `r${nextId++}`,
    domain: s.domain === undefined ? 'crm' : s.domain,
    targetTool: s.t,
    predictedTool: s.p,
    outcome: s.outcome ?? (exact ? 'correct' : 'value_error'),
    exact,
    toolMatch: s.t === s.p,
    targetAbstains: s.t === ABSTAIN,
    predictedAbstains: s.p === ABSTAIN,
    schemaValid: s.schemaValid !== undefined ? s.schemaValid : s.p === ABSTAIN || s.p === INVALID ? null : true,
    detail: '',
    measure: { latencyMs: s.latency ?? 10, promptTokens: 100, completionTokens: 20 },
  };
}
const BOOT = { resamples: 400, seed: 7 };
const NONE: CostModel = { kind: 'none' };
const agg = (rs: CaseResult[], cost: CostModel = NONE, wallSeconds = 10) =>
  aggregate(rs, { bootstrap: BOOT, cost, wallSeconds });
const rep = (n: number, s: Spec) => Array.from({ length: n }, () => res(s));

describe('aggregate', () => {
  it('exact match and tool accuracy, with intervals around the value', () => {
    const m = agg([
      res({ t: 'a', p: 'a' }),
      res({ t: 'a', p: 'a', exact: false }),
      res({ t: 'b', p: 'a' }),
      res({ t: 'b', p: 'b' }),
    ]);
    assert.equal(m.n, 4);
    assert.equal(m.exactMatch.value, 0.5);
    assert.equal(m.toolAccuracy.value, 0.75);
    for (const e of [m.exactMatch, m.toolAccuracy])
      assert.ok(e.low! <= e.value! && e.value! <= e.high!, JSON.stringify(e));
  });

  it('abstention: no target abstentions → recall null, F1 0 when the model abstains anyway', () => {
    const m = agg([res({ t: 'a', p: ABSTAIN }), res({ t: 'a', p: 'a' })]);
    assert.deepEqual([m.abstention.precision.value, m.abstention.recall.value, m.abstention.f1.value], [0, null, 0]);
    assert.deepEqual([m.abstention.support, m.abstention.predicted], [0, 1]);
  });
  it('abstention: no predicted abstentions → precision null, F1 0', () => {
    const m = agg([res({ t: ABSTAIN, p: 'a' }), res({ t: 'a', p: 'a' })]);
    assert.deepEqual([m.abstention.precision.value, m.abstention.recall.value, m.abstention.f1.value], [null, 0, 0]);
  });
  it('abstention: none anywhere → all null', () => {
    const m = agg([res({ t: 'a', p: 'a' })]);
    assert.deepEqual(m.abstention.f1, { value: null, low: null, high: null });
    assert.equal(m.abstention.precision.value, null);
  });
  it('abstention: all correct → 1; P + R = 0 → 0', () => {
    const all = agg([res({ t: ABSTAIN, p: ABSTAIN }), res({ t: 'a', p: 'a' })]);
    assert.deepEqual([all.abstention.precision.value, all.abstention.recall.value, all.abstention.f1.value], [1, 1, 1]);
    const zero = agg([res({ t: ABSTAIN, p: 'a' }), res({ t: 'a', p: ABSTAIN })]);
    assert.deepEqual(
      [zero.abstention.precision.value, zero.abstention.recall.value, zero.abstention.f1.value],
      [0, 0, 0],
    );
  });
  it('abstention: P = 2/3, R = 1/2', () => {
    const m = agg([
      ...rep(2, { t: ABSTAIN, p: ABSTAIN }),
      res({ t: 'a', p: ABSTAIN }),
      ...rep(2, { t: ABSTAIN, p: 'a' }),
    ]);
    assert.equal(m.abstention.precision.value, 2 / 3);
    assert.equal(m.abstention.recall.value, 0.5);
    assert.ok(Math.abs(m.abstention.f1.value! - 4 / 7) < 1e-12);
  });

  it('schema-valid rate counts only calls', () => {
    const m = agg([
      res({ t: 'a', p: 'a' }),
      res({ t: 'a', p: 'a', schemaValid: false }),
      res({ t: 'a', p: 'b', schemaValid: false }),
      res({ t: 'a', p: ABSTAIN }),
      res({ t: 'a', p: INVALID }),
    ]);
    assert.equal(m.schemaValidRate.value, 1 / 3);
    assert.equal(agg([res({ t: 'a', p: ABSTAIN })]).schemaValidRate.value, null);
  });

  it('counts every error type, zeros included', () => {
    const m = agg([
      res({ t: 'a', p: 'b', outcome: 'wrong_tool' }),
      res({ t: 'a', p: 'b', outcome: 'wrong_tool' }),
      res({ t: 'a', p: INVALID, outcome: 'invalid_output' }),
      res({ t: 'a', p: 'a' }),
    ]);
    assert.deepEqual(Object.keys(m.errors), [...ERROR_TYPES]);
    assert.equal(m.errors.wrong_tool, 2);
    assert.equal(m.errors.invalid_output, 1);
    assert.equal(m.errors.value_error, 0);
  });

  it('confusion matrix: tools sorted, then ABSTAIN, then INVALID', () => {
    const m = agg([
      res({ t: 'b', p: 'b' }),
      res({ t: 'b', p: 'b' }),
      res({ t: 'b', p: 'a' }),
      res({ t: ABSTAIN, p: 'c' }),
      res({ t: 'a', p: INVALID }),
      res({ t: ABSTAIN, p: ABSTAIN }),
    ]);
    assert.deepEqual(m.confusion.labels, ['a', 'b', 'c', ABSTAIN, INVALID]);
    assert.deepEqual(m.confusion.matrix, [
      [0, 0, 0, 0, 1],
      [1, 2, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 1, 1, 0],
      [0, 0, 0, 0, 0],
    ]);
    assert.deepEqual(agg([res({ t: 'a', p: 'a' })]).confusion.labels, ['a', ABSTAIN]);
  });

  it('per-tool rows group ABSTAIN on its own; per-domain rows call a missing domain unknown', () => {
    const m = agg([
      res({ t: 'get_x', p: 'get_x', domain: 'crm' }),
      res({ t: 'get_x', p: 'get_x', exact: false, domain: 'erp' }),
      res({ t: 'get_x', p: 'get_y', domain: null }),
      res({ t: ABSTAIN, p: ABSTAIN, domain: 'crm' }),
    ]);
    assert.deepEqual(m.perTool, [
      { key: ABSTAIN, n: 1, exact: 1, toolAccuracy: 1 },
      { key: 'get_x', n: 3, exact: 1 / 3, toolAccuracy: 2 / 3 },
    ]);
    assert.deepEqual(m.perDomain, [
      { key: 'crm', n: 2, exact: 1, toolAccuracy: 1 },
      { key: 'erp', n: 1, exact: 0, toolAccuracy: 1 },
      { key: 'unknown', n: 1, exact: 0, toolAccuracy: 0 },
    ]);
  });

  it('latency percentiles by nearest rank', () => {
    const m = agg(Array.from({ length: 20 }, (_, i) => res({ t: 'a', p: 'a', latency: 20 - i })));
    assert.deepEqual(m.latencyMs, { p50: 10, p95: 19, mean: 10.5 });
    assert.deepEqual(agg([]).latencyMs, { p50: null, p95: null, mean: null });
  });

  it('tokens and cost per 1K decisions from token prices', () => {
    const m = agg(rep(4, { t: 'a', p: 'a' }), { kind: 'tokens', inputPerMillion: 2.5, outputPerMillion: 10 });
    assert.deepEqual(m.tokens, { prompt: 400, completion: 80, perDecision: 120 });
    // per decision: 100 × 2.5e-6 + 20 × 10e-6 = 0.00045 → 0.45 per 1K
    assert.ok(Math.abs(m.costPer1K.dollars! - 0.45) < 1e-12);
    assert.equal(m.costPer1K.basis, '$2.50/1M in, $10/1M out');
  });

  it('cost per 1K decisions from a GPU-hour at the measured throughput', () => {
    const m = agg(rep(32, { t: 'a', p: 'a' }), { kind: 'gpu-hour', dollarsPerHour: 2.5 }, 10);
    assert.equal(m.throughputPerSecond, 3.2);
    assert.ok(Math.abs(m.costPer1K.dollars! - (2.5 / 3600 / 3.2) * 1000) < 1e-12);
    assert.equal(m.costPer1K.basis, '$2.50/GPU-hour at 3.2 decisions/s measured');
    assert.equal(agg(rep(2, { t: 'a', p: 'a' }), { kind: 'gpu-hour', dollarsPerHour: 2.5 }, 0).costPer1K.dollars, null);
    assert.deepEqual(agg(rep(2, { t: 'a', p: 'a' })).costPer1K, { dollars: null, basis: 'no cost model' });
  });
});

describe('bootstrap', () => {
  const accuracy = (hits: boolean[]) => (idx: number[]) => idx.filter((i) => hits[i]).length / idx.length;
  const sample = (n: number) => Array.from({ length: n }, (_, i) => i % 10 < 7);

  it('narrows as n grows at the same accuracy', () => {
    const small = bootstrapInterval(20, accuracy(sample(20)), BOOT);
    const large = bootstrapInterval(500, accuracy(sample(500)), BOOT);
    assert.ok(
      large.high! - large.low! < (small.high! - small.low!) / 2,
      `${JSON.stringify(small)} vs ${JSON.stringify(large)}`,
    );
  });
  it('is reproducible from the seed, and the seed matters', () => {
    const s = accuracy(sample(50));
    assert.deepEqual(bootstrapInterval(50, s, BOOT), bootstrapInterval(50, s, BOOT));
    const others = [1, 2, 3, 4, 5].map((seed) => bootstrapInterval(50, s, { ...BOOT, seed }));
    assert.ok(
      others.some(
        (o) => o.low !== bootstrapInterval(50, s, BOOT).low || o.high !== bootstrapInterval(50, s, BOOT).high,
      ),
    );
  });
  it('contains the point estimate', () => {
    const e = estimate(60, accuracy(sample(60)), BOOT);
    assert.equal(e.value, 0.7);
    assert.ok(e.low! < 0.7 && 0.7 < e.high!, JSON.stringify(e));
  });
  it('skips undefined resamples; no cases or never defined → nulls', () => {
    assert.deepEqual(
      bootstrapInterval(0, () => 1, BOOT),
      { low: null, high: null },
    );
    assert.deepEqual(
      bootstrapInterval(5, () => null, BOOT),
      { low: null, high: null },
    );
    // Defined only when case 0 is drawn: still an interval from the resamples that drew it.
    assert.deepEqual(
      bootstrapInterval(5, (idx) => (idx.includes(0) ? 1 : null), BOOT),
      { low: 1, high: 1 },
    );
  });
});

describe('mergeEndpointResults (an evaluation scored in chunks)', () => {
  it('is the unchunked evaluation of the same answers: rates, intervals, confusion; device time adds up', () => {
    const cases = [
      ...rep(5, { t: 'a', p: 'a' }),
      ...rep(3, { t: 'b', p: 'a' }),
      ...rep(4, { t: ABSTAIN, p: ABSTAIN }),
      ...rep(2, { t: ABSTAIN, p: 'b' }),
      res({ t: 'a', p: INVALID }),
    ];
    const cost: CostModel = { kind: 'gpu-hour', dollarsPerHour: 2.5 };
    const whole = aggregate(cases, { bootstrap: BOOT, cost, wallSeconds: 30 });
    const chunk = (from: number, to: number, seconds: number) => [
      {
        label: 'candidate',
        endpoint: 'http://c',
        model: 'adp-x',
        cases: cases.slice(from, to),
        metrics: aggregate(cases.slice(from, to), { bootstrap: BOOT, cost, wallSeconds: seconds }),
      },
      {
        label: 'production',
        endpoint: 'http://p',
        model: 'router@v1',
        cases: cases.slice(from, to),
        metrics: aggregate(cases.slice(from, to), { bootstrap: BOOT, cost, wallSeconds: seconds }),
      },
    ];
    const merged = mergeEndpointResults([chunk(0, 6, 12), chunk(6, 12, 12), chunk(12, cases.length, 6)], {
      bootstrap: BOOT,
      costOf: () => cost,
    });
    assert.deepEqual(
      merged.map((r) => r.label),
      ['candidate', 'production'],
    );
    assert.deepEqual(
      merged[0]!.cases.map((c) => c.id),
      cases.map((c) => c.id),
    );
    assert.deepEqual(merged[0]!.metrics, whole);
    assert.throws(
      () =>
        mergeEndpointResults([chunk(0, 6, 1), chunk(6, 12, 1).slice(0, 1)], { bootstrap: BOOT, costOf: () => cost }),
      /chunk 1 of the evaluation has no production results/,
    );
  });
});

describe('abstentionBalance (which way a router errs on calls and no-calls)', () => {
  const r = (targetAbstains: boolean, predictedAbstains: boolean) => ({ targetAbstains, predictedAbstains });
  it('counts calls answered with no call and no-calls answered with a call, each over its own kind', () => {
    const balance = abstentionBalance([r(false, false), r(false, true), r(false, true), r(true, true), r(true, false)]);
    assert.deepEqual(balance, { calls: 3, callsAbstained: 2, noCalls: 2, noCallsCalled: 1 });
    assert.equal(formatBalance(balance), '2/3 · 1/2');
  });
  it('an empty set, or one of a single kind, says so rather than dividing by zero', () => {
    assert.deepEqual(abstentionBalance([]), { calls: 0, callsAbstained: 0, noCalls: 0, noCallsCalled: 0 });
    assert.equal(formatBalance(abstentionBalance([])), '—');
    assert.equal(formatBalance(abstentionBalance([r(false, false)])), '0/1 · —');
  });
});
