import type { CatalogTool } from '../catalog/types.js';
import { PROBE_DEFAULTS, type ServerConfig } from '../config/schema.js';
import type { McpConnection } from '../mcp/connect.js';
import { callModeFor, probeSettingsOf } from '../probe/call-mode.js';
import type { DryRunner, DryRunResult } from './validate.js';

type Counts = Record<NonNullable<DryRunResult['checkedBy']>, number>;

/**
 * Checks calls through live MCP connections, keyed by server name, as `callMode` allows: a dry-run where the
 * tool declares support, a real call where it is read-only (or listed in the server's probe.allow), and
 * nothing otherwise (`schema`), so validation never writes to a real system. `counts` says how many calls
 * were checked each way; `skipped` is the schema-only count.
 */
export function mcpDryRunner(
  connections: Map<string, McpConnection>,
  servers: ServerConfig[] = [],
): DryRunner & { skipped: number; counts: Counts } {
  const modeOf = callModeFor(servers);
  // A call with no answer within the server's probe.callTimeoutMs is a rejection that says so, not a hung stage.
  const timeout = new Map(servers.map((s) => [s.name, probeSettingsOf(s).callTimeoutMs]));
  // A tool that hung once is not waited for again, and a server that closed the connection during a call is
  // not called again: their remaining checks are rejections that say why, not one timeout each or a stage
  // that fails the same way on every retry.
  const hung = new Map<string, string>();
  const closed = new Map<string, string>();
  const runner = Object.assign(
    async (tool: CatalogTool, args: Record<string, unknown>, scopes: string[]): Promise<DryRunResult> => {
      const { mode, why } = modeOf(tool);
      runner.counts[mode]++;
      if (mode === 'schema') {
        runner.skipped += 1;
        return { ok: true, checkedBy: 'schema', message: `not called: ${why}` };
      }
      const conn = connections.get(tool.server);
      if (!conn) return { ok: false, checkedBy: mode, message: `no connection to server ${tool.server}` };
      const gone = closed.get(tool.server) ?? hung.get(tool.id);
      if (gone) return { ok: false, checkedBy: mode, message: gone };
      let res;
      const ms = timeout.get(tool.server) ?? PROBE_DEFAULTS.callTimeoutMs;
      try {
        res = await conn.client.callTool(
          { name: tool.name, arguments: args, _meta: mode === 'dry-run' ? { dryRun: true, scopes } : { scopes } },
          undefined,
          { timeout: ms },
        );
      } catch (err) {
        const message = (err as Error).message ?? String(err);
        if (/connection closed|not connected/i.test(message))
          closed.set(tool.server, `server ${tool.server} closed the connection during a call of ${tool.name}`);
        else if (/timed out|timeout/i.test(message))
          hung.set(tool.id, `no answer within ${ms} ms (the tool hung on an earlier check)`);
        return {
          ok: false,
          checkedBy: mode,
          message:
            closed.get(tool.server) ?? (/timed out|timeout/i.test(message) ? `no answer within ${ms} ms` : message),
        };
      }
      if (!res.isError) return { ok: true, checkedBy: mode };
      const error = (res.structuredContent as { error?: { code?: string; message?: string } } | undefined)?.error;
      const text = Array.isArray(res.content)
        ? res.content.map((c) => (c as { text?: string }).text ?? '').join(' ')
        : '';
      return {
        ok: false,
        checkedBy: mode,
        ...(error?.code ? { code: error.code } : {}),
        message: error?.message ?? text,
      };
    },
    { skipped: 0, counts: { execute: 0, 'dry-run': 0, schema: 0 } as Counts },
  );
  return runner;
}
