/**
 * Sandbox throughput and start-up, measured in one run:
 *   - start-up: spawn over stdio until MCP initialize completes (pristine database cached / cold build)
 *   - dry-runs per second of every write tool through the MCP client, over stdio and Streamable HTTP,
 *     against the same calls made in-process (callTool without MCP) as the baseline
 *
 *   node --import tsx scripts/bench/sandbox-dryrun.ts [--calls N]
 */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compileSandbox, callTool } from '../../sandboxes/common/server.js';
import { openWorkingCopy, templatePath } from '../../sandboxes/common/db.js';
import { DEFAULT_CACHE_DIR, DEFAULT_SEED } from '../../sandboxes/common/serve.js';
import { oracleEbsSandbox } from '../../sandboxes/oracle-ebs/main.js';
import { salesforceSandbox } from '../../sandboxes/salesforce/main.js';
import { tempDir } from '../../test/helpers/fixtures.js';
import {
  httpSandbox,
  startHttpSandbox,
  stdioSandbox,
  type Sandbox,
  type SandboxName,
} from '../../test/helpers/sandbox.js';
import { writeCalls, type Call } from '../../test/helpers/write-calls.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '3000' } } });
const N = Number(values.calls);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function startup(name: SandboxName, cold: boolean): Promise<number> {
  const t0 = performance.now();
  const sb = await stdioSandbox(name, cold ? ['--cache-dir', tempDir()] : []);
  const ms = performance.now() - t0;
  await sb.close();
  return ms;
}

/** Run N dry-runs with `inFlight` concurrent requests spread over the clients; returns calls per second. */
async function rate(clients: Sandbox[], calls: Call[], inFlight: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      while (next < N) {
        const c = calls[next++ % calls.length]!;
        const r = await clients[w % clients.length]!.call(c.tool, c.args, { dryRun: true });
        if (r.isError) throw new Error(`${c.tool}: ${r.error?.code} ${r.error?.message}`);
      }
    }),
  );
  return N / ((performance.now() - t0) / 1000);
}

const defs = { salesforce: salesforceSandbox, 'oracle-ebs': oracleEbsSandbox } as const;
for (const name of ['salesforce', 'oracle-ebs'] as SandboxName[]) {
  const template = templatePath(defs[name].model, DEFAULT_SEED, DEFAULT_CACHE_DIR);
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await startup(name, false));
  const cold = await startup(name, true);

  const db = `${tempDir()}/bench.db`;
  const server = await startHttpSandbox(name, ['--db', db]);
  const http = [
    await httpSandbox(server.url),
    await httpSandbox(server.url),
    await httpSandbox(server.url),
    await httpSandbox(server.url),
  ];
  const calls = await writeCalls(http[0]!, name);
  const httpRate = await rate(http, calls, 16);
  for (const c of http) await c.close();
  await server.stop();

  const stdio = await stdioSandbox(name, ['--db', db]);
  const stdioRate = await rate([stdio], calls, 16);
  await stdio.close();

  // Baseline: the same calls in-process, no MCP, no JSON-RPC.
  const copy = openWorkingCopy(template, { path: db });
  const sb = compileSandbox({
    name,
    version: 'bench',
    instructions: '',
    tools: defs[name].tools,
    db: copy.db,
    today: defs[name].today,
    scopes: ['*'],
  });
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const c = calls[i % calls.length]!;
    if (callTool(sb, c.tool, c.args, { dryRun: true }).isError) throw new Error(`in-process ${c.tool} failed`);
  }
  const direct = N / ((performance.now() - t0) / 1000);
  copy.close();

  console.log(
    `${name}: ${defs[name].tools.length} tools (${calls.length} write), pristine db ${(statSync(template).size / 1024 / 1024).toFixed(1)} MiB`,
  );
  console.log(
    `  start-up over stdio: ${median(warm).toFixed(0)} ms (db cached), ${cold.toFixed(0)} ms (cold: builds the db)`,
  );
  console.log(
    `  dry-runs/s: in-process ${direct.toFixed(0)}, MCP stdio ${stdioRate.toFixed(0)} (${(direct / stdioRate).toFixed(1)}x slower), MCP HTTP ${httpRate.toFixed(0)} (${(direct / httpRate).toFixed(1)}x slower)`,
  );
}
