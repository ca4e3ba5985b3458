/**
 * The live sandboxes (salesforce, oracle-ebs) as the teacher tests use them: their catalog and tools by domain,
 * the intents a dataset config draws from them, and a teacher's candidates validated against them (dry-runs
 * included). One connection per sandbox for the whole suite.
 */
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import type { DatasetConfig, ServerConfig } from '../../core/config/schema.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { buildIntents, validateCandidates } from '../../core/dataset/pipeline.js';
import type { Candidate } from '../../core/dataset/teacher/types.js';
import type { Intent } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { connectServer, type McpConnection } from '../../core/mcp/connect.js';
import { discoverPools } from '../../core/probe/discover.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';
import { REPO } from './fixtures.js';
import { sandboxMain } from './sandbox.js';

export interface SandboxWorld {
  catalog: Catalog;
  toolsByDomain: Map<string, Catalog['tools']>;
  intents(dataset: DatasetConfig): Promise<Intent[]>;
  validate(intents: Intent[], candidates: Candidate[], dataset: DatasetConfig): ReturnType<typeof validateCandidates>;
  close(): Promise<void>;
}

export async function openSandboxWorld(): Promise<SandboxWorld> {
  const servers: ServerConfig[] = (['salesforce', 'oracle-ebs'] as const).map((d) => ({
    name: d,
    stdio: { command: process.execPath, args: ['--import', 'tsx', sandboxMain(d)], env: {}, cwd: REPO },
    timeoutMs: 20_000,
  }));
  const catalog = buildCatalog('t', await Promise.all(servers.map((s) => listServerTools(s, { maxPages: 10 }))));
  const conns = new Map<string, McpConnection>();
  for (const s of servers) conns.set(s.name, await connectServer(s));
  const pools = await discoverPools(conns, servers, catalog, DOMAIN_PACKS, 42);
  return {
    catalog,
    toolsByDomain: new Map(catalog.servers.map((s) => [s.name, catalog.tools.filter((t) => t.server === s.name)])),
    intents: async (dataset) => (await buildIntents(catalog, dataset, pools, DOMAIN_PACKS)).intents,
    validate: (intents, candidates, dataset) =>
      validateCandidates(intents, candidates, catalog, new CallValidator(catalog, mcpDryRunner(conns)), dataset),
    close: async () => {
      for (const c of conns.values()) await c.close();
    },
  };
}
