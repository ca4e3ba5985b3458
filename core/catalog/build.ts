import { compileSchema } from '../schema/compile.js';
import type { Catalog, CatalogTool, QuarantinedTool, ServerSnapshot } from './types.js';

/** What a tool name may be (MCP's own rule): 1-128 of letters, digits, `_`, `.` and `-`. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Check one listed tool. Returns the catalog entry or the reason it is quarantined. */
export function checkTool(server: string, raw: unknown): CatalogTool | QuarantinedTool {
  const q = (code: QuarantinedTool['code'], reason: string, name: string | null = null): QuarantinedTool => ({
    server,
    name,
    code,
    reason,
    raw,
  });
  if (!isObject(raw)) return q('invalid_tool', 'tool is not a JSON object');
  const name = typeof raw.name === 'string' ? raw.name : null;
  if (!name) return q('invalid_tool', 'tool has no string "name"');
  if (!TOOL_NAME_RE.test(name))
    return q('invalid_tool', `tool name ${JSON.stringify(name)} is not 1-128 of [A-Za-z0-9_.-]`, name);
  const input = raw.inputSchema;
  if (!isObject(input)) return q('invalid_tool', 'inputSchema is missing or not an object', name);
  if (input.type !== 'object')
    return q('invalid_tool', `inputSchema.type must be "object", got ${JSON.stringify(input.type)}`, name);
  const compiled = compileSchema(input);
  if (!compiled.ok) return q('input_schema_compile_error', compiled.error, name);
  if (raw.outputSchema !== undefined) {
    if (!isObject(raw.outputSchema)) return q('invalid_tool', 'outputSchema is not an object', name);
    const out = compileSchema(raw.outputSchema);
    if (!out.ok) return q('output_schema_compile_error', out.error, name);
  }
  const meta = isObject(raw._meta) ? raw._meta : undefined;
  const scopes = Array.isArray(meta?.scopes) ? meta.scopes.filter((s): s is string => typeof s === 'string') : [];
  return {
    id: `${server}/${name}`,
    server,
    name,
    ...(typeof raw.title === 'string' ? { title: raw.title } : {}),
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    inputSchema: input,
    ...(isObject(raw.outputSchema) ? { outputSchema: raw.outputSchema } : {}),
    ...(isObject(raw.annotations) ? { annotations: raw.annotations } : {}),
    ...(meta ? { _meta: meta } : {}),
    scopes: [...new Set(scopes)].sort(),
  };
}

/**
 * Merge server snapshots into one catalog. Deterministic: the same listings give the same catalog bytes,
 * so the catalog's sha256 is its version.
 */
export function buildCatalog(name: string, snapshots: ServerSnapshot[]): Catalog {
  const tools: CatalogTool[] = [];
  const quarantined: QuarantinedTool[] = [];
  const servers: Catalog['servers'] = [];
  for (const snap of [...snapshots].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    const seen = new Set<string>();
    let kept = 0;
    let bad = 0;
    for (const raw of snap.tools) {
      const checked = checkTool(snap.server, raw);
      if ('code' in checked) {
        quarantined.push(checked);
        bad++;
      } else if (seen.has(checked.name)) {
        quarantined.push({
          server: snap.server,
          name: checked.name,
          code: 'duplicate_name',
          reason: 'listed more than once by this server',
          raw,
        });
        bad++;
      } else {
        seen.add(checked.name);
        tools.push(checked);
        kept++;
      }
    }
    servers.push({
      name: snap.server,
      ...(snap.serverInfo ? { serverInfo: snap.serverInfo } : {}),
      ...(snap.source ? { toolsFile: { format: snap.source.format, sha256: snap.source.sha256 } } : {}),
      tools: kept,
      quarantined: bad,
    });
  }
  tools.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { name, servers, tools, quarantined };
}

/** Counts for manifests and the CLI summary. */
export function catalogStats(catalog: Catalog): Record<string, unknown> {
  const byCode: Record<string, number> = {};
  for (const q of catalog.quarantined) byCode[q.code] = (byCode[q.code] ?? 0) + 1;
  const names = new Map<string, number>();
  for (const t of catalog.tools) names.set(t.name, (names.get(t.name) ?? 0) + 1);
  return {
    tools: catalog.tools.length,
    quarantined: catalog.quarantined.length,
    quarantinedByCode: byCode,
    toolsByServer: Object.fromEntries(catalog.servers.map((s) => [s.name, s.tools])),
    /** Tool names offered by more than one server: the router sees only the name, so these are ambiguous. */
    crossServerNameCollisions: [...names].filter(([, n]) => n > 1).map(([n]) => n),
    ...(catalog.servers.some((s) => s.toolsFile)
      ? {
          toolsFiles: Object.fromEntries(
            catalog.servers.flatMap((s) => (s.toolsFile ? [[s.name, s.toolsFile.format]] : [])),
          ),
        }
      : {}),
  };
}
