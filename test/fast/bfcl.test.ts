/**
 * BFCL's pieces that need no judge process: the one conversion to BFCL's call form (core/eval/bfcl/calls.ts),
 * the category check, the seeded samples and halves, and the evaluate.bfcl config key. BFCL's checker itself is
 * exercised in test/integration/bfcl-judge.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../core/config/load.js';
import { toBfclCalls } from '../../core/eval/bfcl/calls.js';
import { parseAnswer } from '../../core/router/answer.js';
import { parseCategories, type BfclQuestion } from '../../core/eval/bfcl/data.js';
import { halves, sampleQuestions } from '../../core/eval/bfcl/sample.js';

const names = new Map([
  ['get_weather__2', 'get_weather'],
  ['uber.ride', 'uber.ride'],
]);

describe('BFCL call form', () => {
  it('a call is [{name: arguments JSON}] under BFCL’s own name; parallel calls each get an entry', () => {
    assert.deepEqual(
      toBfclCalls({ kind: 'call', tool: 'get_weather__2', arguments: { city: 'Paris' }, extraCalls: 0 }, names),
      [{ get_weather: '{"city":"Paris"}' }],
    );
    assert.deepEqual(
      toBfclCalls(
        {
          kind: 'call',
          tool: 'uber.ride',
          arguments: { loc: 'A' },
          extraCalls: 1,
          others: [{ tool: 'get_weather__2', arguments: {} }],
        },
        names,
      ),
      [{ 'uber.ride': '{"loc":"A"}' }, { get_weather: '{}' }],
    );
  });
  it('a native call keeps its arguments as sent, so BFCL decodes 5.0 as a float and "" as no JSON', () => {
    const p = parseAnswer({
      tool_calls: [
        { function: { name: 'uber.ride', arguments: '{"time": 5.0}' } },
        { function: { name: 'get_weather__2', arguments: '' } },
      ],
    });
    assert.deepEqual(toBfclCalls(p, names), [{ 'uber.ride': '{"time": 5.0}' }, { get_weather: '' }]);
  });
  it('an abstention is no call; output that is no decision stays text BFCL cannot decode', () => {
    assert.deepEqual(toBfclCalls({ kind: 'no-call', verdict: 'abstain', code: 'no_tool' }, names), []);
    assert.equal(toBfclCalls({ kind: 'invalid', raw: 'Sure! Here', problem: 'not JSON' }, names), 'Sure! Here');
  });
});

describe('BFCL categories, samples and config', () => {
  it('names the categories it scores and refuses the rest with the reason', () => {
    assert.deepEqual(parseCategories('live_multiple,live_multiple'), ['live_multiple']);
    assert.throws(() => parseCategories('parallel_multiple'), /several calls in one answer/);
    assert.throws(() => parseCategories('simple_java'), /Java or JavaScript/);
    assert.throws(() => parseCategories(''), /name at least one category/);
  });
  it('samples and halves are seeded, disjoint and in BFCL order', () => {
    const qs = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, question: [], function: [] }) as BfclQuestion);
    const a = sampleQuestions(qs, 10, 's');
    assert.deepEqual(a, sampleQuestions(qs, 10, 's'));
    assert.notDeepEqual(a, sampleQuestions(qs, 10, 't'));
    assert.deepEqual(
      a.map((q) => q.id),
      [...a].sort((x, y) => Number(x.id.slice(1)) - Number(y.id.slice(1))).map((q) => q.id),
    );
    const { dev, report } = halves(qs, 's');
    assert.equal(dev.length, 20);
    assert.equal(report.length, 20);
    assert.equal(new Set([...dev, ...report].map((q) => q.id)).size, 40);
  });
  it('evaluate.bfcl takes known categories and is not combined with chunkSize', () => {
    const problems = (evaluate: unknown) => {
      try {
        parseConfig(
          { version: 1, name: 'p', servers: [{ name: 'a', tools: 'a.json' }], dataset: {}, train: {}, evaluate },
          'p.yaml',
        );
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    assert.deepEqual(problems({ bfcl: { categories: ['live_simple'], limit: 5 } }), []);
    assert.equal(problems({ bfcl: { categories: ['live_parallel'] } }).length, 1);
    assert.match(
      problems({ bfcl: { categories: ['live_simple'] }, chunkSize: 10 })[0]!,
      /cannot be combined with evaluate.chunkSize/,
    );
  });
});
