/**
 * The gateway in front of each real engine, one after the other in one run: `flywheel serve` (the trainer's
 * server) and vLLM (its CPU build, .venv-vllm), both serving the same router adapter, asked the same test-set
 * requests through the gateway at each concurrency. Per engine and level: decisions/s, p50/p95 latency, the mean
 * answer length, and the cost per 1K decisions that the throughput gives at `--cost-hour` dollars per hour of the
 * machine. Only one engine runs at a time, so neither measures the other's load.
 *
 *   node --import tsx scripts/bench/gateway-load.ts --engines [--adapter DIR --testset FILE] [--levels 1,4,16]
 *     [--requests 32] [--max-tokens 160] [--cost-hour 0.10] [--base smollm2-135m-instruct]
 *
 * `--adapter` is a trained router adapter (the demo's is under .flywheel/served/), `--testset` a rendered test set
 * (`flywheel artifacts get SHA FILE` of its run's `rendered-test`). Without them a tiny adapter is trained on
 * `--base` from synthetic rows and asked its own validation rows. One line per engine and level:
 * `gateway-engines: engine=E concurrency=C decisions_per_s=X p50_ms=X p95_ms=X completion_tokens=X usd_per_1k=X answered=N/N`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gatewaySchema } from '../../core/config/schema.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import { Backend } from '../../core/deploy/backend.js';
import { openRegistry, type AliasRegistry } from '../../core/deploy/registry.js';
import type { DeployTarget } from '../../core/deploy/types.js';
import { casesFrom } from '../../core/eval/cases.js';
import type { EvalCase } from '../../core/eval/types.js';
import { pool } from '../../core/pool.js';
import { convertedBase } from '../../core/train/base-model.js';
import { convertedDir, isPackagedBase } from '../../core/train/packaged-bases.js';
import { startServe } from '../../core/train/serve-process.js';
import { baseCacheRoot, convertBase } from '../../core/train/trainer-process.js';
import { startGateway } from '../../gateway/server.js';
import { tempDir } from '../../test/helpers/fixtures.js';
import { trainTinyAdapter } from '../../test/helpers/tiny-adapter.js';
import { startVllm } from '../../test/helpers/vllm.js';

const KEY = 'gateway-engines-key';

interface Level {
  concurrency: number;
  decisionsPerS: number;
  p50: number;
  p95: number;
  completionTokens: number;
  answered: number;
  sent: number;
}

export async function engineLoad(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      engines: { type: 'boolean' },
      adapter: { type: 'string' },
      testset: { type: 'string' },
      levels: { type: 'string', default: '1,4,16' },
      requests: { type: 'string', default: '32' },
      'max-tokens': { type: 'string', default: '160' },
      'cost-hour': { type: 'string', default: '0.10' },
      base: { type: 'string', default: 'smollm2-135m-instruct' },
    },
  });
  if (Boolean(values.adapter) !== Boolean(values.testset)) {
    console.error('gateway-load --engines: give --adapter and --testset together, or neither (a tiny adapter)');
    return 2;
  }
  const levels = values.levels.split(',').map(Number);
  const perLevel = Number(values.requests);
  const maxTokens = Number(values['max-tokens']);
  const costHour = Number(values['cost-hour']);
  const dir = tempDir('flywheel-gateway-engines-');

  const { adapter, rows } = values.adapter
    ? { adapter: values.adapter, rows: readRows(values.testset!) }
    : await tinyRouter(dir, values.base);
  const cases = casesFrom(rows);
  const base = baseOf(adapter);
  console.log(
    `adapter ${adapter} on ${base}; ${cases.length} test requests; ${perLevel} per level, max ${maxTokens} tokens`,
  );

  const registryFile = join(dir, 'registry.sqlite');
  const registry = await openRegistry(registryFile);
  process.env.FLYWHEEL_BENCH_BACKEND_KEY = KEY;
  const gateway = await startGateway(
    gatewaySchema.parse({
      port: 0,
      registry: registryFile,
      tracesDir: join(dir, 'traces'),
      timeoutMs: 600_000,
      backendApiKeyEnv: 'FLYWHEEL_BENCH_BACKEND_KEY',
    }),
    { log: () => undefined },
  );
  const results = new Map<string, Level[]>();
  try {
    // serve: the trainer's server, one adapter loaded at runtime as a deploy does.
    const serve = await startServe([], join(dir, 'serve.log'));
    try {
      await expose(registry, 'serve', 'local', serve.url, adapter);
      results.set('serve', await measure(gateway.url, 'router-serve', cases, levels, perLevel, maxTokens));
    } finally {
      serve.run.kill();
      await serve.run.done;
    }
    // vLLM: the same adapter loaded through its runtime LoRA API, decoding inside the answer schema.
    const vllm = await startVllm({ model: base, apiKey: KEY, log: join(dir, 'vllm.log'), maxModelLen: 4096 });
    try {
      await expose(registry, 'vllm', 'vllm', vllm.url, adapter);
      results.set('vllm', await measure(gateway.url, 'router-vllm', cases, levels, perLevel, maxTokens));
    } finally {
      await vllm.stop();
    }
  } finally {
    await gateway.close();
    await registry.close();
  }

  let failed = false;
  console.log('\n| engine | concurrency | decisions/s | p50 ms | p95 ms | answer tokens | $ per 1K decisions |');
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const [engine, ls] of results)
    for (const l of ls)
      console.log(
        `| ${engine} | ${l.concurrency} | ${l.decisionsPerS.toFixed(2)} | ${l.p50.toFixed(0)} | ${l.p95.toFixed(0)} | ${l.completionTokens.toFixed(1)} | ${per1k(costHour, l.decisionsPerS).toFixed(4)} |`,
      );
  console.log(`(cost: $${costHour}/hour of this machine spread over the decisions/s measured)\n`);
  for (const [engine, ls] of results)
    for (const l of ls) {
      failed ||= l.answered !== l.sent;
      console.log(
        `gateway-engines: engine=${engine} concurrency=${l.concurrency} decisions_per_s=${l.decisionsPerS.toFixed(3)} p50_ms=${l.p50.toFixed(0)} p95_ms=${l.p95.toFixed(0)} completion_tokens=${l.completionTokens.toFixed(1)} usd_per_1k=${per1k(costHour, l.decisionsPerS).toFixed(4)} answered=${l.answered}/${l.sent}`,
      );
    }
  return failed ? 1 : 0;
}

const per1k = (dollarsPerHour: number, decisionsPerS: number) => (dollarsPerHour / 3600 / decisionsPerS) * 1000;

function readRows(file: string): RenderedRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RenderedRow);
}

/**
 * The base directory an adapter was trained on, as vLLM needs it (its --model): flywheel.json's `base`, a packaged
 * base's name (its converted copy in the base cache) or a path, relative to the adapter for a tiny base.
 */
export function baseOf(adapter: string): string {
  const { base } = JSON.parse(readFileSync(join(adapter, 'flywheel.json'), 'utf8')) as { base: string };
  return isPackagedBase(base) ? convertedDir(baseCacheRoot(), base) : resolve(adapter, base);
}

/** A tiny router on `base` (a packaged base, converted once into the base cache, or a directory), 30 steps. */
async function tinyRouter(dir: string, base: string): Promise<{ adapter: string; rows: RenderedRow[] }> {
  const baseDir = isPackagedBase(base) ? (await convertedBase(base, baseCacheRoot(), convertBase)).dir : base;
  mkdirSync(join(dir, 'tiny'), { recursive: true });
  const tiny = await trainTinyAdapter(join(dir, 'tiny'), 0, 30, baseDir);
  return { adapter: tiny.adapter, rows: tiny.val };
}

/** Load the adapter into the engine and point the engine's alias at it, as a deploy leaves them. */
async function expose(
  registry: AliasRegistry,
  engine: string,
  target: DeployTarget,
  url: string,
  adapter: string,
): Promise<void> {
  const name = `router-${engine}@bench`;
  const route = await new Backend(target, url, KEY).load(name, adapter);
  const sha = '0'.repeat(64);
  await registry.registerVersion({
    name,
    alias: `router-${engine}`,
    adapterVersion: `adp-${engine}`,
    adapter: { uri: `file:${adapter}`, sha256: sha, kind: 'adapter', count: 1, bytes: 1 },
    target,
    endpoint: url,
    servedModel: route.servedModel,
    adapterId: route.adapterId ?? null,
    baseModel: 'base',
    runId: null,
    evalReport: null,
    probes: null,
  });
  await registry.repoint(`router-${engine}`, name, {
    action: 'deploy',
    actor: 'bench',
    reason: 'engine load',
    requestId: engine,
  });
}

/** Per level: a warm-up request, then `perLevel` test requests of its own, C at a time. */
async function measure(
  gatewayUrl: string,
  alias: string,
  cases: EvalCase[],
  levels: number[],
  perLevel: number,
  maxTokens: number,
): Promise<Level[]> {
  const ask = async (c: EvalCase) => {
    const started = performance.now();
    const res = await fetch(`${gatewayUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: alias, messages: c.messages, tools: c.tools, max_tokens: maxTokens }),
    });
    const body = (await res.json()) as {
      choices?: Array<{ message: { content: string | null; tool_calls?: unknown[] } }>;
      usage?: { completion_tokens?: number };
    };
    const message = body.choices?.[0]?.message;
    // A decision: a call (tool_calls) or a router no-call; an error or free text is not one.
    const decided = res.ok && Boolean(message && (message.tool_calls?.length || isNoCall(message.content)));
    if (!decided) console.log(`  not a decision (${res.status}): ${JSON.stringify(message ?? body).slice(0, 300)}`);
    return { ms: performance.now() - started, decided, completionTokens: body.usage?.completion_tokens ?? 0 };
  };
  const out: Level[] = [];
  // Each level asks other cases (while the test set lasts), so no level reads prompts an earlier one left in an
  // engine's prefix cache; the warm-up asks the last case, which no level does before it is reached.
  for (const [level, concurrency] of levels.entries()) {
    await ask(cases.at(-1)!);
    const picked = Array.from({ length: perLevel }, (_, i) => cases[(level * perLevel + i) % cases.length]!);
    const started = performance.now();
    const answers = await pool(picked, concurrency, ask);
    const seconds = (performance.now() - started) / 1000;
    const decided = answers.filter((a) => a.decided).length;
    const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
    const q = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)]!;
    out.push({
      concurrency,
      decisionsPerS: decided / seconds,
      p50: q(0.5),
      p95: q(0.95),
      completionTokens: answers.reduce((s, a) => s + a.completionTokens, 0) / answers.length,
      answered: decided,
      sent: perLevel,
    });
    console.log(
      `${alias} c=${concurrency}: ${(decided / seconds).toFixed(2)} decisions/s, p50 ${q(0.5).toFixed(0)} ms`,
    );
  }
  return out;
}

function isNoCall(content: string | null): boolean {
  try {
    return (JSON.parse(content ?? '') as { tool?: unknown }).tool === null;
  } catch {
    return false;
  }
}
