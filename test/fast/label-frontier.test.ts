/**
 * The frontier stand-in the flywheel-turns benchmark escalates to (scripts/lib/label-frontier.ts): no frontier model
 * can be reached here, so an OpenAI-compatible endpoint answers each request from the label held for its text,
 * wrong at a seeded rate. Written before the stand-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLabelFrontier, type LabelFrontier } from '../../scripts/lib/label-frontier.js';

const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });

async function ask(url: string, text: string, tools: string[]) {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer stand-in' },
    body: JSON.stringify({
      model: 'frontier',
      messages: [
        { role: 'system', content: 'You route requests.' },
        { role: 'user', content: text },
      ],
      tools: tools.map(tool),
    }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as {
    choices: Array<{
      message: { content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
      finish_reason: string;
    }>;
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
}

describe('label frontier stand-in', () => {
  let exact: LabelFrontier;
  let wrong: LabelFrontier;
  const labels = new Map([
    ['What time is it in Lisbon?', { tool: 'time.get_current', arguments: { timezone: 'Europe/Lisbon' } }],
    ['Tell me a joke', { tool: null, arguments: {} }],
  ]);
  before(async () => {
    exact = await startLabelFrontier({ labels, errorRate: 0, seed: 's' });
    wrong = await startLabelFrontier({ labels, errorRate: 1, seed: 's' });
  });
  after(async () => {
    await exact.close();
    await wrong.close();
  });

  it("answers a labelled request with its label's call, under the name the tool was offered as", async () => {
    // The gateway sends wire names to a frontier: `time.get_current` goes as `time_get_current`.
    const r = await ask(exact.url, '  what time is it in LISBON? ', ['time_convert', 'time_get_current']);
    const call = r.choices[0]!.message.tool_calls![0]!.function;
    assert.equal(call.name, 'time_get_current');
    assert.deepEqual(JSON.parse(call.arguments), { timezone: 'Europe/Lisbon' });
    assert.equal(r.choices[0]!.finish_reason, 'tool_calls');
    assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
    assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  });

  it('answers a no-call label with text and no tool call', async () => {
    const r = await ask(exact.url, 'Tell me a joke', ['time_get_current']);
    assert.equal(r.choices[0]!.message.tool_calls, undefined);
    assert.ok(r.choices[0]!.message.content);
  });

  it('at error rate 1 every answer is wrong: another tool, or a call where none was wanted', async () => {
    const call = (await ask(wrong.url, 'What time is it in Lisbon?', ['time_get_current', 'time_convert'])).choices[0]!
      .message.tool_calls![0]!.function;
    assert.equal(call.name, 'time_convert');
    const joke = (await ask(wrong.url, 'Tell me a joke', ['time_get_current'])).choices[0]!.message;
    assert.equal(joke.tool_calls?.[0]?.function.name, 'time_get_current');
    assert.equal(wrong.stats().wrong, 2);
  });

  it('a request it holds no label for is answered without a call and counted', async () => {
    const before = exact.stats().unlabelled;
    const r = await ask(exact.url, 'Book me a flight', ['time_get_current']);
    assert.equal(r.choices[0]!.message.tool_calls, undefined);
    assert.equal(exact.stats().unlabelled, before + 1);
  });

  it('errs on the same requests for the same seed, at about the rate asked', async () => {
    const many = new Map(Array.from({ length: 200 }, (_, i) => [`request ${i}`, { tool: 'a', arguments: {} }]));
    const [x, y] = await Promise.all([
      startLabelFrontier({ labels: many, errorRate: 0.25, seed: 'k' }),
      startLabelFrontier({ labels: many, errorRate: 0.25, seed: 'k' }),
    ]);
    try {
      const wrongOn = async (f: LabelFrontier) => {
        const out: number[] = [];
        for (let i = 0; i < 200; i++)
          if ((await ask(f.url, `request ${i}`, ['a', 'b'])).choices[0]!.message.tool_calls![0]!.function.name === 'b')
            out.push(i);
        return out;
      };
      const [wx, wy] = [await wrongOn(x), await wrongOn(y)];
      assert.deepEqual(wx, wy);
      assert.ok(wx.length > 25 && wx.length < 75, `${wx.length} of 200 wrong at rate 0.25`);
    } finally {
      await x.close();
      await y.close();
    }
  });

  it('refuses an error rate outside [0, 1]', async () => {
    await assert.rejects(startLabelFrontier({ labels, errorRate: 1.5, seed: 's' }), /errorRate/);
  });
});
