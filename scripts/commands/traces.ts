import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Catalog } from '../../core/catalog/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { canonicalJson } from '../../core/hash.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson } from '../lib/output.js';

export const tracesCommand: Command = {
  name: 'traces',
  summary: 'check and unroll agent traces into router rows',
  usage: `flywheel traces ingest FILE... --catalog CATALOG.json [--domain SERVER] [--out ROWS.jsonl] [--json] [--strict]

Reads OpenAI-format traces ({messages, tools, metadata: {domain, persona, scopes}}) from JSON or JSONL files,
checks that every tool_call_id pairs with a call, drops failed tool results, redacts PII (emails, phone
numbers, card numbers, tokens) with consistent placeholders, unrolls one row per assistant turn that makes
one tool call (earlier reasoning dropped), dedupes, and validates each call against the catalog (tool,
arguments schema, scopes). CATALOG.json is what "flywheel catalog ingest" writes.
  --domain   server name for traces without metadata.domain
  --out      write the rows as JSONL (atomically)
  --json     print {stats, rejections} as JSON
  --strict   exit 1 if any trace or turn was rejected
Every rejection is printed as FILE:ROW reason: detail.`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      {
        catalog: { type: 'string' },
        domain: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean', default: false },
        strict: { type: 'boolean', default: false },
      },
      true,
    );
    const [verb, ...files] = positionals;
    if (verb !== 'ingest' || files.length === 0)
      throw new UsageError('expected: flywheel traces ingest FILE... --catalog CATALOG.json');
    if (!values.catalog)
      throw new UsageError('--catalog CATALOG.json is required (write one with "flywheel catalog ingest")');
    let catalog: Catalog;
    try {
      catalog = JSON.parse(await readFile(values.catalog, 'utf8')) as Catalog;
      if (!Array.isArray(catalog.tools) || !Array.isArray(catalog.servers))
        throw new Error('not a catalog (no tools/servers)');
    } catch (err) {
      throw new UsageError(`${values.catalog}: ${(err as Error).message}`);
    }
    const validator = new CallValidator(catalog, async () => ({ ok: true }));
    const rows = [];
    const rejections = [];
    const stats: Record<string, number> = { traces: 0, rows: 0, duplicates: 0 };
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`${file}: ${(err as Error).message}`);
      }
      const parsed = parseTraceFile(file, text);
      const result = ingestTraces(parsed.traces, validator, {
        catalog,
        ...(values.domain ? { defaultDomain: values.domain } : {}),
      });
      rows.push(...result.rows);
      rejections.push(...parsed.rejections, ...result.rejections);
      stats.traces! += parsed.traces.length + parsed.rejections.length;
      stats.duplicates! += result.stats.duplicates;
    }
    stats.rows = rows.length;
    if (values.out) {
      const tmp = `${values.out}.tmp-${process.pid}`;
      await writeFile(tmp, rows.map((r) => `${canonicalJson(r)}\n`).join(''));
      await rename(tmp, values.out);
    }
    if (values.json) printJson({ stats: { ...stats, rejected: rejections.length }, rejections });
    else {
      console.log(
        `${stats.traces} traces -> ${rows.length} rows (${stats.duplicates} duplicates dropped), ${rejections.length} rejected${values.out ? `; rows in ${values.out}` : ''}`,
      );
      for (const r of rejections) console.log(`  ${r.file}:${r.row} ${r.reason}: ${r.detail}`);
    }
    return values.strict && rejections.length > 0 ? 1 : 0;
  },
};
