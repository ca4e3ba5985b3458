import { z } from 'zod';
import type { ServerConfig } from '../config/schema.js';
import { connectServer, explain, McpServerSetupError } from '../mcp/connect.js';
import { readToolsFile, toolsFileSnapshot } from './tools-file.js';
import type { ServerSnapshot } from './types.js';

// Deliberately loose: each tool is checked one by one later, so one malformed tool is quarantined
// instead of failing the whole listing (the SDK's own listTools would reject the page).
const looseListResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

export interface ListProgress {
  server: string;
  page: number;
  tools: number;
}

/**
 * Connect to one server and page through tools/list, following nextCursor up to maxPages; a `tools` server's
 * file is read instead, as one page.
 */
export async function listServerTools(
  server: ServerConfig,
  opts: { maxPages: number; onPage?: (p: ListProgress) => void },
): Promise<ServerSnapshot> {
  if (server.tools) {
    const snapshot = toolsFileSnapshot(server.name, await readToolsFile(server.tools));
    opts.onPage?.({ server: server.name, page: 1, tools: snapshot.tools.length });
    return snapshot;
  }
  const conn = await connectServer(server);
  try {
    const tools: unknown[] = [];
    const seenCursors = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages >= opts.maxPages) {
        throw new McpServerSetupError(
          server.name,
          `tools/list did not finish within catalog.maxPages=${opts.maxPages} pages`,
        );
      }
      let page;
      try {
        page = await conn.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, looseListResult, {
          timeout: server.timeoutMs,
        });
      } catch (err) {
        throw explain(server, err, conn.stderrTail());
      }
      pages += 1;
      tools.push(...page.tools);
      opts.onPage?.({ server: server.name, page: pages, tools: tools.length });
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seenCursors.has(cursor)) {
          throw new McpServerSetupError(
            server.name,
            `tools/list returned cursor ${JSON.stringify(cursor)} twice (pagination loop)`,
          );
        }
        seenCursors.add(cursor);
      }
    } while (cursor !== undefined);
    return {
      server: server.name,
      ...(conn.serverInfo ? { serverInfo: { name: conn.serverInfo.name, version: conn.serverInfo.version } } : {}),
      ...(conn.protocolVersion ? { protocolVersion: conn.protocolVersion } : {}),
      pages,
      tools,
    };
  } finally {
    await conn.close().catch(() => undefined);
  }
}
