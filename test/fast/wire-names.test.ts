/**
 * Tool names MCP allows and OpenAI's API refuses (`uber.ride`): mapped for the wire and back in one place
 * (core/catalog/wire-names.ts), on the paths that talk to a frontier model: the gateway's escalation (here
 * against a stand-in for a frontier API), the openai teacher and `flywheel eval --wire-names openai`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromWire, toWire, WIRE_NAME_RE, wireNames } from '../../core/catalog/wire-names.js';
import { createEscalator } from '../../gateway/escalate.js';
import { startFrontierStandIn, type FrontierStandIn } from '../helpers/backend-stand-in.js';

const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });

describe('wire names', () => {
  it('keeps names the wire takes, replaces what it refuses, and maps every name back', () => {
    const long = `svc.${'x'.repeat(80)}`;
    const names = wireNames(['get_weather', 'uber.ride', 'uber_ride', 'a b', long]);
    assert.equal(names.toWire('get_weather'), 'get_weather');
    assert.equal(names.toWire('uber_ride'), 'uber_ride', 'a name the wire takes is never the one renamed');
    assert.equal(names.toWire('uber.ride'), 'uber_ride_2');
    assert.equal(names.toWire('a b'), 'a_b');
    assert.equal(names.toWire(long).length, 64);
    for (const n of ['get_weather', 'uber.ride', 'uber_ride', 'a b', long]) {
      assert.match(names.toWire(n), WIRE_NAME_RE);
      assert.equal(names.fromWire(names.toWire(n)), n);
    }
    assert.equal(names.fromWire('never_offered'), 'never_offered');
    assert.deepEqual(wireNames(['uber.ride', 'uber_ride']).toWire('uber.ride'), 'uber_ride_2', 'order-free');
  });

  it('renames the offered tools and the calls of the conversation, and maps the answer back', () => {
    const { body, names } = toWire({
      model: 'm',
      tools: [tool('uber.ride'), tool('get_weather')],
      messages: [
        { role: 'user', content: 'ride?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'maps.route', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'maps.route', content: '12 min' },
      ],
      tool_choice: { type: 'function', function: { name: 'uber.ride' } },
    });
    assert.equal(body.tool_choice.function.name, 'uber_ride');
    assert.equal(body.messages[2]!.name, 'maps_route');
    assert.deepEqual(
      body.tools.map((t) => t.function.name),
      ['uber_ride', 'get_weather'],
    );
    assert.equal(body.messages[1]!.tool_calls![0]!.function.name, 'maps_route');
    assert.equal(body.model, 'm');
    const answer = fromWire(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'uber_ride', arguments: '{"loc":"x"}' } }],
      },
      names,
    );
    assert.equal(answer.tool_calls[0]!.function.name, 'uber.ride');
    // A router-JSON answer in the text, as the router prompt asks for it, is mapped back too.
    const text = fromWire({ role: 'assistant', content: '{"tool":"uber_ride","arguments":{"loc":"x"}}' }, names);
    assert.deepEqual(JSON.parse(text.content), { tool: 'uber.ride', arguments: { loc: 'x' } });
    assert.equal(fromWire({ role: 'assistant', content: 'no tool fits' }, names).content, 'no tool fits');
    assert.equal(answer.tool_calls[0]!.function.arguments, '{"loc":"x"}');
  });
});

describe('escalation with tool names a frontier API refuses', () => {
  let frontier: FrontierStandIn;
  before(async () => {
    // Stands in for an OpenAI-compatible frontier API: it answers with a call to the first tool it was offered.
    frontier = await startFrontierStandIn('sk-test', (body) => ({
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: (body.tools as Array<{ function: { name: string } }>)[0]!.function.name, arguments: '{}' },
        },
      ],
    }));
  });
  after(async () => {
    await frontier?.close();
  });

  it("sends wire names and answers the agent with its own tool's name", async () => {
    const escalator = createEscalator(
      { baseUrl: frontier.url, model: 'big', apiKeyEnv: 'K', minConfidence: 0.5, on: ['invalid'] },
      5000,
      { K: 'sk-test' },
    );
    const r = await escalator.ask({
      messages: [{ role: 'user', content: 'get me a ride to the airport' }],
      tools: [tool('uber.ride'), tool('get_weather')],
    });
    if (!r.ok) throw new Error(r.error);
    const sent = frontier.requests.at(-1)! as unknown as { tools: Array<{ function: { name: string } }> };
    assert.deepEqual(
      sent.tools.map((t) => t.function.name),
      ['uber_ride', 'get_weather'],
    );
    assert.equal(r.response.choices[0]!.message.tool_calls![0]!.function?.name, 'uber.ride');
  });
});
