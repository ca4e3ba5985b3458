import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { openWorkingCopy, templatePath, type DataModel, type Db } from './db.js';
import { compileSandbox, createMcpServer, type SandboxTool } from './server.js';

export interface SandboxDefinition {
  name: string;
  version: string;
  instructions: string;
  model: DataModel;
  tools: SandboxTool[];
  /** The sandbox's fixed "today" unless --today is given. */
  today: string;
}

export const DEFAULT_SEED = '42';
export const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../.flywheel/sandboxes', import.meta.url));

const USAGE = (name: string) => `usage: ${name} [options]

  --transport stdio|http   how clients connect (default stdio)
  --host HOST              HTTP bind address (default 127.0.0.1)
  --port N                 HTTP port (default 0: any free port; the chosen one is printed)
  --token-env NAME         require "Authorization: Bearer <value of $NAME>" on HTTP
  --seed S                 data seed (default ${DEFAULT_SEED}); same seed, byte-identical database
  --db FILE                keep the working database in FILE (default: a fresh temporary copy per process)
  --reset                  with --db: start again from the pristine copy for the seed
  --scopes a,b             scopes this server grants (default * = all); a call's _meta.scopes can only narrow them
  --today YYYY-MM-DD       the sandbox's fixed "today"
  --cache-dir DIR          where pristine databases are cached (default .flywheel/sandboxes)
  --build-only             build the pristine database for the seed, print its path and exit
  --version                print the version and exit`;

/** Parse flags, open the database and serve over stdio or Streamable HTTP. Logs go to stderr only. */
export async function runSandbox(def: SandboxDefinition, argv = process.argv.slice(2)): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        transport: { type: 'string', default: 'stdio' },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        'token-env': { type: 'string' },
        seed: { type: 'string', default: DEFAULT_SEED },
        db: { type: 'string' },
        reset: { type: 'boolean', default: false },
        scopes: { type: 'string', default: '*' },
        today: { type: 'string', default: def.today },
        'cache-dir': { type: 'string', default: DEFAULT_CACHE_DIR },
        'build-only': { type: 'boolean', default: false },
        version: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    process.stderr.write(`${def.name}: ${(err as Error).message}\n${USAGE(def.name)}\n`);
    process.exit(2);
  }
  if (values.help) return void process.stdout.write(`${USAGE(def.name)}\n`);
  if (values.version) return void process.stdout.write(`${def.name} ${def.version} (data v${def.model.dataVersion})\n`);
  const problems: string[] = [];
  if (!['stdio', 'http'].includes(values.transport))
    problems.push(`--transport must be stdio or http, got ${values.transport}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(values.today)) problems.push(`--today must be YYYY-MM-DD, got ${values.today}`);
  const token = values['token-env'] ? process.env[values['token-env']] : undefined;
  if (values['token-env'] && !token)
    problems.push(`--token-env ${values['token-env']}: that environment variable is empty`);
  if (problems.length) {
    process.stderr.write(`${def.name}: ${problems.join('; ')}\n`);
    process.exit(2);
  }

  const started = performance.now();
  const template = templatePath(def.model, values.seed, values['cache-dir']);
  if (values['build-only']) return void process.stdout.write(`${template}\n`);
  const copy = openWorkingCopy(template, { ...(values.db ? { path: values.db } : {}), reset: values.reset });
  const sandbox = compileSandbox({
    name: def.name,
    // The data version rides along as build metadata, so a catalog (and every memo keyed on it) changes with the data.
    version: `${def.version}+data.${def.model.dataVersion}`,
    instructions: def.instructions,
    tools: def.tools,
    db: copy.db,
    today: values.today,
    scopes: values.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  });
  const shutdown = () => {
    copy.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const ready = (where: string) =>
    process.stderr.write(
      `${def.name} ${def.version} ready on ${where} (seed ${values.seed}, db ${copy.file}, ${Math.round(performance.now() - started)} ms)\n`,
    );
  if (values.transport === 'stdio') {
    const transport = new StdioServerTransport();
    transport.onclose = shutdown;
    process.stdin.once('end', shutdown);
    await createMcpServer(sandbox).connect(transport);
    ready('stdio');
    return;
  }
  const http = serveHttp(sandbox, token);
  http.listen(Number(values.port), values.host, () => {
    const addr = http.address();
    const port = typeof addr === 'object' && addr ? addr.port : values.port;
    // Scripts and tests read the URL from this stdout line.
    process.stdout.write(`listening http://${values.host}:${port}/mcp\n`);
    ready(`http://${values.host}:${port}/mcp`);
  });
}

/** Streamable HTTP in stateless mode: a fresh MCP server per request over the shared database. */
export function serveHttp(sandbox: ReturnType<typeof compileSandbox>, token: string | undefined): HttpServer {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node ignores the promise; the handler answers its own errors
  return createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp'))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found: use /mcp"}');
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      return void res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end('{"error":"missing or wrong bearer token"}');
    }
    try {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await createMcpServer(sandbox).connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      if (!res.headersSent)
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: (err as Error).message }));
    }
  });
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type { Db };

/**
 * True when the module at `moduleUrl` is the script node was started with. Compared by real path, so a
 * sandbox started through a symlinked checkout (or a path with spaces) still runs.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(fileURLToPath(moduleUrl)) === realpathSync(script);
  } catch {
    return false;
  }
}
