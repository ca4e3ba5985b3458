/**
 * Scoring takes the endpoint's answers through an `Ask`, so it runs without a server: here a function answers as
 * a router would (the HTTP client, core/eval/client.ts, is what the evaluate stage and `flywheel eval` hand it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ask, ChatAnswer, EndpointSpec } from '../../core/eval/client.js';
import { scoreEndpoint } from '../../core/eval/evaluate.js';
import type { EvalCase } from '../../core/eval/types.js';

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

const ask1 = (id: string, request: string, target: EvalCase['target']): EvalCase => ({
  id,
  domain: 'weather',
  messages: [{ role: 'user', content: request }],
  tools,
  target,
});

const CASES = [
  ask1('right', 'weather in Lisbon?', { tool: 'get_weather', arguments: { city: 'Lisbon' } }),
  ask1('wrong-city', 'weather in Porto?', { tool: 'get_weather', arguments: { city: 'Porto' } }),
  ask1('not-offered', 'book me a taxi', { tool: null, verdict: 'abstain', code: 'no_tool', reason: 'no taxi tool' }),
  ask1('fails', 'weather in Faro?', { tool: 'get_weather', arguments: { city: 'Faro' } }),
];

const answer = (content: string): ChatAnswer => ({
  message: { role: 'assistant', content },
  promptTokens: 10,
  completionTokens: 5,
  latencyMs: 1,
});

/** A router that answers Lisbon for every weather question, calls a tool nobody offered for the taxi, and fails on Faro. */
const router: Ask = async (messages) => {
  const text = String(messages[0]!.content);
  if (text.includes('Faro')) throw new Error('connection reset');
  if (text.includes('taxi')) return answer('{"tool":"book_taxi","arguments":{"to":"airport"}}');
  return answer('{"tool":"get_weather","arguments":{"city":"Lisbon"}}');
};

const spec: EndpointSpec = { label: 'router', baseUrl: 'http://unused', model: 'm', cost: { kind: 'none' } };
const opts = { concurrency: 2, timeoutMs: 1000, maxRetries: 0, bootstrap: { resamples: 50, seed: 1 } };

describe('scoring an endpoint through an Ask', () => {
  it('scores each answer after the contract checks, keeps a failed request as invalid', async () => {
    const result = await scoreEndpoint(CASES, spec, router, opts);
    const by = Object.fromEntries(result.cases.map((c) => [c.id, c]));
    assert.equal(by.right!.exact, true);
    assert.equal(by['wrong-city']!.exact, false);
    assert.equal(by['wrong-city']!.toolMatch, true);
    // book_taxi was not offered: the checks answer the no-call in its place, and mark it for escalation.
    assert.equal(by['not-offered']!.predictedAbstains, true);
    assert.equal(by['not-offered']!.rewritten, true);
    assert.equal(by.fails!.predictedTool, 'INVALID');
    assert.match(by.fails!.measure.error ?? '', /connection reset/);
    assert.equal(result.metrics.n, 4);
    assert.equal(result.label, 'router');
  });

  it('an endpoint that fails every request is an error naming it, not a score of zero', async () => {
    const down: Ask = () => Promise.reject(new Error('ECONNREFUSED'));
    await assert.rejects(
      scoreEndpoint(CASES, spec, down, opts),
      /router \(http:\/\/unused, model m\): every request failed.*ECONNREFUSED/,
    );
  });
});
