import type { ArtifactRef } from '../core/artifacts/types.js';
import type { ArtifactStore } from '../core/artifacts/store.js';
import type { Catalog, CatalogTool } from '../core/catalog/types.js';
import { ConfigError } from '../core/config/load.js';
import type { ServerConfig } from '../core/config/schema.js';
import { mcpDryRunner } from '../core/dataset/mcp-dry-run.js';
import { packVersions, type DomainPack } from '../core/dataset/packs.js';
import { augmentRows, buildIntents, rowStats } from '../core/dataset/pipeline.js';
import type { RouterRow } from '../core/dataset/types.js';
import { CallValidator } from '../core/dataset/validate.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { callModeFor } from '../core/probe/call-mode.js';
import { discoverPools } from '../core/probe/discover.js';
import { trialCaller } from '../core/probe/trial.js';
import type { DomainPools } from '../core/probe/types.js';
import { withConnections } from './connections.js';
import { beat } from './heartbeat.js';
import { runStage, type MemoExtras, type DatasetStageArgs } from './stage.js';

/**
 * The two stages that read domain packs (intents draws from their goals and personas, corrupt from their
 * personas), made for the packs the worker was given (workers/packs.ts): this folder imports no pack. Activity
 * types stay `intentsStage` and `corruptStage`.
 */

type Common = DatasetStageArgs;

export function packStages(packs: readonly DomainPack[]) {
  /** A pack's version keys the memo of the stages that read it (absent for the shipped packs: keys unchanged). */
  const packMemo =
    (catalogRef: ArtifactRef) =>
    async (store: ArtifactStore): Promise<MemoExtras> => {
      const catalog = await store.readJson<Catalog>(catalogRef);
      const versions = packVersions(
        packs,
        catalog.servers.map((s) => s.serverInfo?.name),
      );
      return Object.keys(versions).length ? { key: { packs: versions } } : {};
    };

  return {
    async intentsStage(a: Common & { catalog: ArtifactRef; servers: ServerConfig[] }): Promise<StageOutcome> {
      const { dataset } = a;
      return runStage(
        a,
        'intents',
        async (store) => {
          const catalog = await store.readJson<Catalog>(a.catalog);
          const { pools, intents, stats } = await withConnections(a.servers, async (conns) => {
            // Every probe and trial call heartbeats (the SDK throttles them): a slow server must not look like a dead worker.
            const pools = await discoverPools(conns, a.servers, catalog, packs, dataset.seed, (at) =>
              beat({ probing: at }),
            );
            beat({ drawing: catalog.tools.length });
            return {
              pools,
              ...(await buildIntents(
                catalog,
                dataset,
                pools,
                packs,
                trialCaller(conns, a.servers, (calls) => beat({ trialCalls: calls })),
              )),
            };
          });
          if (intents.length === 0)
            throw new ConfigError('dataset', [
              `no intents for any tool of ${catalog.servers.map((s) => s.name).join(', ')}: ${Object.entries(
                stats.tools,
              )
                .map(([t, n]) => `${t}: ${n.skipped ?? 'no intents'}`)
                .slice(0, 10)
                .join('; ')}`,
            ]);
          const poolsRef = await store.putJson('entity-pools', pools, {
            parents: [a.catalog],
            stats: Object.fromEntries(
              Object.entries(pools).map(([d, p]) => [
                d,
                {
                  packPools: Object.keys(p.pack ?? {}).length,
                  harvestedKeys: Object.keys(p.harvested).length,
                  probes: Object.fromEntries(
                    ['ok', 'failed', 'skipped'].map((st) => [st, p.probes.filter((x) => x.status === st).length]),
                  ),
                },
              ]),
            ),
          });
          const ref = await store.putJsonl('intents', intents, { parents: [a.catalog, poolsRef], stats: { ...stats } });
          const generic = Object.values(stats.tools).filter((t) => t.source === 'generic').length;
          return {
            outputs: { intents: ref, pools: poolsRef },
            summary: `${stats.intents} intents (${stats.unsatisfiable} unsatisfiable) for ${Object.values(stats.tools).filter((t) => t.intents > 0).length}/${catalog.tools.length} tools (${generic} generic) over ${Object.keys(stats.byDomain).join(', ')}${Object.values(
              stats.packNotes,
            )
              .map((n) => `; ${n}`)
              .join('')}`,
          };
        },
        packMemo(a.catalog),
      );
    },

    async corruptStage(
      a: Common & {
        catalog: ArtifactRef;
        validated: ArtifactRef;
        pools: ArtifactRef;
        traceRows?: ArtifactRef;
        servers: ServerConfig[];
      },
    ): Promise<StageOutcome> {
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
        packMemo(a.catalog),
      );
    },
  };
}
