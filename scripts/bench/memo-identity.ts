/**
 * Does this code still find what earlier code stored? Calls every dataset stage's activity in one process (no
 * Temporal), in table order, as the workflow calls it, against the config's own artifact store, and prints per
 * stage whether its memo hit and the sha256 of its outputs. Run after a refactor on a store an earlier run filled
 * (`make demo` fills the default's) at least twice (the first run's split pins the test set, which keys every
 * later split): every stage `reused` means the memo keys are byte-identical and the artifacts the same ones; a stage
 * that ran names the first key that changed (its version bumped, or its inputs or code).
 *
 *   node --import tsx scripts/bench/memo-identity.ts [--config FILE]
 *
 * The last line is `memo-identity: reused=N/M` (exit 1 unless every stage was reused).
 */
import { parseArgs } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities/index.js';
import { closeAllConnections } from '../../activities/connections.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { loadConfigFile } from '../../core/config/load.js';
import type { StageOutcome } from '../../core/pipeline/types.js';
import { appliesTo, stageArgs, STAGES, type StageName } from '../../workflows/contract/table.js';
import { SHIPPED_PACKS } from '../../workers/packs.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';

const { values } = parseArgs({ options: { config: { type: 'string', default: DEFAULT_CONFIG } } });
const config = await loadConfigFile(values.config!);
const activities = createActivities({ packs: SHIPPED_PACKS }) as unknown as Record<
  string,
  (a: unknown) => Promise<StageOutcome>
>;
const mock = new MockActivityEnvironment();
const act = (name: string, args: unknown) =>
  mock.run(activities[name] as never, args as never) as unknown as Promise<StageOutcome>;

const outputs = new Map<StageName, Record<string, ArtifactRef>>();
const rows: Array<{ stage: string; reused: boolean; outputs: string }> = [];
try {
  const snapshots = await Promise.all(
    config.servers.map((server) =>
      mock.run(
        activities.listServerTools as never,
        {
          store: config.artifacts,
          server,
          maxPages: config.catalog.maxPages,
        } as never,
      ),
    ),
  );
  const stages = STAGES.filter((s) => s.group !== 'train' && s.group !== 'release' && s.activity);
  for (const spec of stages) {
    if (!appliesTo(spec.name, config)) continue;
    const args = stageArgs(spec.name, config, 'memo-identity', (stage) => outputs.get(stage));
    const outcome = await act(spec.name, spec.name === 'ingest' ? { ...args, snapshots } : args);
    outputs.set(spec.name, outcome.outputs);
    rows.push({
      stage: spec.name,
      reused: outcome.reused,
      outputs: Object.entries(outcome.outputs)
        .map(([k, r]) => `${k} ${r.sha256.slice(0, 12)}`)
        .join(', '),
    });
    console.log(`${spec.name.padEnd(10)} ${outcome.reused ? 'reused' : 'RAN   '} ${rows.at(-1)!.outputs}`);
  }
} finally {
  await closeAllConnections();
}
const reused = rows.filter((r) => r.reused).length;
console.log(`memo-identity: reused=${reused}/${rows.length}`);
process.exitCode = reused === rows.length ? 0 : 1;
