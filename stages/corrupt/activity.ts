import type { Catalog, CatalogTool } from '../../core/catalog/types.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import type { DomainPack } from '../../core/dataset/packs.js';
import { augmentRows, rowStats } from '../../core/dataset/pipeline.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { callModeFor } from '../../core/probe/call-mode.js';
import type { DomainPools } from '../../core/probe/types.js';
import { withConnections } from '../../activities/connections.js';
import { beat } from '../../activities/heartbeat.js';
import { packMemo } from '../../activities/pack-memo.js';
import { runStage } from '../../activities/stage.js';
import type { CorruptArgs } from './spec.js';

/** The corrupt stage's activity, made for the worker's domain packs (their personas phrase the negatives). */
export function corruptFor(packs: readonly DomainPack[]) {
  return async function corrupt(a: CorruptArgs): Promise<StageOutcome> {
    return runStage(
      a,
      'corrupt',
      async (store) => {
        beat({ stage: 'corrupt' });
        const catalog = await store.readJson<Catalog>(a.catalog);
        const rows = await store.readJsonl<RouterRow>(a.validated);
        const traceRows = a.traceRows ? await store.readJsonl<RouterRow>(a.traceRows) : [];
        const pools = await store.readJson<Record<string, DomainPools>>(a.pools);
        const modeOf = callModeFor(a.servers);
        const callable = (t: CatalogTool) => modeOf(t).mode !== 'schema';
        return withConnections(a.servers, async (conns) => {
          const { rows: corrupted, stats } = await augmentRows(
            rows,
            catalog,
            new CallValidator(catalog, mcpDryRunner(conns, a.servers)),
            a.dataset,
            pools,
            packs,
            callable,
            (done) => beat({ done }),
          );
          // Trace rows join as positives; corruption rewrites single requests, so it applies to generated rows only.
          const augmented = [...corrupted, ...traceRows];
          const ref = await store.putJsonl('augmented', augmented, {
            parents: [a.validated, a.pools, ...(a.traceRows ? [a.traceRows] : [])],
            stats: { ...rowStats(augmented), corruption: stats, traceRows: traceRows.length },
          });
          return {
            outputs: { augmented: ref },
            summary: `${stats.positives} positives + ${stats.negatives} near-miss negatives (${Object.entries(
              stats.kept,
            )
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')})`,
          };
        });
      },
      packMemo(packs, a.catalog),
    );
  };
}
