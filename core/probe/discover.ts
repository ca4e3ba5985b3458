import type { Catalog } from '../catalog/types.js';
import type { ServerConfig } from '../config/schema.js';
import { packFor, type DomainPack } from '../dataset/packs.js';
import type { McpConnection } from '../mcp/connect.js';
import { callMode, probeSettingsOf } from './call-mode.js';
import { PackProbeError, runPackProbes } from './pack-probes.js';
import { probeServer } from './probe.js';
import type { DomainPools, EntityPools } from './types.js';

/**
 * Entity pools for every server of the catalog: a domain pack's own probes, then the generic probe over the
 * tools no pack goal covers, unless the server says `probe: false`. A pack whose probes cannot run (a tool
 * missing from the catalog or not safe to call, an error result) is set aside with the reason, recorded on
 * the pools, and every tool of that server takes the generic path instead.
 */
export async function discoverPools(
  conns: Map<string, McpConnection>,
  servers: ServerConfig[],
  catalog: Catalog,
  packs: readonly DomainPack[],
  seed: string | number,
  onProgress?: (details: { server: string; tool?: string }) => void,
): Promise<Record<string, DomainPools>> {
  const pools: Record<string, DomainPools> = {};
  for (const server of servers) {
    if (!catalog.servers.some((s) => s.name === server.name)) continue;
    const tools = catalog.tools.filter((t) => t.server === server.name);
    if (server.tools) {
      // Tools from a file: nothing to call, so values come from sampling each tool's schema.
      pools[server.name] = {
        harvested: {},
        probes: tools.map((t) => skipped(t.name, 'no server to call (a tools file)')),
      };
      continue;
    }
    const conn = conns.get(server.name);
    if (!conn) continue;
    onProgress?.({ server: server.name });
    const pack = packFor(packs, conn.serverInfo?.name);
    let packPools: EntityPools | undefined;
    let packNote: string | undefined;
    if (pack && server.probe === false) packNote = `domain pack ${pack.server} not used: probe: false for this server`;
    else if (pack) {
      const probes = pack.probes(200);
      const unsafe = probes.find((p) => {
        const t = tools.find((x) => x.name === p.tool);
        return !t || callMode(t).mode !== 'execute';
      });
      if (unsafe)
        packNote = `domain pack ${pack.server} not used: its probe tool ${unsafe.tool} is not a read-only tool of this server`;
      else {
        try {
          packPools = await runPackProbes(conn.client, probes);
        } catch (err) {
          if (!(err instanceof PackProbeError)) throw err;
          packNote = `domain pack ${pack.server} not used: ${err.message}`;
        }
      }
    }
    const covered = new Set(packPools ? pack!.goals.map((g) => g.tool) : []);
    const rest = tools.filter((t) => !covered.has(t.name));
    const found =
      server.probe === false
        ? { harvested: {}, probes: rest.map((t) => skipped(t.name, 'probe: false for this server')) }
        : await probeServer(conn.client, rest, probeSettingsOf(server), seed, (tool) =>
            onProgress?.({ server: server.name, tool }),
          );
    pools[server.name] = { ...(packPools ? { pack: packPools } : {}), ...(packNote ? { packNote } : {}), ...found };
  }
  return pools;
}

function skipped(tool: string, detail: string) {
  return { tool, status: 'skipped' as const, calls: 0, values: 0, detail };
}
