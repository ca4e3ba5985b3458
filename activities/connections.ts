import type { ServerConfig } from '../core/config/schema.js';
import { connectServer, type McpConnection } from '../core/mcp/connect.js';

/** Connect to every server (in parallel), run fn, always close them: sandboxes spawned here die with it. */
export async function withConnections<T>(servers: ServerConfig[], fn: (conns: Map<string, McpConnection>) => Promise<T>): Promise<T> {
  const conns = new Map<string, McpConnection>();
  try {
    const opened = await Promise.all(servers.map(async (s) => [s.name, await connectServer(s)] as const));
    for (const [name, c] of opened) conns.set(name, c);
    return await fn(conns);
  } finally {
    await Promise.all([...conns.values()].map((c) => c.close().catch(() => undefined)));
  }
}
