import type { PackProbe } from '../probe/pack-probes.js';
import type { Goal } from './types.js';

/**
 * A domain pack: hand-written knowledge of one MCP server that refines the generic path. Its goals replace
 * the generic ones for the tools they cover (every other tool still gets generic intents), its personas
 * replace the ones derived from scopes, its asks join the generic unsatisfiable ones. Packs are matched by the
 * server's own name (serverInfo.name), so a server configured under any name gets its pack. The worker hands them
 * to the dataset stages: the sandboxes' packs (sandboxes/<name>/pack.ts) and any a user loads with
 * `flywheel worker --packs FILE` (workers/packs.ts).
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
  /**
   * Keys the memo of the stages that read the pack (intents, corrupt): change it whenever the pack changes, as a
   * stage's version. A pack's goals are code, so its content cannot be hashed. The packs shipped here have none:
   * they change with the stages' own versions.
   */
  version?: string;
}

/** The pack for a server, by its serverInfo.name. */
export function packFor(packs: readonly DomainPack[], serverInfoName: string | undefined): DomainPack | undefined {
  return serverInfoName ? packs.find((p) => p.server === serverInfoName) : undefined;
}

/**
 * What keys a stage's memo besides its table entry: the version of each pack that matches one of the run's
 * servers (by serverInfo.name) and declares one, by server. Empty when none does, so a run on the shipped packs
 * keeps its keys.
 */
export function packVersions(
  packs: readonly DomainPack[],
  serverInfoNames: ReadonlyArray<string | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of serverInfoNames) {
    const pack = packFor(packs, name);
    if (pack?.version !== undefined) out[pack.server] = pack.version;
  }
  return out;
}
