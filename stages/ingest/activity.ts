import { Context } from '@temporalio/activity';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { buildCatalog as build, catalogStats } from '../../core/catalog/build.js';
import { diffCatalogs } from '../../core/catalog/diff.js';
import { catalogVersion, recordCatalogVersion } from '../../core/catalog/history.js';
import { listServerTools as list } from '../../core/catalog/list-tools.js';
import { describeToolsFile } from '../../core/catalog/tools-file.js';
import type { Catalog, ServerSnapshot } from '../../core/catalog/types.js';
import { memoized } from '../../core/pipeline/memo.js';
import type { IngestResult } from '../../core/pipeline/types.js';
import { failFast } from '../../activities/errors.js';
import { storeFor } from '../../activities/store.js';
import { stageVersion } from '../../workflows/contract/table.js';
import { memoKeyOf } from '../../activities/stage.js';
import type { BuildCatalogArgs, ListServerToolsArgs } from './spec.js';

/** Page through one server's tools/list and store the raw listing. Heartbeats per page and while waiting. */
export async function listServerTools(args: ListServerToolsArgs): Promise<ArtifactRef> {
  const ctx = Context.current();
  let last = { page: 0, tools: 0 };
  const beat = setInterval(() => ctx.heartbeat(last), 2000);
  try {
    return await failFast(async () => {
      const snapshot = await list(args.server, {
        maxPages: args.maxPages,
        onPage: (p) => {
          last = { page: p.page, tools: p.tools };
          ctx.heartbeat(last);
        },
      });
      return storeFor(args.store).putJson('server-tools', snapshot, {
        stats: {
          server: snapshot.server,
          pages: snapshot.pages,
          tools: snapshot.tools.length,
          ...(snapshot.source ? { toolsFile: describeToolsFile(snapshot.source) } : {}),
        },
      });
    });
  } finally {
    clearInterval(beat);
  }
}

/** Check every tool, quarantine the bad ones, store the catalog and its diff against the previous version. */
export async function ingest(args: BuildCatalogArgs): Promise<IngestResult> {
  return failFast(async () => {
    const store = storeFor(args.store);
    const memo = await memoized(
      store,
      // The servers' listings (read at run time) and the table's keys: the project and the catalog section.
      memoKeyOf('ingest', args, { inputs: args.snapshots }),
      async () => {
        const snapshots = await Promise.all(args.snapshots.map((r) => store.readJson<ServerSnapshot>(r)));
        const catalog = build(args.project, snapshots);
        const ref = await store.putJson('catalog', catalog, {
          parents: args.snapshots,
          stats: catalogStats(catalog),
          producer: { stage: 'ingest', version: stageVersion('ingest'), runId: args.runId },
        });
        const previous = await recordCatalogVersion(store, args.project, ref);
        const prevCatalog = previous ? await store.readJson<Catalog>(previous.sha256) : null;
        const diff = diffCatalogs(prevCatalog, catalog, previous?.version ?? null, catalogVersion(ref));
        const diffRef = await store.putJson('catalog-diff', diff, {
          parents: previous ? [ref.sha256, previous.sha256] : [ref],
          stats: { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length },
        });
        return { catalog: ref, catalogDiff: diffRef };
      },
      args.runId,
    );
    const stats = (await store.manifest(memo.outputs.catalog.sha256)).stats as {
      tools: number;
      quarantined: number;
      toolsFiles?: Record<string, string>;
    };
    const version = catalogVersion(memo.outputs.catalog);
    const files = Object.entries(stats.toolsFiles ?? {}).map(([server, format]) => `${server} from a ${format} file`);
    return {
      outputs: memo.outputs,
      reused: memo.reused,
      version,
      summary: `${version}: ${stats.tools} tools, ${stats.quarantined} quarantined${files.length ? ` (${files.join(', ')})` : ''}${memo.reused ? ' (unchanged, reused)' : ''}`,
    };
  });
}
