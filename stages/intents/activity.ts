import type { Catalog } from '../../core/catalog/types.js';
import { ConfigError } from '../../core/config/load.js';
import type { DomainPack } from '../../core/dataset/packs.js';
import { buildIntents } from '../../core/dataset/pipeline.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { discoverPools } from '../../core/probe/discover.js';
import { trialCaller } from '../../core/probe/trial.js';
import { withConnections } from '../../activities/connections.js';
import { beat } from '../../activities/heartbeat.js';
import { packMemo } from '../../activities/pack-memo.js';
import { runStage } from '../../activities/stage.js';
import type { IntentsArgs } from './spec.js';

/**
 * The intents stage's activity, made for the domain packs the worker was given (workers/packs.ts): it draws from
 * their goals and personas, and imports no pack itself.
 */
export function intentsFor(packs: readonly DomainPack[]) {
  return async function intents(a: IntentsArgs): Promise<StageOutcome> {
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
            `no intents for any tool of ${catalog.servers.map((s) => s.name).join(', ')}: ${Object.entries(stats.tools)
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
      packMemo(packs, a.catalog),
    );
  };
}
