import type { ValidateFunction } from 'ajv';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compileSchema } from '../../core/schema/compile.js';
import { Writer, type Change } from './changes.js';
import type { Db } from './db.js';
import { SandboxError, type ErrorCode } from './errors.js';

export interface ToolContext {
  db: Db;
  w: Writer;
  /** The sandbox's fixed "today" (ISO date), so the same call always gives the same answer. */
  today: string;
}

export interface SandboxTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Scopes the caller must hold, all of them. */
  scopes: string[];
  kind: 'read' | 'write' | 'destructive';
  /** Calling twice with the same arguments has no additional effect. Defaults to true for reads. */
  idempotent?: boolean;
  run(args: any, ctx: ToolContext): unknown;
}

export interface SandboxOptions {
  name: string;
  version: string;
  instructions: string;
  tools: SandboxTool[];
  db: Db;
  today: string;
  /** Scopes this server grants; a call's `_meta.scopes` can only narrow them. '*' grants all. */
  scopes: string[];
  maxArgumentBytes?: number;
  pageSize?: number;
}

/** Thrown inside a dry-run transaction to roll it back after the effect was recorded. */
class Rollback extends Error {}

export const DEFAULT_MAX_ARGUMENT_BYTES = 64 * 1024;

/** Everything a server needs per tool, compiled once. */
export interface CompiledSandbox {
  options: SandboxOptions;
  tools: Map<string, { tool: SandboxTool; validate: ValidateFunction }>;
}

export function compileSandbox(options: SandboxOptions): CompiledSandbox {
  const tools = new Map<string, { tool: SandboxTool; validate: ValidateFunction }>();
  for (const tool of options.tools) {
    const compiled = compileSchema(tool.inputSchema);
    if (!compiled.ok)
      throw new Error(`sandbox ${options.name}: tool ${tool.name} has an invalid inputSchema: ${compiled.error}`);
    tools.set(tool.name, { tool, validate: compiled.validate });
  }
  return { options, tools };
}

export function toolListing(tool: SandboxTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: {
      title: tool.title,
      readOnlyHint: tool.kind === 'read',
      destructiveHint: tool.kind === 'destructive',
      idempotentHint: tool.idempotent ?? tool.kind === 'read',
      openWorldHint: false,
    },
    _meta: { scopes: tool.scopes, dryRun: tool.kind !== 'read' },
  };
}

function errorResult(code: ErrorCode, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error: { code, message, details } },
  };
}

function okResult(payload: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
}

/**
 * Run one tools/call: size limit, strict schema validation (no coercion), scope check, then the tool in a
 * transaction. With `_meta.dryRun: true` the transaction is always rolled back and the result lists the
 * rows that would have changed. Every failure is an isError result; nothing a caller sends crashes the server.
 */
export function callTool(
  sb: CompiledSandbox,
  name: string,
  args: unknown,
  meta: Record<string, unknown> | undefined,
): CallToolResult {
  const { options } = sb;
  try {
    const entry = sb.tools.get(name);
    if (!entry)
      return errorResult('UNKNOWN_TOOL', `no tool named ${JSON.stringify(name)} in the ${options.name} sandbox`);
    const { tool, validate } = entry;
    const input = args ?? {};
    const size = Buffer.byteLength(JSON.stringify(input));
    const limit = options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
    if (size > limit)
      return errorResult('PAYLOAD_TOO_LARGE', `arguments are ${size} bytes; the limit is ${limit}`, {
        bytes: size,
        limit,
      });
    if (!validate(input)) {
      const problems = (validate.errors ?? []).map(
        (e) =>
          `${e.instancePath || '(arguments)'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
      );
      return errorResult('INVALID_ARGUMENTS', problems.join('; '), { errors: problems });
    }
    const granted = grantedScopes(options.scopes, meta);
    const missing = tool.scopes.filter((s) => !granted.has('*') && !granted.has(s));
    if (missing.length > 0) {
      return errorResult('INSUFFICIENT_SCOPE', `${tool.name} requires scope ${missing.join(', ')}`, {
        required: tool.scopes,
        missing,
      });
    }
    const dryRun = meta?.dryRun === true;
    const w = new Writer(options.db);
    const ctx: ToolContext = { db: options.db, w, today: options.today };
    let result: unknown;
    let changes: Change[] = [];
    try {
      options.db.transaction(() => {
        result = tool.run(input, ctx);
        changes = w.changes;
        if (dryRun) throw new Rollback();
      })();
    } catch (err) {
      if (!(err instanceof Rollback)) throw err;
    }
    if (dryRun) return okResult({ dryRun: true, result: result ?? null, wouldChange: changes });
    return okResult({ result: result ?? null, ...(tool.kind === 'read' ? {} : { changes }) });
  } catch (err) {
    if (err instanceof SandboxError) return errorResult(err.code, err.message, err.details);
    return errorResult('INTERNAL_ERROR', `${name} failed unexpectedly: ${(err as Error).message}`);
  }
}

function grantedScopes(serverScopes: string[], meta: Record<string, unknown> | undefined): Set<string> {
  const server = new Set(serverScopes);
  const asked = meta?.scopes;
  if (!Array.isArray(asked)) return server;
  const narrowed = asked.filter((s): s is string => typeof s === 'string' && (server.has('*') || server.has(s)));
  return new Set(narrowed);
}

/** A fresh MCP Server over a compiled sandbox (one per session/request; they share the database). */
export function createMcpServer(sb: CompiledSandbox): Server {
  const { options } = sb;
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} }, instructions: options.instructions },
  );
  const listing = options.tools.map(toolListing);
  const pageSize = options.pageSize ?? 10;
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const cursor = req.params?.cursor;
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0 || start > listing.length)
      throw new Error(`invalid cursor ${JSON.stringify(cursor)}`);
    const next = start + pageSize;
    return {
      tools: listing.slice(start, next) as never,
      ...(next < listing.length ? { nextCursor: String(next) } : {}),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req) =>
    callTool(sb, req.params.name, req.params.arguments, req.params._meta as Record<string, unknown> | undefined),
  );
  return server;
}
