import type { CatalogTool } from '../catalog/types.js';
import { PROBE_DEFAULTS, type ProbeConfig, type ServerConfig } from '../config/schema.js';

/**
 * How the flywheel may touch a tool, by what it declares. `execute`: call it for real (read-only, or listed
 * by the operator); `dry-run`: call it with `_meta.dryRun` (the server promises to roll back); `schema`:
 * never call it, check arguments against the schema only. Nothing that may write is ever executed unless
 * the operator listed it.
 */
export type CallMode = 'execute' | 'dry-run' | 'schema';

export function callMode(tool: CatalogTool, allow: readonly string[] = []): { mode: CallMode; why: string } {
  if (allow.includes(tool.name)) return { mode: 'execute', why: "listed in the server's probe.allow" };
  if (tool._meta?.dryRun === true)
    return { mode: 'dry-run', why: 'the server declares dry-run support (_meta.dryRun)' };
  if (tool.annotations?.readOnlyHint !== true)
    return {
      mode: 'schema',
      why: `may write (readOnlyHint ${tool.annotations?.readOnlyHint === false ? 'false' : 'not set'}) and declares no dry-run`,
    };
  // Open-world tools reach systems outside the server (the web, email): not ours to call while building data.
  // The MCP spec's default for openWorldHint is true, so only an explicit false counts as closed.
  if (tool.annotations?.openWorldHint !== false)
    return {
      mode: 'schema',
      why: `read-only but open-world (openWorldHint ${tool.annotations?.openWorldHint === true ? 'true' : 'not false; the MCP default is true'})`,
    };
  return { mode: 'execute', why: 'read-only (readOnlyHint: true)' };
}

/** A server's probe settings with the defaults filled in (also when it says `probe: false`: its timeout still applies). */
export function probeSettingsOf(server: ServerConfig): ProbeConfig {
  return { ...PROBE_DEFAULTS, ...(server.probe || {}) };
}

/** callMode for tools of these servers, each with its own probe.allow; a `tools` file's tools are never called. */
export function callModeFor(servers: ServerConfig[]): (tool: CatalogTool) => { mode: CallMode; why: string } {
  const allow = new Map(servers.map((s) => [s.name, probeSettingsOf(s).allow]));
  const files = new Set(servers.filter((s) => s.tools).map((s) => s.name));
  return (tool) =>
    files.has(tool.server)
      ? { mode: 'schema', why: 'listed in a tools file: there is no server to call' }
      : callMode(tool, allow.get(tool.server) ?? []);
}
