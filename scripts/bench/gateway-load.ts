/**
 * The gateway under load: N requests, C at a time, through the gateway to a local stand-in for the serving backend
 * (test/helpers/backend-stand-in.ts, in place of vLLM), and the same requests straight to the stand-in in the same
 * run. Reports the latency each path took (p50, p99) and what the gateway adds; checks that every request got
 * exactly one answer, its own (each asks for a distinct record id, which the answer must carry back), and that the
 * backend saw each request once.
 *
 *   node --import tsx scripts/bench/gateway-load.ts [--requests 2000] [--concurrency 50]
 *
 * Last line: `gateway-load: requests=<n> p50_overhead_ms=<x> p99_overhead_ms=<x> lost=<n> duplicated=<n>`.
 *
 * With `--engines`, the gateway in front of the real engines instead, `flywheel serve` and vLLM, at several
 * concurrencies (scripts/lib/gateway-engines.ts says how).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gatewaySchema } from '../../core/config/schema.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { pool } from '../../core/pool.js';
import { startGateway } from '../../gateway/server.js';
import { startBackendStandIn } from '../../test/helpers/backend-stand-in.js';
import { tempDir } from '../../test/helpers/fixtures.js';

if (process.argv.includes('--engines')) {
  const { engineLoad } = await import('../lib/gateway-engines.js');
  process.exit(await engineLoad(process.argv.slice(2)));
}

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '50' } },
});
const n = Number(values.requests);
const concurrency = Number(values.concurrency);
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_record',
      description: 'Read one record',
      parameters: { type: 'object', properties: { recordId: { type: 'string' } }, required: ['recordId'] },
    },
  },
];

// The stand-in answers each request with a call on the record id the request names.
const backend = await startBackendStandIn((body) => ({
  call: 'get_record',
  arguments: { recordId: /record (\S+)$/.exec(body.messages.at(-1)!.content!)![1]! },
  confidence: 0.99,
}));
const dir = tempDir('flywheel-gateway-load-');
const registryFile = join(dir, 'registry.sqlite');
const registry = await openRegistry(registryFile);
const sha = '3'.repeat(64);
await registry.registerVersion({
  name: 'router@load',
  alias: 'router',
  adapterVersion: 'adp-load',
  adapter: { uri: `file:x/${sha}`, sha256: sha, kind: 'adapter', count: 1, bytes: 1 },
  target: 'local',
  endpoint: backend.url,
  servedModel: 'router@load',
  adapterId: null,
  baseModel: 'b',
  runId: null,
  evalReport: null,
  probes: null,
});
await registry.repoint('router', 'router@load', {
  action: 'deploy',
  actor: 'bench',
  reason: 'load check',
  requestId: 'load',
});
await registry.close();
const gateway = await startGateway(
  gatewaySchema.parse({ port: 0, registry: registryFile, tracesDir: join(dir, 'traces') }),
);

/** Send every request to `url` (model `model`), C at a time; per request: its latency and the record id answered. */
async function run(url: string, model: string, tag: string, count = n) {
  const ids = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
  const answered = new Map<string, number>();
  const latencies = await pool(ids, concurrency, async (id) => {
    const started = performance.now();
    const res = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: `show record ${id}` }], tools: TOOLS }),
    });
    const body = (await res.json()) as {
      choices?: Array<{ message: { tool_calls?: Array<{ function: { arguments: string } }> } }>;
    };
    const ms = performance.now() - started;
    const got = res.ok
      ? (JSON.parse(body.choices?.[0]?.message.tool_calls?.[0]?.function.arguments ?? '{}') as { recordId?: string })
          .recordId
      : undefined;
    if (got === id) answered.set(id, (answered.get(id) ?? 0) + 1);
    return ms;
  });
  return {
    latencies,
    lost: ids.filter((id) => !answered.has(id)).length,
    duplicated: [...answered.values()].filter((c) => c > 1).length,
  };
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;
try {
  // Warm both paths (connections, JIT) before measuring.
  await run(backend.url, 'router@load', 'warm-direct', Math.min(n, 200));
  await run(gateway.url, 'router', 'warm-gateway', Math.min(n, 200));
  const direct = await run(backend.url, 'router@load', 'direct');
  const seenBefore = backend.requests.length;
  const through = await run(gateway.url, 'router', 'gw');
  const backendSaw = backend.requests.slice(seenBefore).map((r) => r.messages.at(-1)!.content!);
  const seenTwice = backendSaw.length - new Set(backendSaw).size;
  const row = (what: string, l: number[]) =>
    `${what.padEnd(16)} p50 ${quantile(l, 0.5).toFixed(2).padStart(7)} ms   p99 ${quantile(l, 0.99).toFixed(2).padStart(7)} ms`;
  console.log(`${n} requests, ${concurrency} at a time, against a stand-in backend`);
  console.log(row('direct', direct.latencies));
  console.log(row('through gateway', through.latencies));
  console.log(
    `backend saw ${backendSaw.length} gateway requests (${seenTwice} twice); lost ${through.lost}, answered twice ${through.duplicated}`,
  );
  const p50 = quantile(through.latencies, 0.5) - quantile(direct.latencies, 0.5);
  const p99 = quantile(through.latencies, 0.99) - quantile(direct.latencies, 0.99);
  console.log(
    `gateway-load: requests=${n} p50_overhead_ms=${p50.toFixed(2)} p99_overhead_ms=${p99.toFixed(2)} lost=${through.lost + direct.lost} duplicated=${through.duplicated + seenTwice}`,
  );
  if (through.lost || through.duplicated || seenTwice || backendSaw.length !== n) process.exitCode = 1;
} finally {
  await gateway.close();
  await backend.close();
}
