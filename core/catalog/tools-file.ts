/**
 * A catalog server from a file instead of a live MCP server (`servers[]: {name, tools: PATH}`): the tools an
 * agent's code lists for OpenAI, a `tools/list` dump, or BFCL's function docs. The format is detected from the
 * file's shape and reported. A file is all or nothing: any bad entry fails the whole file with every problem
 * named by file, entry and field, so nothing is half ingested.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../errors.js';
import { compileSchema } from '../schema/compile.js';
import { canonicalJson, sha256Hex } from '../hash.js';
import { bfclParametersToJsonSchema, isBfclParameters } from './bfcl-types.js';
import { isObject, TOOL_NAME_RE } from './build.js';
import type { CatalogTool, ServerSnapshot, ToolsFileSource } from './types.js';

export type ToolsFileFormat = ToolsFileSource['format'];

/** What each format looks like, for messages. */
export const TOOLS_FILE_FORMATS: Record<ToolsFileFormat, string> = {
  'openai-tools':
    'an OpenAI tools array ([{type: "function", function: {name, description, parameters}}]), or a request body holding one',
  'openai-functions': 'OpenAI function definitions: [{name, description, parameters}] with JSON Schema parameters',
  'mcp-tools-list': 'an MCP tools/list result ({tools: [{name, description, inputSchema}]}), or several (pages)',
  'anthropic-tools': 'an Anthropic tools array: [{name, description, input_schema}]',
  'bfcl-functions': 'BFCL function docs: JSON lines of {name, description, parameters: {type: "dict", …}}',
  'bfcl-questions': 'BFCL question files: JSON lines of {id, question, function: [...]}, their functions unioned',
};

/** A tools file that cannot be used: every problem names the entry and the field. */
export class ToolsFileError extends InputError {
  constructor(
    readonly file: string,
    readonly problems: string[],
    /** The file is not there (on this machine). */
    readonly missing = false,
  ) {
    super(`${file}: cannot use this tools file\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** A tool as an MCP server would list it: a catalog tool before it is given its server. */
export type ListedTool = Omit<CatalogTool, 'id' | 'server' | 'scopes'>;

export interface ToolsFile extends ToolsFileSource {
  tools: ListedTool[];
}

/** `_meta` key of a tool renamed because its file lists another tool by the same name with another schema. */
export const SOURCE_NAME_META = 'flywheel/sourceName';

type Json = Record<string, unknown>;

type Kind = 'openai-tool' | 'function' | 'mcp-tool' | 'anthropic-tool';

interface Entry {
  /** Where it is, for messages: `entry 3`, `line 4`, `line 4, function[1]`. */
  where: string;
  raw: unknown;
}

const MAX_PROBLEMS = 20;

/** Read, detect and check a tools file (relative paths: against the working directory). */
export async function readToolsFile(path: string): Promise<ToolsFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ToolsFileError(path, [`cannot read the file: ${(err as Error).message}`], missing);
  }
  return parseToolsFile(bytes, path);
}

/** The same from bytes already read (`file` names it in messages and in the snapshot). */
export function parseToolsFile(bytes: Buffer | string, file: string): ToolsFile {
  const buf = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const sha256 = sha256Hex(buf);
  // A UTF-8 byte order mark is not part of the JSON (the hash above keeps the bytes as they are).
  const docs = parseDocuments(buf.toString('utf8').replace(/^\uFEFF/, ''), file);
  const problems: string[] = [];
  const formats = new Map<ToolsFileFormat, string>();
  const entries: Array<Entry & { kind: Kind }> = [];
  for (const doc of docs) {
    const items = Array.isArray(doc.value)
      ? doc.value.map((v, i) => ({ raw: v, where: doc.where ? `${doc.where} [${i}]` : `entry [${i}]` }))
      : [{ raw: doc.value, where: doc.where || 'the top-level object' }];
    for (const item of items)
      for (const { raw, where, container } of unwrap(item)) {
        // In a tools/list result, an entry that names itself and nothing else is an MCP tool lacking its schema.
        const kind = kindOf(raw) ?? (container === 'tools' && isObject(raw) && 'name' in raw ? 'mcp-tool' : null);
        if (!kind) {
          problems.push(
            `${where}: not a tool: expected ${Object.values(TOOLS_FILE_FORMATS).join('; or ')}${keysOf(raw)}`,
          );
          continue;
        }
        const format = container === 'bfcl-question' ? 'bfcl-questions' : FORMAT_OF_KIND[kind];
        if (!formats.has(format)) formats.set(format, where);
        entries.push({ where, raw, kind });
      }
  }
  if (docs.length === 0 || (entries.length === 0 && problems.length === 0)) problems.push('the file holds no tools');
  if (entries.length === 0) fail(file, problems);
  if (formats.size > 1)
    fail(file, [
      `mixes formats: ${[...formats].map(([f, at]) => `${f} (first at ${at})`).join(', ')}; one file holds one format`,
    ]);
  let format = [...formats.keys()][0]!;
  if (format === 'openai-functions' && entries.some((e) => isBfclParameters((e.raw as Json).parameters)))
    format = 'bfcl-functions';
  const tools: Array<{ where: string; tool: ListedTool }> = [];
  for (const e of entries) {
    const checked = checkEntry(e.where, e.raw, e.kind, format);
    if (typeof checked === 'string') problems.push(checked);
    else tools.push({ where: e.where, tool: checked });
  }
  fail(file, problems);
  const { unique, collapsed, renamed } = dedupe(tools);
  return { path: file, format, sha256, entries: tools.length, collapsed, renamed, tools: unique };
}

/** The snapshot ingest stores for a tools-file server: as if the server had listed these tools on one page. */
export function toolsFileSnapshot(server: string, file: ToolsFile): ServerSnapshot {
  const { tools, ...source } = file;
  return {
    server,
    // The file's hash is its version, so the catalog's version changes whenever the file's bytes do.
    serverInfo: { name: basename(file.path), version: `sha256:${file.sha256.slice(0, 16)}` },
    pages: 1,
    tools,
    source,
  };
}

/** One line on what was read: `tools.json: openai-tools, 12 entries, 2 repeats kept once, 1 renamed (a → a__2)`. */
export function describeToolsFile(source: ToolsFileSource): string {
  const renamed = source.renamed.slice(0, 3).map((r) => `${r.from} → ${r.to}`);
  if (source.renamed.length > 3) renamed.push('…');
  return [
    `${source.path}: ${source.format}, ${source.entries} ${source.entries === 1 ? 'entry' : 'entries'}`,
    ...(source.collapsed ? [`${source.collapsed} identical repeats kept once`] : []),
    ...(source.renamed.length ? [`${source.renamed.length} renamed (${renamed.join(', ')})`] : []),
  ].join(', ');
}

function fail(file: string, problems: string[]): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > MAX_PROBLEMS) shown.push(`… and ${problems.length - MAX_PROBLEMS} more`);
  throw new ToolsFileError(file, shown);
}

/** One JSON document, or JSON lines (each non-blank line a document). */
function parseDocuments(text: string, file: string): Array<{ where: string; value: unknown }> {
  try {
    return [{ where: '', value: JSON.parse(text) as unknown }];
  } catch (whole) {
    const lines = text.split('\n');
    const docs: Array<{ where: string; value: unknown }> = [];
    const firstLine = lines.findIndex((l) => l.trim() !== '');
    if (firstLine < 0) return [];
    // Not JSON lines either when its first line is not a document on its own: report the whole-file error.
    try {
      JSON.parse(lines[firstLine]!);
    } catch {
      throw new ToolsFileError(file, [`not JSON: ${(whole as Error).message}`]);
    }
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        docs.push({ where: `line ${i + 1}`, value: JSON.parse(line) as unknown });
      } catch (err) {
        throw new ToolsFileError(file, [`line ${i + 1}: not JSON: ${(err as Error).message}`]);
      }
    });
    return docs;
  }
}

/** What one tool entry is written as. */
function kindOf(v: unknown): Kind | null {
  if (!isObject(v)) return null;
  if (v.type === 'function' && isObject(v.function)) return 'openai-tool';
  if ('inputSchema' in v) return 'mcp-tool';
  if ('input_schema' in v) return 'anthropic-tool';
  if ('parameters' in v || ('name' in v && 'description' in v)) return 'function';
  return null;
}

const FORMAT_OF_KIND: Record<Kind, ToolsFileFormat> = {
  'openai-tool': 'openai-tools',
  'mcp-tool': 'mcp-tools-list',
  'anthropic-tool': 'anthropic-tools',
  function: 'openai-functions', // bfcl-functions when BFCL's types appear
};

/**
 * The tool entries an entry holds: a tools/list page or a request body (`tools`, a JSON-RPC `result.tools`, the
 * older `functions`) and a BFCL question (`function`) hold several; anything else is an entry itself.
 */
function unwrap(item: { raw: unknown; where: string }): Array<{ raw: unknown; where: string; container?: string }> {
  const v = item.raw;
  if (!isObject(v)) return [item];
  const list = (key: string, of: unknown, container?: string) =>
    (of as unknown[]).map((raw, i) => ({
      raw,
      where: `${item.where}, ${key}[${i}]`,
      ...(container ? { container } : {}),
    }));
  if (Array.isArray(v.function) && 'question' in v) return list('function', v.function, 'bfcl-question');
  if (Array.isArray(v.tools)) return list('tools', v.tools, 'tools');
  if (isObject(v.result) && Array.isArray(v.result.tools)) return list('result.tools', v.result.tools, 'tools');
  if (Array.isArray(v.functions)) return list('functions', v.functions);
  return [item];
}

function keysOf(v: unknown): string {
  if (isObject(v)) return ` (it has ${Object.keys(v).slice(0, 8).join(', ') || 'no keys'})`;
  return ` (it is ${Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`})`;
}

/** The field that holds each kind's schema. */
const SCHEMA_FIELD: Record<Kind, string> = {
  'openai-tool': 'function.parameters',
  function: 'parameters',
  'mcp-tool': 'inputSchema',
  'anthropic-tool': 'input_schema',
};

/** One entry as an MCP tool, or the problem that names its field. A null field counts as absent. */
function checkEntry(where: string, raw: unknown, kind: Kind, format: ToolsFileFormat): ListedTool | string {
  if (!isObject(raw)) return `${where}: not a JSON object${keysOf(raw)}`;
  const fn = withoutNulls(kind === 'openai-tool' ? (raw.function as Json) : raw);
  const field = (f: string) => (kind === 'openai-tool' ? `function.${f}` : f);
  const name = fn.name;
  if (typeof name !== 'string' || name === '') return `${where}: ${field('name')}: missing or not a string`;
  if (!TOOL_NAME_RE.test(name))
    return `${where} (${name}): ${field('name')}: ${JSON.stringify(name)} is not 1-128 of [A-Za-z0-9_.-]`;
  const at = `${where} (${name})`;
  for (const key of ['description', 'title'] as const)
    if (fn[key] !== undefined && typeof fn[key] !== 'string') return `${at}: ${field(key)}: not a string`;
  const schemaField = SCHEMA_FIELD[kind];
  let given = kind === 'mcp-tool' ? fn.inputSchema : kind === 'anthropic-tool' ? fn.input_schema : fn.parameters;
  // OpenAI and BFCL allow a function without parameters (or with {}); MCP and Anthropic require a schema.
  const functionKind = kind === 'openai-tool' || kind === 'function';
  if (functionKind && (given === undefined || (isObject(given) && Object.keys(given).length === 0)))
    given = { type: 'object', properties: {} };
  if (!isObject(given)) return `${at}: ${schemaField}: ${given === undefined ? 'missing' : 'not a JSON object'}`;
  const schema =
    format === 'bfcl-functions' || format === 'bfcl-questions' || isBfclParameters(given)
      ? bfclParametersToJsonSchema(given)
      : given;
  if (schema.type !== 'object')
    return `${at}: ${schemaField}.type: must be "object", got ${JSON.stringify(schema.type)}`;
  const compiled = compileSchema(schema);
  if (!compiled.ok) return `${at}: ${schemaField}: not a usable JSON Schema: ${compiled.error}`;
  const tool: ListedTool = {
    name,
    ...(typeof fn.title === 'string' ? { title: fn.title } : {}),
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    inputSchema: schema,
  };
  if (kind === 'mcp-tool') {
    for (const key of ['outputSchema', 'annotations', '_meta'] as const) {
      if (fn[key] === undefined) continue;
      if (!isObject(fn[key])) return `${at}: ${key}: not a JSON object`;
      if (key === 'outputSchema') {
        const out = compileSchema(fn[key]);
        if (!out.ok) return `${at}: outputSchema: not a usable JSON Schema: ${out.error}`;
      }
      tool[key] = fn[key] as Json;
    }
  }
  return tool;
}

/** Python SDKs dump unset optional fields as null. */
function withoutNulls(v: Json): Json {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
}

/**
 * One tool per name. The same tool listed twice (BFCL questions repeat their functions) is kept once; a second
 * tool of the same name with another schema or description is renamed `NAME__2` (then `__3`, …, skipping names
 * the file uses), in file order, with its own name kept in `_meta["flywheel/sourceName"]`.
 */
function dedupe(tools: Array<{ where: string; tool: ListedTool }>): {
  unique: ListedTool[];
  collapsed: number;
  renamed: ToolsFileSource['renamed'];
} {
  const taken = new Set(tools.map((t) => t.tool.name));
  const seen = new Map<string, Map<string, string>>(); // name -> canonical body -> name given
  const unique: ListedTool[] = [];
  const renamed: ToolsFileSource['renamed'] = [];
  let collapsed = 0;
  for (const { where, tool } of tools) {
    const bodies = seen.get(tool.name) ?? new Map<string, string>();
    seen.set(tool.name, bodies);
    const { name: _name, ...rest } = tool;
    const body = canonicalJson(rest);
    if (bodies.has(body)) {
      collapsed++;
      continue;
    }
    if (bodies.size === 0) {
      bodies.set(body, tool.name);
      unique.push(tool);
      continue;
    }
    let k = bodies.size + 1;
    const stem = tool.name.slice(0, 120); // so the new name stays within MCP's 128 characters
    while (taken.has(`${stem}__${k}`)) k++;
    const name = `${stem}__${k}`;
    taken.add(name);
    bodies.set(body, name);
    renamed.push({ from: tool.name, to: name, where });
    unique.push({ ...tool, name, _meta: { ...tool._meta, [SOURCE_NAME_META]: tool.name } });
  }
  return { unique, collapsed, renamed };
}
