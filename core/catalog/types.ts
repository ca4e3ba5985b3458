/** One tool as the catalog keeps it: what the MCP server said, plus where it came from. */
export interface CatalogTool {
  /** `<server>/<name>`: unique within a catalog. */
  id: string;
  server: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  /** RBAC scopes the tool requires, read from `_meta.scopes` (string[]). Empty when the server declares none. */
  scopes: string[];
}

export type QuarantineCode =
  'invalid_tool' | 'duplicate_name' | 'input_schema_compile_error' | 'output_schema_compile_error';

export interface QuarantinedTool {
  server: string;
  name: string | null;
  code: QuarantineCode;
  reason: string;
  /** The tool exactly as listed, so an operator can see what was wrong. */
  raw: unknown;
}

/** Where a tools-file server's tools came from (core/catalog/tools-file.ts). */
export interface ToolsFileSource {
  /** As the config names it. */
  path: string;
  format:
    'openai-tools' | 'openai-functions' | 'mcp-tools-list' | 'anthropic-tools' | 'bfcl-functions' | 'bfcl-questions';
  /** Of the file's bytes: the catalog's version changes with it. */
  sha256: string;
  /** Tool entries read, before identical repeats were collapsed. */
  entries: number;
  /** Identical repeats of a tool kept once. */
  collapsed: number;
  /** Tools that share a name with an earlier, different one, and the name they were given. */
  renamed: Array<{ from: string; to: string; where: string }>;
}

/** What one server listed, before any checking. Stored as the `server-tools` artifact. */
export interface ServerSnapshot {
  server: string;
  serverInfo?: { name: string; version: string };
  protocolVersion?: string;
  pages: number;
  tools: unknown[];
  /** Set when the tools came from a file, not a live server. */
  source?: ToolsFileSource;
}

export interface Catalog {
  name: string;
  servers: Array<{
    name: string;
    serverInfo?: { name: string; version: string };
    /** A tools-file server: the file's format and hash (no server to call). */
    toolsFile?: { format: ToolsFileSource['format']; sha256: string };
    tools: number;
    quarantined: number;
  }>;
  tools: CatalogTool[];
  quarantined: QuarantinedTool[];
}

export interface CatalogDiff {
  from: string | null;
  to: string;
  added: string[];
  removed: string[];
  changed: Array<{ id: string; fields: string[] }>;
}
