import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { Catalog } from '../../core/catalog/types.js';
import { ConfigError } from '../../core/config/load.js';
import { rowStats } from '../../core/dataset/pipeline.js';
import { CallValidator } from '../../core/dataset/validate.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { traceFiles, type TraceFile } from '../../core/traces/files.js';
import { ingestTraces, parseTraceFile, type ParsedTrace } from '../../core/traces/ingest.js';
import { TraceSourceUnavailable } from '../../core/traces/s3-source.js';
import type { TraceFormat } from '../../core/traces/formats/index.js';
import type { TraceRejection } from '../../core/traces/types.js';
import { runStage } from '../../activities/stage.js';
import { storeFor } from '../../activities/store.js';
import type { TracesArgs } from './spec.js';

/** The traces stage's activity: each trace file stored, then parsed and checked into rows and named rejections. */
export async function traces(a: TracesArgs): Promise<StageOutcome> {
  // Trace files are read once and stored, so the memo key and the lineage pin their exact content.
  const store = storeFor(a.store);
  const files: Array<{ ref: ArtifactRef; path: string; domain?: string; format?: TraceFormat }> = [];
  for (const t of a.traces) {
    // A source is a file, a directory of them (the gateway writes one JSONL file per day) or an s3:// prefix.
    const source = typeof t === 'string' ? t : t.path;
    let found: TraceFile[];
    try {
      found = await traceFiles(source, a.store.s3);
    } catch (err) {
      throw sourceError(err);
    }
    for (const f of found) {
      let bytes: Buffer;
      try {
        bytes = await f.read();
      } catch (err) {
        throw sourceError(err);
      }
      files.push({
        ref: await store.putBytes('traces-raw', bytes, 'application/octet-stream', 1, { stats: { path: f.path } }),
        path: f.path,
        ...(typeof t !== 'string' && t.domain ? { domain: t.domain } : {}),
        ...(typeof t !== 'string' && t.format ? { format: t.format } : {}),
      });
    }
  }
  return runStage(
    a,
    'traces',
    async (store) => {
      const catalog = await store.readJson<Catalog>(a.catalog);
      const validator = new CallValidator(catalog, async () => ({ ok: true }));
      // One ingest over every file, so a conversation logged twice (in two files or two formats) is one row.
      const records: ParsedTrace[] = [];
      const rejections: TraceRejection[] = [];
      for (const f of files) {
        const parsed = parseTraceFile(f.path, (await store.read(f.ref)).toString('utf8'), f.format);
        records.push(...parsed.traces.map((t) => (f.domain ? { ...t, domain: f.domain } : t)));
        rejections.push(...parsed.rejections);
      }
      const result = ingestTraces(records, validator, { catalog });
      // Traces as ingest counts them (an OTLP line holds many spans), plus lines that were not JSON.
      const count = result.stats.traces + rejections.length;
      const rows = result.rows;
      rejections.push(...result.rejections);
      const byReason: Record<string, number> = {};
      for (const r of rejections) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
      const parents = [a.catalog, ...files.map((f) => f.ref)];
      const rowsRef = await store.putJsonl('trace-rows', rows, {
        parents,
        stats: { ...rowStats(rows), traces: count, byFormat: result.stats.byFormat },
      });
      const rejRef = await store.putJsonl('trace-rejections', rejections, {
        parents,
        stats: { rejected: rejections.length, byReason },
      });
      return {
        outputs: { traceRows: rowsRef, traceRejections: rejRef },
        summary: `${count} traces -> ${rows.length} rows, ${rejections.length} rejected${
          rejections.length
            ? ` (${Object.entries(byReason)
                .map(([r, n]) => `${r} ${n}`)
                .join(', ')})`
            : ''
        }`,
      };
    },
    {
      inputs: files.map((f) => f.ref),
      // A declared format keys the memo only where one is set, so sources without it keep their keys.
      key: {
        files: files.map((f) => ({
          path: f.path,
          domain: f.domain ?? null,
          ...(f.format ? { format: f.format } : {}),
        })),
      },
    },
  );
}

/** A store that did not answer is retried; a missing file, bucket or key is the config's problem: fail at once. */
function sourceError(err: unknown): Error {
  return err instanceof TraceSourceUnavailable ? err : new ConfigError('traces', [(err as Error).message]);
}
