import { existsSync } from 'node:fs';
import { DEFAULT_REGISTRY, DEFAULT_STORE_URI } from '../../core/defaults.js';
import { registryExists } from '../../core/deploy/registry.js';
import { executeGc, loadGcInputs, planGc, type GcPlan, type GcResult, type RunRefs } from '../../core/artifacts/gc.js';
import { openStore } from '../../core/artifacts/index.js';
import { loadConfigFile } from '../../core/config/load.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { humanBytes, printJson } from '../lib/output.js';
import { connect, flywheelRunRefs } from '../lib/runs.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longer than a stage takes between writing an artifact and recording it. */
const DEFAULT_MIN_AGE = '1h';

export const gcCommand: Command = {
  name: 'gc',
  summary: 'delete artifacts no deployed version, pinned pointer or recent run needs',
  usage: `flywheel gc --keep-last N [--config FILE | --store URI --registry PATH|URL] [--no-registry] [--no-temporal]
            [--min-age DUR] [--dry-run] [--json]

Deletes what nothing needs any more: memo entries, artifacts (manifest + object) and directory-artifact files.
Always kept, with their whole lineage (manifest parents and directory files: a kept adapter keeps its
training data, test set, catalog…):
  - every artifact of every registry version (adapter, eval report, smoke probes), current or not: a
    rollback can go back to any of them
  - every artifact a pointer under refs/ names: frozen test sets, catalog history, watermarks, deployed
    versions (deploy records one per version in the store itself)
  - every output of every flywheelRun still running, and of the newest N runs, from their Temporal histories
    (eval results and reports included), at TEMPORAL_ADDRESS
  - the outputs of the newest N runs' stage memo entries (an entry belongs to the last run that produced or
    reused it; runs ordered by their newest entry)
  - every stored run config (resume and publish read them)
  - anything written or reused less than --min-age ago (a running stage may not have recorded it yet)
Older runs' memo entries go when one of their outputs goes: that stage reruns next time.

  --keep-last N    runs whose outputs are kept; at least 1
  --config FILE    take the store (artifacts.store) and registry (deploy.registry) from the config
  --store URI      default: the config's, else $FLYWHEEL_ARTIFACTS, else ${DEFAULT_STORE_URI}
  --registry PATH|URL  the deploy registry (a SQLite file, which must exist, or a postgresql:// URL)
  --no-registry    nothing was ever deployed from this store (needed when no registry is found)
  --no-temporal    do not ask Temporal for open and recent runs (only when none is running: their
                   outputs are then kept only through memo entries and --min-age)
  --min-age DUR    spare anything younger: 0, or a number with ms|s|m|h|d (default ${DEFAULT_MIN_AGE})
  --dry-run        print the plan, delete nothing
  --json           the plan (and what was deleted) as JSON`,
  async run(argv) {
    const { values } = parse(argv, {
      'keep-last': { type: 'string' },
      config: { type: 'string' },
      store: { type: 'string' },
      registry: { type: 'string' },
      'no-registry': { type: 'boolean', default: false },
      'no-temporal': { type: 'boolean', default: false },
      'min-age': { type: 'string', default: DEFAULT_MIN_AGE },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    const keepLast = keepLastOption(values['keep-last']);
    const minAgeMs = durationOption(values['min-age'], 'min-age');
    const config = values.config ? await loadConfigFile(values.config) : undefined;
    const storeUri = values.store ?? config?.artifacts.store ?? process.env.FLYWHEEL_ARTIFACTS ?? DEFAULT_STORE_URI;
    const registry = registryPath(values, config, storeUri);
    const store = openStore(storeUri, config?.artifacts.s3 ?? {});

    const runs = values['no-temporal'] ? undefined : await temporalRuns(keepLast);
    const inputs = await loadGcInputs(store, registry, runs);
    const plan = planGc(inputs, { keepLast, minAgeMs, now: new Date() });
    const deleted = values['dry-run'] ? null : await executeGc(store, plan);
    for (const w of plan.warnings) console.error(`warning: ${w}`);
    if (values.json) {
      printJson({
        store: store.rootUri,
        registry: registry ?? null,
        dryRun: values['dry-run'],
        keepLast,
        minAgeMs,
        runs: plan.runs,
        roots: plan.roots,
        reasons: Object.fromEntries(plan.reasons),
        kept: { artifacts: plan.keptArtifacts, files: plan.keptFiles },
        delete: plan.delete,
        bytesFreed: plan.bytesFreed,
        deleted,
      });
    } else {
      console.log(summary(store.rootUri, registry, inputs.registryRefs.length, plan, deleted));
    }
    return 0;
  },
};

function keepLastOption(value: string | undefined): number {
  if (value === undefined) throw new UsageError('--keep-last N is required (how many recent runs keep their outputs)');
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 1) {
    throw new UsageError(
      `--keep-last must be a positive integer (the newest run may still be running), got "${value}"`,
    );
  }
  return n;
}

function durationOption(value: string, name: string): number {
  if (value === '0') return 0;
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (!m) throw new UsageError(`--${name} must be 0 or a number with ms, s, m, h or d (e.g. 30m, 1h), got "${value}"`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/**
 * The registry to read, or undefined when nothing counts as deployed. A registry that is named (flag or a
 * config deploy section) but missing is an error: a wrong working directory must not delete adapters.
 */
function registryPath(
  values: { registry?: string; 'no-registry': boolean },
  config: Awaited<ReturnType<typeof loadConfigFile>> | undefined,
  storeUri: string,
): string | undefined {
  if (values['no-registry']) {
    if (values.registry) throw new UsageError('--registry and --no-registry contradict each other');
    return undefined;
  }
  const hint =
    'run gc where the deploy worker runs, pass --registry PATH|URL, or --no-registry if nothing was ever deployed from this store';
  if (values.registry) {
    if (!registryExists(values.registry)) throw new UsageError(`registry ${values.registry} does not exist; ${hint}`);
    return values.registry;
  }
  const configured = config?.deploy?.registry ?? config?.gateway?.registry;
  if (configured) {
    if (!registryExists(configured))
      throw new UsageError(
        `registry ${configured} (from ${config?.deploy ? 'deploy' : 'gateway'}.registry) does not exist; ${hint}`,
      );
    return configured;
  }
  if (existsSync(DEFAULT_REGISTRY)) return DEFAULT_REGISTRY;
  // Deployments may be recorded in a registry elsewhere (another directory, another machine): never assume none.
  throw new UsageError(
    `no registry found (no --registry, no deploy.registry in a --config, no ${DEFAULT_REGISTRY}) for the store ${storeUri}; ${hint}`,
  );
}

/** Open and newest runs from Temporal; an unreachable server is an error unless --no-temporal says none runs. */
async function temporalRuns(keepLast: number): Promise<RunRefs[]> {
  let client;
  try {
    client = await connect();
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message.split('\n')[0]}; gc keeps the outputs of running flywheel runs and needs Temporal to see them (pass --no-temporal only when no run is in progress)`,
    );
  }
  try {
    return await flywheelRunRefs(client, keepLast);
  } finally {
    await client.connection.close();
  }
}

function summary(
  storeUri: string,
  registry: string | undefined,
  registryRefs: number,
  plan: GcPlan,
  deleted: GcResult | null,
): string {
  const runs = plan.runs;
  const lines = [
    `store     ${storeUri}`,
    `registry  ${registry ? `${registry} (${registryRefs} artifact references)` : 'none: nothing counts as deployed'}`,
    `runs      ${runs.kept.length + runs.dropped.length} with memo entries; keeping the newest ${runs.kept.length}${runs.dropped.length ? `, dropping ${runs.dropped.length} older` : ''}`,
    ...runs.kept.map(
      (r) => `            ${r.newest}  ${r.runId}  (${plural(r.stages.length, 'memo entry', 'memo entries')})`,
    ),
    `kept      ${plural(plan.keptArtifacts, 'artifact')}, ${plural(plan.keptFiles, 'file')} without a manifest (directory-artifact files, fresh objects)`,
    `  roots   deployed ${plan.roots.deployed}, pointers ${plan.roots.pointer}, recent runs ${plan.roots['recent-run']}, open runs ${plan.roots['open-run']}, configs ${plan.roots.config}, fresh ${plan.roots.fresh}`,
    `${deleted ? 'deleted   ' : 'dry run   would delete '}${plural(plan.delete.memos.length, 'memo entry', 'memo entries')}, ${plural(plan.delete.manifests.length, 'artifact')}, ${plural(plan.delete.objects.length, 'object')} (${humanBytes(plan.bytesFreed)})`,
  ];
  return lines.join('\n');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
