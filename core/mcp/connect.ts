import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { resolve } from 'node:path';
import type { ServerConfig } from '../config/schema.js';
import { describeServer } from './server-spec.js';
import { InputError, TransientError } from '../errors.js';

export const CLIENT_INFO = { name: 'mcp-flywheel', version: '0.1.0' };

/** An MCP server that could not be reached or misbehaved in a way that may pass (refused, timed out, closed). */
export class McpServerError extends TransientError {
  override name = 'McpServerError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(`MCP server "${server}": ${message}`);
  }
}

/** An MCP server that trying again cannot help: the command does not exist, the token variable is unset, its listing loops. */
export class McpServerSetupError extends InputError {
  override name = 'McpServerSetupError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(`MCP server "${server}": ${message}`);
  }
}

export interface McpConnection {
  client: Client;
  serverInfo: { name: string; version: string } | undefined;
  protocolVersion: string | undefined;
  stderrTail(): string;
  close(): Promise<void>;
}

/** Connect and initialize within server.timeoutMs; errors name the server and carry its stderr tail. */
export async function connectServer(server: ServerConfig): Promise<McpConnection> {
  let stderr = '';
  const stderrTail = (): string => stderr.slice(-2000).trim();
  let transport: Transport;
  if (server.tools)
    throw new McpServerSetupError(
      server.name,
      `its tools come from the file ${server.tools}: there is no server to connect to`,
    );
  if (server.stdio) {
    const stdio = new StdioClientTransport({
      command: server.stdio.command,
      args: server.stdio.args,
      env: { ...getDefaultEnvironment(), ...server.stdio.env },
      cwd: resolve(server.stdio.cwd ?? '.'),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8000);
    });
    transport = stdio;
  } else {
    const http = server.http!;
    const headers: Record<string, string> = { ...http.headers };
    if (http.bearerTokenEnv) {
      const token = process.env[http.bearerTokenEnv];
      if (!token) {
        throw new McpServerSetupError(
          server.name,
          `environment variable ${http.bearerTokenEnv} (bearer token) is not set on this worker`,
        );
      }
      headers.Authorization = `Bearer ${token}`;
    }
    transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } });
  }

  // The client reports the negotiated protocol version through this hook (HTTP transports need it too).
  let protocolVersion: string | undefined;
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v: string) => {
    protocolVersion = v;
    setVersion?.(v);
  };

  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: server.timeoutMs });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw explain(server, err, stderrTail());
  }
  return {
    client,
    serverInfo: client.getServerVersion(),
    protocolVersion,
    stderrTail,
    close: () => client.close(),
  };
}

export function explain(server: ServerConfig, err: unknown, stderr = ''): McpServerError | McpServerSetupError {
  const e = err as NodeJS.ErrnoException & { code?: unknown };
  const where = describeServer(server);
  const tail = stderr ? `\n--- server stderr (tail) ---\n${stderr}` : '';
  if (e?.code === 'ENOENT' || e?.code === 'EACCES') {
    return new McpServerSetupError(server.name, `failed to start (${where}): ${e.message}${tail}`);
  }
  if (
    e?.code === 'ECONNREFUSED' ||
    /fetch failed|ECONNREFUSED/.test(String(e?.message) + String((e as { cause?: unknown })?.cause))
  ) {
    return new McpServerError(server.name, `connection refused at ${where}${tail}`);
  }
  if (/timed out|timeout/i.test(String(e?.message))) {
    return new McpServerError(server.name, `timed out after ${server.timeoutMs} ms (${where})${tail}`);
  }
  if (/Connection closed/i.test(String(e?.message))) {
    return new McpServerError(server.name, `exited or closed the connection during startup (${where})${tail}`);
  }
  return new McpServerError(server.name, `${e?.message ?? String(err)} (${where})${tail}`);
}
