import type { PackProbe } from '../probe/pack-probes.js';
import type { Goal } from './types.js';

/**
 * A domain pack: hand-written knowledge of one MCP server that refines the generic path. Its goals replace
 * the generic ones for the tools they cover (every other tool still gets generic intents), its personas
 * replace the ones derived from scopes, its asks join the generic unsatisfiable ones. Packs live beside the
 * server they describe (sandboxes/<name>/pack.ts) and are matched by the server's own name
 * (serverInfo.name), so a sandbox configured under any name gets its pack.
 */
export interface DomainPack {
  /** serverInfo.name of the server this pack describes. */
  server: string;
  goals: Goal[];
  /** Who asks, by scopes (the domain is the config's server name, filled in when used). */
  personas: Array<{ name: string; scopes: string[] }>;
  /** Requests phrased close to this server's tools that none of them can serve. */
  unsatisfiable: string[];
  /** Read calls that list each entity type the goals draw from (limit: rows per call). */
  probes(limit: number): PackProbe[];
}

/** The pack for a server, by its serverInfo.name. */
export function packFor(packs: readonly DomainPack[], serverInfoName: string | undefined): DomainPack | undefined {
  return serverInfoName ? packs.find((p) => p.server === serverInfoName) : undefined;
}
