import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { EntityPools } from './types.js';
import { InputError } from '../errors.js';

/** A read call a domain pack makes to list one entity type of its server. */
export interface PackProbe {
  pool: string;
  tool: string;
  args: Record<string, unknown>;
  /** Where the rows are in structuredContent.result. */
  rows: (result: any) => Array<Record<string, unknown>>;
}

/** A pack probe that failed: the pack's goals cannot draw from that server. Retrying the same call cannot help. */
export class PackProbeError extends InputError {
  override name = 'PackProbeError';
}

/** Run a pack's probes on the connected server and collect its pools. Fails naming the probe that failed. */
export async function runPackProbes(client: Client, probes: PackProbe[]): Promise<EntityPools> {
  const pools: EntityPools = {};
  for (const probe of probes) {
    const res = await client.callTool({ name: probe.tool, arguments: probe.args });
    const content = res.structuredContent as
      { result?: unknown; error?: { code: string; message: string } } | undefined;
    if (res.isError || !content?.result)
      throw new PackProbeError(
        `sampling ${probe.pool} via ${probe.tool} failed: ${content?.error?.code ?? 'no result'} ${content?.error?.message ?? ''}`.trim(),
      );
    pools[probe.pool] = probe.rows(content.result);
  }
  return pools;
}
