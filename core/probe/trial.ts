import type { ServerConfig } from '../config/schema.js';
import type { CatalogTool } from '../catalog/types.js';
import type { McpConnection } from '../mcp/connect.js';
import { callModeFor, probeSettingsOf } from './call-mode.js';

/**
 * Trial calls for drawn arguments, on tools validation will execute anyway (read-only or listed): true unless
 * the server answers with an error. A tool that times out or breaks the connection once is not tried again
 * (its intents keep their first draw), so a hanging tool costs one timeout, not one per intent.
 */
export function trialCaller(
  conns: Map<string, McpConnection>,
  servers: ServerConfig[],
  onCall?: (calls: number) => void,
): (tool: CatalogTool, args: Record<string, unknown>) => Promise<boolean> {
  let calls = 0;
  const config = new Map(servers.map((s) => [s.name, s]));
  const modeOf = callModeFor(servers);
  const broken = new Set<string>();
  return async (tool, args) => {
    const server = config.get(tool.server);
    const conn = conns.get(tool.server);
    if (!server || !conn || server.probe === false || broken.has(tool.id)) return true;
    if (modeOf(tool).mode !== 'execute') return true;
    onCall?.(++calls);
    try {
      const res = await conn.client.callTool({ name: tool.name, arguments: args }, undefined, {
        timeout: probeSettingsOf(server).callTimeoutMs,
      });
      return !res.isError;
    } catch {
      broken.add(tool.id);
      return true;
    }
  };
}
