/**
 * `python -m flywheel_trainer serve` through the `openai` client: models, vLLM's runtime adapter API, tool
 * calls, and constrained output that always parses as router JSON naming an offered tool. The adapter is
 * trained here on a tiny model (trainer/tests/synthetic.py data), so this is the real trainer's output.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startTrainer, TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';
import { tempDir } from '../helpers/fixtures.js';

let server: ChildProcess | undefined;
let client: OpenAI;
let adapter: string;
let rows: Array<{ prompt: OpenAI.ChatCompletionMessageParam[]; tools: OpenAI.ChatCompletionTool[] }>;

/** What a completion said: its tool calls' functions, or its content. */
function answer(res: OpenAI.ChatCompletion): unknown {
  const message = res.choices[0]!.message;
  return message.tool_calls?.map((c) => (c as { function: unknown }).function) ?? message.content;
}

describe('trainer serve (OpenAI-compatible)', () => {
  before(async () => {
    const dir = tempDir('flywheel-serve-');
    execFileSync(trainerPython(), [join(TRAINER_ROOT, 'tests', 'synthetic.py'), dir]);
    const job = {
      version: 1,
      baseModel: 'tiny:nano',
      data: { train: join(dir, 'train.jsonl'), val: join(dir, 'val.jsonl') },
      outputDir: join(dir, 'out'),
      optim: { epochs: 5, maxSteps: 30, effectiveBatchSize: 8, microBatchSize: 8, learningRate: 0.005 },
      checkpointEvery: 30,
    };
    writeFileSync(join(dir, 'job.json'), JSON.stringify(job));
    const run = startTrainer(['train', '--job', join(dir, 'job.json')], {
      stderrFile: join(dir, 'train.log'),
      onEvent: () => undefined,
    });
    const exit = await run.done;
    assert.equal(exit.code, 0, exit.stderrTail);
    adapter = join(dir, 'out', 'adapter');
    rows = readFileSync(job.data.val, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

    server = spawn(
      trainerPython(),
      ['-m', 'flywheel_trainer', 'serve', '--adapter', `router=${adapter}`, '--port', '0'],
      {
        env: { ...process.env, PYTHONPATH: TRAINER_ROOT },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve, reject) => {
      server!.stdout!.on('data', (d: Buffer) => {
        const m = /"url": "([^"]+)"/.exec(d.toString());
        if (m) resolve(m[1]!);
      });
      server!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    client = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => {
    server?.kill('SIGTERM');
  });

  it('lists the base and the adapters loaded at start', async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    assert.deepEqual(ids.sort(), ['base', 'router']);
  });

  it('constrained output always parses: a tool call to an offered tool, or router JSON with a verdict', async () => {
    for (const row of rows.slice(0, 12)) {
      const res = await client.chat.completions.create({
        model: 'router',
        messages: row.prompt,
        tools: row.tools,
        max_tokens: 400,
      });
      const choice = res.choices[0]!;
      const offered = row.tools.map((t) => (t as { function: { name: string } }).function.name);
      if (choice.message.tool_calls?.length) {
        assert.equal(choice.finish_reason, 'tool_calls');
        const call = choice.message.tool_calls[0]! as { function: { name: string; arguments: string } };
        assert.ok(offered.includes(call.function.name), `${call.function.name} is offered`);
        assert.equal(typeof JSON.parse(call.function.arguments), 'object');
      } else {
        assert.equal(choice.finish_reason, 'stop');
        const verdict = JSON.parse(choice.message.content!) as {
          tool: null;
          verdict: string;
          code: string;
          reason: string;
        };
        assert.equal(verdict.tool, null);
        assert.ok(['abstain', 'violation', 'escalate'].includes(verdict.verdict));
      }
      assert.ok(res.usage!.prompt_tokens > 0 && res.usage!.completion_tokens > 0);
    }
  });

  it('loads and unloads adapters at runtime (vLLM API); model selects the adapter; the base stays served', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${client.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const loaded = await post('/load_lora_adapter', { lora_name: 'router-v2', lora_path: adapter });
    assert.equal(loaded.status, 200, await loaded.text());
    assert.equal(
      (await post('/load_lora_adapter', { lora_name: 'router-v2', lora_path: adapter })).status,
      400,
      'a name is loaded once',
    );
    assert.equal((await post('/load_lora_adapter', { lora_name: 'x', lora_path: '/nonexistent' })).status, 400);
    assert.deepEqual((await client.models.list()).data.map((m) => m.id).sort(), ['base', 'router', 'router-v2']);

    const row = rows[0]!;
    const [a, b] = await Promise.all(
      ['router', 'router-v2'].map((model) =>
        client.chat.completions.create({ model, messages: row.prompt, tools: row.tools, max_tokens: 400 }),
      ),
    );
    assert.deepEqual(answer(a!), answer(b!), 'the same weights answer the same');
    const base = await client.chat.completions.create({
      model: 'base',
      messages: row.prompt,
      tools: row.tools,
      max_tokens: 400,
    });
    assert.ok(
      base.choices[0]!.message.tool_calls?.length || JSON.parse(base.choices[0]!.message.content!),
      'the base is constrained too',
    );

    assert.equal((await post('/unload_lora_adapter', { lora_name: 'router-v2' })).status, 200);
    await assert.rejects(
      client.chat.completions.create({ model: 'router-v2', messages: row.prompt, max_tokens: 4 }),
      (err: unknown) => err instanceof OpenAI.NotFoundError,
    );
    assert.equal((await post('/unload_lora_adapter', { lora_name: 'router-v2' })).status, 404);
    assert.deepEqual((await client.models.list()).data.map((m) => m.id).sort(), ['base', 'router']);
    // The remaining adapter still answers after its neighbour is gone.
    const again = await client.chat.completions.create({
      model: 'router',
      messages: row.prompt,
      tools: row.tools,
      max_tokens: 400,
    });
    assert.deepEqual(answer(again), answer(a!));
  });

  it("reports the generated tokens' logprobs, and each adapter's parent base", async () => {
    const row = rows[0]!;
    const res = await client.chat.completions.create({
      model: 'router',
      messages: row.prompt,
      tools: row.tools,
      max_tokens: 400,
      logprobs: true,
      top_logprobs: 2,
    });
    const tokens = res.choices[0]!.logprobs!.content!;
    assert.equal(tokens.length, res.usage!.completion_tokens - 1, 'every token but the final end-of-turn');
    assert.ok(tokens.every((t) => t.logprob <= 0 && t.top_logprobs.length === 2));
    JSON.parse(tokens.map((t) => t.token).join('')); // the router JSON, also when it came back as a tool call
    const models = (await client.models.list()).data as Array<OpenAI.Model & { parent: string | null }>;
    assert.deepEqual(Object.fromEntries(models.map((m) => [m.id, m.parent])), { base: null, router: 'base' });
  });

  it('rejects bad requests with OpenAI-shaped errors', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'router', messages: [] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'router', messages: [{ role: 'user', content: 'x' }], stream: true }),
      (err: unknown) => err instanceof OpenAI.BadRequestError,
    );
  });
});
