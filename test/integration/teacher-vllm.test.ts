/**
 * The openai teacher against a real vLLM server (the CPU build, .venv-vllm) serving the packaged instruct base,
 * smollm2-135m-instruct, with vLLM's hermes tool parser (the base's chat template writes <tool_call> blocks): real
 * prompts and real answers, which a model this small mostly gets wrong, so real malformed answers are asked again
 * and then dropped with their reason. Two teachers share one rate limit, as two workers do; vLLM's own metrics
 * say what it served. Validation runs in the real sandboxes.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { parseConfig } from '../../core/config/load.js';
import type { DatasetConfig } from '../../core/config/schema.js';
import { makeTeacher } from '../../core/dataset/teacher/index.js';
import { TeacherRequestError } from '../../core/dataset/teacher/send.js';
import type { Candidate } from '../../core/dataset/teacher/types.js';
import type { Intent } from '../../core/dataset/types.js';
import { hashOf } from '../../core/hash.js';
import { convertedBase } from '../../core/train/base-model.js';
import { baseCacheRoot, convertBase } from '../../core/train/trainer-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { openSandboxWorld, type SandboxWorld } from '../helpers/sandbox-teacher.js';
import { nativeCpuDtype, startVllm, type VllmServer } from '../helpers/vllm.js';

const KEY = 'vllm-teacher-key';
const BASE = 'smollm2-135m-instruct';
const PER_SECOND = 2;
const MAX_TOKENS = 96;

/** A pass-through in front of vLLM that notes when each request arrived (vLLM does not say). */
async function recordingProxy(
  target: string,
): Promise<{ url: string; arrivals: number[]; bodies: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const arrivals: number[] = [];
  const bodies: Array<Record<string, unknown>> = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    arrivals.push(Date.now());
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(JSON.parse(body.toString() || '{}') as Record<string, unknown>);
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    arrivals,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** vLLM's Prometheus counters: requests served, prompt and generated tokens (summed over their labels). */
async function served(vllm: VllmServer): Promise<{ requests: number; prompt: number; generated: number }> {
  const text = await (await fetch(vllm.url.replace(/\/v1$/, '/metrics'))).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`))
      .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return {
    requests: sum('vllm:request_success_total'),
    prompt: sum('vllm:prompt_tokens_total'),
    generated: sum('vllm:generation_tokens_total'),
  };
}

describe('the openai teacher on a real vLLM server', { timeout: 15 * 60_000 }, () => {
  let dir: string;
  let vllm: VllmServer;
  let sandboxes: SandboxWorld;
  let intents: Intent[];

  const datasetConfig = (url: string, teacher: Record<string, unknown> = {}): DatasetConfig =>
    parseConfig({
      version: 1,
      name: 'teacher-vllm',
      servers: [{ name: 'x', stdio: { command: 'x' } }],
      dataset: {
        perGoal: 1,
        teacher: {
          kind: 'openai',
          baseUrl: url,
          model: 'base',
          apiKeyEnv: 'FLYWHEEL_TEST_VLLM_TEACHER_KEY',
          batchSize: 2,
          jsonSchema: true,
          concurrency: 4,
          maxTokens: MAX_TOKENS,
          timeoutMs: 120_000,
          rateLimit: { requestsPerSecond: PER_SECOND, store: join(dir, 'rate-limits.sqlite') },
          ...teacher,
        },
      },
    }).dataset!;

  /**
   * generate -> solve on two teachers at once (two workers' share of the intents, one store, one budget) ->
   * validate in the sandboxes.
   */
  async function build(url: string, storeDir: string) {
    const dataset = datasetConfig(url);
    const store = openStore(storeDir);
    const halves = [intents.slice(0, intents.length / 2), intents.slice(intents.length / 2)];
    const teachers = halves.map(() => makeTeacher(dataset.teacher, dataset.seed, { store }, sandboxes.toolsByDomain));
    let candidates: Candidate[];
    try {
      candidates = (
        await Promise.all(halves.map(async (part, i) => teachers[i]!.solve(part, await teachers[i]!.generate(part))))
      ).flat();
    } finally {
      for (const t of teachers) await t.close?.();
    }
    const { rows, stats } = await sandboxes.validate(intents, candidates, dataset);
    const total = (key: string) => teachers.reduce((s, t) => s + (t.stats!()[key] ?? 0), 0);
    return { rows, stats, candidates, hash: hashOf(rows), total };
  }

  before(async () => {
    dir = tempDir('flywheel-teacher-vllm-');
    process.env.FLYWHEEL_TEST_VLLM_TEACHER_KEY = KEY;
    const { dir: base } = await convertedBase(BASE, baseCacheRoot(), convertBase);
    vllm = await startVllm({
      model: base,
      apiKey: KEY,
      log: join(dir, 'vllm.log'),
      // Most of this test is vLLM decoding: in the CPU's own dtype it decodes ~1.5x faster where bf16 is emulated.
      dtype: nativeCpuDtype(),
      // The base's template renders tools and writes calls as <tool_call> blocks, which the hermes parser reads.
      extraArgs: ['--enable-auto-tool-choice', '--tool-call-parser', 'hermes'],
    });
    sandboxes = await openSandboxWorld();
    const all = await sandboxes.intents(datasetConfig('http://unused/v1'));
    // A few of each kind: calls from both domains, and requests no tool can do.
    intents = [
      ...all.filter((i) => i.tool && i.domain === 'salesforce').slice(0, 3),
      ...all.filter((i) => i.tool && i.domain === 'oracle-ebs').slice(0, 3),
      ...all.filter((i) => !i.tool).slice(0, 2),
    ];
    assert.equal(intents.length, 8);
  });
  after(async () => {
    await sandboxes?.close();
    await vllm?.stop();
  });

  it('drafts and solves through vLLM: its answers counted as vLLM counts them, the malformed ones asked again and dropped by name, one shared budget', async (t) => {
    const proxy = await recordingProxy(vllm.url);
    try {
      const before = await served(vllm);
      const run = await build(proxy.url, join(dir, 'store'));
      const after = await served(vllm);

      // What the teachers say they sent, vLLM says it served, token for token.
      const sent = run.total('requests');
      t.diagnostic(
        `${sent} requests, ${run.total('malformedRetries')} asked again; ${run.rows.length} rows, rejections ${JSON.stringify(run.stats.rejectionsByReason)}`,
      );
      assert.ok(sent >= intents.length, `a drafting and a solving request at least per intent pair (${sent})`);
      assert.equal(after.requests - before.requests, sent, "vLLM's request count");
      assert.equal(proxy.arrivals.length, sent);
      assert.equal(after.prompt - before.prompt, run.total('promptTokens'), "vLLM's prompt tokens");
      assert.equal(after.generated - before.generated, run.total('completionTokens'), "vLLM's generated tokens");
      assert.ok(run.total('completionTokens') <= sent * MAX_TOKENS, 'no answer ran past maxTokens');
      // Both jobs reached vLLM: drafting (the drafts' JSON Schema) and solving (the domain's tools, for hermes).
      assert.ok(proxy.bodies.every((b) => b.max_completion_tokens === MAX_TOKENS));
      const drafting = proxy.bodies.filter((b) => (b.response_format as { type?: string })?.type === 'json_schema');
      const solving = proxy.bodies.filter((b) => Array.isArray(b.tools) && b.tools.length > 0);
      assert.ok(drafting.length > 0 && solving.length > 0, `${drafting.length} drafting, ${solving.length} solving`);
      assert.equal(drafting.length + solving.length, sent);

      // Every intent ends as a row or a rejection with a reason; a malformed answer was asked again first.
      const rejected = Object.values(run.stats.rejectionsByReason).reduce((s, n) => s + n, 0);
      assert.equal(run.rows.length + rejected, intents.length, JSON.stringify(run.stats));
      const malformed = run.candidates.filter((c) => c.malformed);
      assert.equal(run.stats.rejectionsByReason.teacher_malformed ?? 0, malformed.length);
      assert.equal(run.total('malformed'), malformed.length);
      assert.ok(malformed.every((c) => /^no parseable (request|answer) after retries$/.test(c.malformed!)));
      assert.ok(run.total('malformedRetries') >= 2 * malformed.length, 'each dropped answer was asked twice more');
      // Deterministic here (seeded drafting, greedy solving): the 135M base writes answers no parser takes.
      assert.ok(malformed.length > 0, 'a 135M model writes malformed answers this test sees dropped');
      for (const row of run.rows)
        assert.equal(row.provenance.teacher, 'openai:base', 'rows came from the vLLM teacher');

      // Two teachers, one budget: in no 2-second window more than its share plus the one the pacing allows.
      let busiest = 0;
      for (let i = 0, j = 0; i < proxy.arrivals.length; i++) {
        while (proxy.arrivals[i]! - proxy.arrivals[j]! >= 2000) j++;
        busiest = Math.max(busiest, i - j + 1);
      }
      assert.ok(busiest <= 2 * PER_SECOND + 1, `${busiest} requests within 2 s, budget ${PER_SECOND}/s`);

      // A rerun reads every answer from the store: vLLM is not asked again, and the rows are the same.
      const again = await build(proxy.url, join(dir, 'store'));
      assert.equal((await served(vllm)).requests, after.requests, 'no request reached vLLM');
      assert.equal(again.total('requests'), 0);
      assert.equal(again.hash, run.hash);
    } finally {
      await proxy.close();
    }
  });

  it('a request vLLM refuses (a model it does not serve) fails at once, naming the endpoint and its reason', async () => {
    const proxy = await recordingProxy(vllm.url);
    const dataset = datasetConfig(proxy.url, { model: 'not-served', rateLimit: undefined });
    const teacher = makeTeacher(dataset.teacher, dataset.seed, { store: openStore(tempDir()) });
    try {
      await assert.rejects(teacher.generate(intents.slice(0, 1)), (e: Error) => {
        assert.ok(e instanceof TeacherRequestError, String(e));
        assert.match(e.message, /refused the request \(404\).*not-served/);
        return true;
      });
      assert.equal(proxy.arrivals.length, 1, 'not retried');
    } finally {
      await teacher.close?.();
      await proxy.close();
    }
  });
});
