import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO, spawnListening } from './fixtures.js';

export type SandboxName = 'salesforce' | 'oracle-ebs';

export function sandboxMain(name: SandboxName): string {
  return join(REPO, 'sandboxes', name, 'main.ts');
}

export interface Sandbox {
  client: Client;
  /** Call a tool; returns the structured result and whether it was an error. */
  call(
    name: string,
    args: unknown,
    meta?: Record<string, unknown>,
  ): Promise<{
    isError: boolean;
    result: any;
    error: { code: string; message: string; details: any } | undefined;
    content: any;
  }>;
  close(): Promise<void>;
}

function wrap(client: Client, close: () => Promise<void>): Sandbox {
  return {
    client,
    async call(name, args, meta) {
      const res = await client.callTool({
        name,
        arguments: args as Record<string, unknown>,
        ...(meta ? { _meta: meta } : {}),
      });
      const content = res.structuredContent as any;
      return { isError: Boolean(res.isError), result: content?.result, error: content?.error, content };
    },
    close,
  };
}

/** The sandbox over stdio, as a real MCP client sees it. */
export async function stdioSandbox(name: SandboxName, args: string[] = []): Promise<Sandbox> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', sandboxMain(name), ...args],
      cwd: REPO,
      stderr: 'ignore',
    }),
  );
  return wrap(client, () => client.close());
}

/** Start the sandbox over Streamable HTTP on a free port; returns its URL and the process. */
export async function startHttpSandbox(
  name: SandboxName,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; proc: ChildProcess; stop: () => Promise<void> }> {
  const { match, proc, stop } = await spawnListening(
    ['--import', 'tsx', sandboxMain(name), '--transport', 'http', '--port', '0', ...args],
    /listening (http:\/\/\S+)/,
    { ...process.env, ...env },
  );
  return { url: match[1]!, proc, stop };
}

export async function httpSandbox(url: string, headers: Record<string, string> = {}): Promise<Sandbox> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return wrap(client, () => client.close());
}

/** Every tool, following nextCursor (the sandboxes page tools/list by 10). */
export async function listAllTools(client: Client) {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * ok()/err() for table-driven tool tests: ok asserts success and returns the result; err asserts the
 * error code and records it in `seen`, so a suite can check it exercised every code it should.
 */
export function expectations(get: () => Sandbox, seen: Set<string>) {
  return {
    async ok(tool: string, args: unknown, meta?: Record<string, unknown>): Promise<any> {
      const r = await get().call(tool, args, meta);
      assert.equal(r.isError, false, `${tool} failed: ${JSON.stringify(r.error)}`);
      return r.result;
    },
    async err(tool: string, args: unknown, code: string, meta?: Record<string, unknown>) {
      const r = await get().call(tool, args, meta);
      assert.equal(r.isError, true, `${tool} unexpectedly succeeded: ${JSON.stringify(r.result)?.slice(0, 200)}`);
      assert.equal(r.error?.code, code, `${tool}: expected ${code}, got ${r.error?.code}: ${r.error?.message}`);
      seen.add(code);
      return r.error!;
    },
  };
}
