import { readFile, rename, writeFile } from 'node:fs/promises';
import { buildCatalog, catalogStats } from '../../core/catalog/build.js';
import { diffCatalogs } from '../../core/catalog/diff.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { describeToolsFile } from '../../core/catalog/tools-file.js';
import type { Catalog } from '../../core/catalog/types.js';
import { canonicalJson, hashOf, shortSha } from '../../core/hash.js';
import { parseServerSpec } from '../../core/mcp/server-spec.js';
import { intOption, parse, UsageError, type Command } from '../lib/args.js';
import { printJson } from '../lib/output.js';

/** The catalog's name unless --name says. */
const DEFAULT_NAME = 'catalog';
const NAMED_SPEC = /^([a-z0-9][a-z0-9-]*)=((?:stdio:|tools:|https?:\/\/).*)$/s;

export const catalogCommand: Command = {
  name: 'catalog',
  summary: 'ingest MCP tool catalogs without Temporal',
  usage: `flywheel catalog ingest --server SPEC [--server SPEC ...] --out FILE [--name NAME] [--timeout MS] [--json]

Connects to each MCP server, pages through tools/list, compiles every inputSchema/outputSchema with ajv
(bad ones are quarantined with a reason, not fatal) and writes the catalog JSON to FILE atomically.
A tools:FILE spec reads tool definitions from a file instead (an OpenAI tools list, a tools/list dump or
BFCL function docs; its format is detected and printed; a bad entry fails the whole file, named).
If FILE already holds a catalog, prints what changed (tools added, removed, changed).
  SPEC     stdio:<command line>, http(s)://host/path or tools:<file>   (optionally NAME=SPEC to name the server)
  --name   catalog name (default "${DEFAULT_NAME}")
  --json   print {version, out, stats, diff} instead of text
Exit codes: 0 ok, 2 bad usage or a bad tools file, 1 a server failed (the message names it).`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      {
        server: { type: 'string', multiple: true },
        out: { type: 'string' },
        name: { type: 'string', default: DEFAULT_NAME },
        timeout: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals[0] !== 'ingest' || positionals.length !== 1)
      throw new UsageError('expected: flywheel catalog ingest --server SPEC --out FILE');
    if (!values.server?.length) throw new UsageError('give at least one --server SPEC');
    if (!values.out) throw new UsageError('--out FILE is required');
    const timeoutMs = intOption(values.timeout, 'timeout', 30_000);
    const servers = values.server.map((spec, i) => {
      const m = NAMED_SPEC.exec(spec);
      const name = m ? m[1]! : values.server!.length === 1 ? 'server' : `server${i + 1}`;
      try {
        return parseServerSpec(m ? m[2]! : spec, name, timeoutMs);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    });

    const snapshots = [];
    for (const server of servers) {
      snapshots.push(
        await listServerTools(server, {
          maxPages: 1000,
          onPage: (p) => values.json || process.stderr.write(`  ${p.server}: page ${p.page}, ${p.tools} tools\n`),
        }),
      );
    }
    if (!values.json)
      for (const snap of snapshots)
        if (snap.source) process.stderr.write(`  ${snap.server}: ${describeToolsFile(snap.source)}\n`);
    const catalog = buildCatalog(values.name, snapshots);
    const version = `cat-${shortSha(hashOf(catalog))}`;
    const previous = await readCatalog(values.out);
    const diff = diffCatalogs(
      previous?.catalog ?? null,
      catalog,
      previous ? `cat-${shortSha(hashOf(previous.catalog))}` : null,
      version,
    );
    const tmp = `${values.out}.tmp-${process.pid}`;
    await writeFile(tmp, `${JSON.stringify(JSON.parse(canonicalJson(catalog)), null, 2)}\n`);
    await rename(tmp, values.out);

    const stats = catalogStats(catalog);
    if (values.json) {
      printJson({ version, out: values.out, stats, diff });
      return 0;
    }
    console.log(`${values.out}: ${version}, ${catalog.tools.length} tools, ${catalog.quarantined.length} quarantined`);
    for (const q of catalog.quarantined)
      console.log(`  quarantined ${q.server}/${q.name ?? '?'} [${q.code}]: ${q.reason.split('\n')[0]}`);
    if (previous) {
      console.log(`changes since ${diff.from}: +${diff.added.length} -${diff.removed.length} ~${diff.changed.length}`);
      for (const id of diff.added) console.log(`  + ${id}`);
      for (const id of diff.removed) console.log(`  - ${id}`);
      for (const c of diff.changed) console.log(`  ~ ${c.id} (${c.fields.join(', ')})`);
    }
    return 0;
  },
};

async function readCatalog(file: string): Promise<{ catalog: Catalog } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const catalog = JSON.parse(text) as Catalog;
    return Array.isArray(catalog.tools) ? { catalog } : null;
  } catch {
    return null;
  }
}
