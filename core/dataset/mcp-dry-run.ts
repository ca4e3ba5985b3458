import type { CatalogTool } from '../catalog/types.js';
import type { McpConnection } from '../mcp/connect.js';
import type { DryRunner, DryRunResult } from './validate.js';

/**
 * Dry-runs through live MCP connections, keyed by server name. Only tools that declare dry-run support
 * (`_meta.dryRun: true`, as the sandboxes do) or are read-only are called; anything else is never executed
 * here and comes back `skipped`, so validation can never write to a real system.
 */
export function mcpDryRunner(connections: Map<string, McpConnection>): DryRunner & { skipped: number } {
  const runner = Object.assign(
    async (tool: CatalogTool, args: Record<string, unknown>, scopes: string[]): Promise<DryRunResult> => {
      const safe = tool._meta?.dryRun === true || tool.annotations?.readOnlyHint === true;
      if (!safe) {
        runner.skipped += 1;
        return { ok: true, message: 'not dry-run checked: the tool declares no dry-run support' };
      }
      const conn = connections.get(tool.server);
      if (!conn) return { ok: false, message: `no connection to server ${tool.server}` };
      const res = await conn.client.callTool({ name: tool.name, arguments: args, _meta: { dryRun: true, scopes } });
      if (!res.isError) return { ok: true };
      const error = (res.structuredContent as { error?: { code?: string; message?: string } } | undefined)?.error;
      const text = Array.isArray(res.content) ? res.content.map((c) => (c as { text?: string }).text ?? '').join(' ') : '';
      return { ok: false, ...(error?.code ? { code: error.code } : {}), message: error?.message ?? text };
    },
    { skipped: 0 },
  );
  return runner;
}
