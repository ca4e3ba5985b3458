import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { Catalog } from '../../core/catalog/types.js';
import { ConfigError } from '../../core/config/load.js';
import { rowStats } from '../../core/dataset/pipeline.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { traceFiles, type TraceFile } from '../../core/traces/files.js';
import { ingestTraces, parseTraceFile } from '../../core/traces/ingest.js';
import { TraceSourceUnavailable } from '../../core/traces/s3-source.js';
import type { TraceRejection } from '../../core/traces/types.js';
import { runStage } from '../../activities/stage.js';
import { storeFor } from '../../activities/store.js';
import type { TracesArgs } from './spec.js';

/** The traces stage's activity: each trace file stored, then parsed and checked into rows and named rejections. */
export async function traces(a: TracesArgs): Promise<StageOutcome> {
  // Trace files are read once and stored, so the memo key and the lineage pin their exact content.
  const store = storeFor(a.store);
  const files: Array<{ ref: ArtifactRef; path: string; domain?: string }> = [];
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
      });
    }
  }
  return runStage(
    a,
    'traces',
    async (store) => {
      const catalog = await store.readJson<Catalog>(a.catalog);
      const validator = new CallValidator(catalog, async () => ({ ok: true }));
      const rows: RouterRow[] = [];
      const rejections: TraceRejection[] = [];
      let count = 0;
      for (const f of files) {
        const parsed = parseTraceFile(f.path, (await store.read(f.ref)).toString('utf8'));
        const result = ingestTraces(parsed.traces, validator, {
          catalog,
          ...(f.domain ? { defaultDomain: f.domain } : {}),
        });
        rows.push(...result.rows);
        rejections.push(...parsed.rejections, ...result.rejections);
        count += parsed.traces.length + parsed.rejections.length;
      }
      const byReason: Record<string, number> = {};
      for (const r of rejections) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
      const parents = [a.catalog, ...files.map((f) => f.ref)];
      const rowsRef = await store.putJsonl('trace-rows', rows, {
        parents,
        stats: { ...rowStats(rows), traces: count },
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
    { inputs: files.map((f) => f.ref), key: { files: files.map((f) => ({ path: f.path, domain: f.domain ?? null })) } },
  );
}

/** A store that did not answer is retried; a missing file, bucket or key is the config's problem: fail at once. */
function sourceError(err: unknown): Error {
  return err instanceof TraceSourceUnavailable ? err : new ConfigError('traces', [(err as Error).message]);
}
