import type { Catalog } from '../catalog/types.js';
import { PROBE_DEFAULTS, type ServerConfig } from '../config/schema.js';
import { packFor, type DomainPack } from '../dataset/packs.js';
import type { McpConnection } from '../mcp/connect.js';
import { runPackProbes } from './pack-probes.js';
import { probeServer } from './probe.js';
import type { DomainPools } from './types.js';

/**
 * Entity pools for every server of the catalog: a domain pack's own probes (a failing one fails the call:
 * the pack is wrong, retrying will not help), then the generic probe over the tools no pack goal covers,
 * unless the server says `probe: false`.
 */
export async function discoverPools(conns: Map<string, McpConnection>, servers: ServerConfig[], catalog: Catalog, packs: readonly DomainPack[], seed: string | number, onServer?: (name: string) => void): Promise<Record<string, DomainPools>> {
  const pools: Record<string, DomainPools> = {};
  for (const server of servers) {
    const conn = conns.get(server.name);
    if (!conn || !catalog.servers.some((s) => s.name === server.name)) continue;
    onServer?.(server.name);
    const pack = packFor(packs, conn.serverInfo?.name);
    const packPools = pack ? await runPackProbes(conn.client, pack.probes(200)) : undefined;
    const covered = new Set(pack?.goals.map((g) => g.tool) ?? []);
    const rest = catalog.tools.filter((t) => t.server === server.name && !covered.has(t.name));
    const found = server.probe === false
      ? { harvested: {}, probes: rest.map((t) => ({ tool: t.name, status: 'skipped' as const, calls: 0, values: 0, detail: 'probe: false for this server' })) }
      : await probeServer(conn.client, rest, { ...PROBE_DEFAULTS, ...server.probe }, seed);
    pools[server.name] = { ...(packPools ? { pack: packPools } : {}), ...found };
  }
  return pools;
}
