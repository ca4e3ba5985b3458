/**
 * The `vllm` deploy target against a real vLLM server (the CPU build, .venv-vllm): runtime LoRA load and unload
 * behind vLLM's API key, the smoke test decoding inside the router answer's schema through vLLM's structured
 * outputs, vLLM's own refusals, a restart in the middle of a deploy, and a rollback to a version the restart made
 * it forget. Two adapters on one tiny base (vLLM serves one base; tiny:micro, whose heads its CPU attention takes).
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Backend, BackendRefusal } from '../../core/deploy/backend.js';
import { deployVersion, rollbackAlias, SmokeTestFailed, type DeployPlan } from '../../core/deploy/deploy.js';
import { openRegistry, type AliasRegistry } from '../../core/deploy/registry.js';
import type { DeployedVersion } from '../../core/deploy/types.js';
import { casesFrom } from '../../core/eval/cases.js';
import type { EvalReport } from '../../core/eval/types.js';
import { main } from '../../scripts/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { trainTinyAdapter, zeroedAdapter, type TinyAdapter } from '../helpers/tiny-adapter.js';
import { startVllm, type VllmServer } from '../helpers/vllm.js';
import { gatewaySchema } from '../../core/config/schema.js';
import { startGateway } from '../../gateway/server.js';

const KEY = 'vllm-test-key';
const A = 'router@aaaa0000-00000001';
const B = 'router@bbbb0000-00000001';

describe('the vllm target on a real vLLM server', { timeout: 15 * 60_000 }, () => {
  let dir: string;
  let base: string;
  let a: TinyAdapter;
  let b: TinyAdapter;
  let vllm: VllmServer;
  let backend: Backend;
  let registry: AliasRegistry;
  const opts = { timeoutMs: 120_000, apiKey: KEY };

  const plan = (
    name: string,
    adapter: TinyAdapter,
    adapterPath: string,
    requestId: string,
    expectedCurrent: string | null,
  ): DeployPlan => ({
    alias: 'router',
    name,
    adapterVersion: `adp-${name.slice(-4)}`,
    adapter: {
      uri: `file:///nowhere/${name}`,
      sha256: name.slice(-8).padEnd(64, '0'),
      kind: 'adapter',
      count: 1,
      bytes: 1,
    },
    adapterPath,
    runId: 'test',
    evalReport: null,
    probes: casesFrom(adapter.val).slice(0, 3),
    probesRef: null,
    expectedCurrent,
    actor: 'test',
    reason: 'gate passed',
    requestId,
  });
  const models = async () =>
    (
      (await (await fetch(`${vllm.url}/models`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        data: Array<{ id: string; parent: string | null }>;
      }
    ).data;
  const start = (port?: number) => startVllm({ model: base, apiKey: KEY, log: join(dir, 'vllm.log'), port });

  before(async () => {
    dir = tempDir('flywheel-vllm-');
    a = await trainTinyAdapter(join(dir, 'a'), 0, 30, 'tiny:micro');
    base = join(a.adapter, '..', 'base');
    b = await trainTinyAdapter(join(dir, 'b'), 1, 30, base);
    vllm = await start();
    backend = new Backend('vllm', vllm.url, KEY);
    registry = await openRegistry(join(dir, 'registry.sqlite'));
  });
  after(async () => {
    await registry?.close();
    await vllm?.stop();
  });

  it('deploys a first version: loaded beside the base, smoke-tested inside the answer schema, alias set', async () => {
    const result = await deployVersion(registry, backend, plan(A, a, a.adapter, 'run-1/deploy', null), opts);
    assert.equal(result.smoke.passed, true, result.smoke.summary);
    assert.ok(result.smoke.probes.every((p) => p.parses));
    assert.equal((await registry.current('router'))?.name, A);
    assert.equal(result.version.baseModel, 'base', "the smoke test compared with vLLM's served base");
    assert.deepEqual(
      (await models()).map((m) => [m.id, m.parent]),
      [
        ['base', null],
        [A, 'base'],
      ],
    );
  });

  it("refuses an adapter that changes nothing and one vLLM cannot load (vLLM's reason named); the alias stays", async () => {
    const noop = zeroedAdapter(a.adapter, join(dir, 'noop'));
    await assert.rejects(
      deployVersion(registry, backend, plan('router@dead0000-00000001', a, noop, 'run-2/deploy', A), opts),
      // It answers as the untrained tiny base does: inside the schema, rambling in a string until max_tokens.
      (err: Error) => err instanceof SmokeTestFailed && /changes nothing|do not parse/.test(err.message),
    );
    await assert.rejects(
      deployVersion(
        registry,
        backend,
        plan('router@dead0000-00000002', a, join(dir, 'nothing-here'), 'run-3/deploy', A),
        opts,
      ),
      (err: Error) => err instanceof BackendRefusal && /failed \(404\).*No adapter found/.test(err.message),
    );
    // vLLM's engine refuses a rank above --max-lora-rank with a 500; it is a refusal all the same, not retried.
    const wide = join(dir, 'wide');
    cpSync(join(a.adapter, '..'), wide, { recursive: true });
    const config = join(wide, 'adapter', 'adapter_config.json');
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), r: 64 }));
    await assert.rejects(
      deployVersion(
        registry,
        backend,
        plan('router@dead0000-00000003', a, join(wide, 'adapter'), 'run-3b/deploy', A),
        opts,
      ),
      (err: Error) => err instanceof BackendRefusal && /failed \(500\).*greater than max_lora_rank/.test(err.message),
    );
    assert.equal((await registry.current('router'))?.name, A);
    assert.deepEqual(
      (await models()).map((m) => m.id),
      ['base', A],
      'the refused versions are not left loaded',
    );
  });

  it("loading needs vLLM's API key: refused without it, not retried", async () => {
    await assert.rejects(
      new Backend('vllm', vllm.url).load('router@nokey', a.adapter),
      (err: Error) => err instanceof BackendRefusal && /failed \(401\)/.test(err.message),
    );
  });

  it('vLLM restarted between load and alias flip: the alias stays; the retry loads again and moves it once', async () => {
    const p = plan(B, b, b.adapter, 'run-4/deploy', A);
    const restart = async () => {
      await vllm.stop();
      vllm = await start(vllm.port);
    };
    await assert.rejects(deployVersion(registry, backend, p, opts, { afterLoad: restart }), /does not exist|404/);
    assert.equal((await registry.current('router'))?.name, A, 'the alias has not moved');
    const retried = await deployVersion(registry, backend, p, opts);
    assert.equal(retried.event.previous, A);
    assert.equal((await registry.current('router'))?.name, B);
    assert.deepEqual(
      (await models()).map((m) => m.id),
      ['base', B],
      'the restart dropped the first version',
    );
  });

  it('rolls back to the version the restart made vLLM forget: reloaded, smoke-tested, alias moved back', async () => {
    const result = await rollbackAlias(
      registry,
      (v: DeployedVersion) => new Backend(v.target, v.endpoint, KEY),
      {
        alias: 'router',
        actor: 'alice',
        reason: 'candidate misroutes invoices',
        requestId: 'rollback-1',
        adapterPathOf: async (v) => (v.name === A ? a.adapter : b.adapter),
        probesOf: async (v) => casesFrom((v.name === A ? a : b).val).slice(0, 3),
      },
      opts,
    );
    assert.equal(result.smoke.passed, true, result.smoke.summary);
    assert.equal(result.version.name, A);
    assert.equal((await registry.current('router'))?.name, A);
    assert.ok((await models()).some((m) => m.id === A));
  });

  it("the gateway in front of vLLM: the alias's version answers inside the schema, a call as tool_calls, with vLLM's logprobs as confidence", async () => {
    const gw = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: join(dir, 'registry.sqlite'),
        tracesDir: join(dir, 'traces'),
        backendApiKeyEnv: 'FLYWHEEL_TEST_VLLM_KEY',
      }),
      { env: { FLYWHEEL_TEST_VLLM_KEY: KEY }, log: () => undefined },
    );
    try {
      const calls = casesFrom(a.val)
        .filter((c) => c.target.tool !== null)
        .slice(0, 2);
      assert.ok(calls.length > 0);
      let toolCalls = 0;
      for (const probe of calls) {
        const res = await fetch(`${gw.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'router', messages: probe.messages, tools: probe.tools }),
        });
        const body = (await res.json()) as {
          model: string;
          choices: Array<{ message: { content: string | null; tool_calls?: Array<{ function: { name: string } }> } }>;
        };
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.model, A);
        const message = body.choices[0]!.message;
        const offered = probe.tools.map((t) => t.function.name);
        // Inside the schema the answer is a call to an offered tool or a known no-call, never free text.
        if (message.tool_calls?.length) {
          assert.ok(offered.includes(message.tool_calls[0]!.function.name));
          toolCalls += 1;
        } else assert.equal((JSON.parse(message.content!) as { tool: unknown }).tool, null);
        const confidence = Number(res.headers.get('x-flywheel-confidence'));
        assert.ok(confidence > 0 && confidence <= 1, `confidence from vLLM's logprobs: ${confidence}`);
      }
      assert.ok(toolCalls > 0, 'the router JSON calls vLLM wrote reached the agent as tool_calls');
      // A tool schema in words vLLM's grammar backends refuse (oneOf, uniqueItems, an unknown format) still decodes.
      const awkward = {
        type: 'function',
        function: {
          name: 'apply_receipt',
          description: 'Apply a receipt',
          parameters: {
            type: 'object',
            properties: {
              payer: { oneOf: [{ type: 'string', format: 'email' }, { type: 'integer' }] },
              lines: { type: 'array', uniqueItems: true, items: { type: 'string', format: 'uri-reference' } },
            },
            required: ['payer'],
          },
        },
      };
      const res = await fetch(`${gw.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'router', messages: calls[0]!.messages, tools: [...calls[0]!.tools, awkward] }),
      });
      assert.equal(res.status, 200, await res.clone().text());
    } finally {
      await gw.close();
    }
  });
  it("flywheel eval scores the alias's version on vLLM inside the answer schema: every answer parses, every call is an offered tool's", async () => {
    const testset = join(dir, 'val.jsonl');
    writeFileSync(testset, a.val.map((r) => JSON.stringify(r)).join('\n'));
    const out = join(dir, 'eval');
    process.env.FLYWHEEL_TEST_VLLM_KEY = KEY;
    const current = (await registry.current('router'))!.name;
    const code = await main([
      ...['eval', '--endpoint', vllm.url, '--model', current, '--testset', testset],
      ...['--constraint', 'json-schema', '--api-key-env', 'FLYWHEEL_TEST_VLLM_KEY', '--resamples', '200', '--out', out],
    ]);
    assert.equal(code, 0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvalReport;
    const result = report.results[0]!;
    assert.equal(result.model, A);
    assert.equal(result.metrics.n, a.val.length);
    assert.deepEqual(
      result.cases.filter((c) => c.outcome === 'invalid_output').map((c) => c.detail),
      [],
      'decoded inside the schema, every answer is a call or a known no-call',
    );
    assert.ok(
      result.cases.every((c) => c.schemaValid !== false),
      "every call fits its tool's schema",
    );
    // A tiny model trained 30 steps routes badly; what matters here is that it was scored through vLLM.
    assert.ok(result.metrics.toolAccuracy.value !== null, 'scored');
    assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /exact match/);
  });
});
