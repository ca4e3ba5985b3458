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

/** What one server listed, before any checking. Stored as the `server-tools` artifact. */
export interface ServerSnapshot {
  server: string;
  serverInfo?: { name: string; version: string };
  protocolVersion?: string;
  pages: number;
  tools: unknown[];
}

export interface Catalog {
  name: string;
  servers: Array<{ name: string; serverInfo?: { name: string; version: string }; tools: number; quarantined: number }>;
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
