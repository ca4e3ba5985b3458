import { storeUriFrom } from '../lib/paths.js';
import { DEFAULT_REGISTRY } from '../../core/deploy/types.js';
import { openStore } from '../../core/artifacts/index.js';
import { registryExists, withRegistry, type AliasRegistry } from '../../core/deploy/registry.js';
import { LineageGraph, renderTree } from '../../core/lineage.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { printJson } from '../lib/output.js';
import { DEFAULT_STORE_URI } from '../../core/defaults.js';

export const lineageCommand: Command = {
  name: 'lineage',
  summary: 'where an adapter or dataset came from and what became of it (from artifact manifests)',
  usage: `flywheel lineage ADAPTER_VERSION|SHA [--store URI] [--registry PATH|URL] [--json]

ADAPTER_VERSION (adp-…) or any artifact sha (prefix of 8+ hex digits), e.g. a dataset's train split.
Prints two trees read from the artifact manifests (each names its parents):
  made from   the artifact's ancestors: rendered rows → split → augmented → validated → … → catalog, traces
  made into   what was derived from it: adapters, eval results and reports, smoke probes, deployments
and, for an adapter, the registry's versions serving it and every alias move to them.
  --store URI      default $FLYWHEEL_ARTIFACTS or ${DEFAULT_STORE_URI}
  --registry PATH|URL  the alias table (default ${DEFAULT_REGISTRY}; skipped when absent)`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      {
        store: { type: 'string' },
        registry: { type: 'string', default: DEFAULT_REGISTRY },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length !== 1) throw new UsageError('expected: flywheel lineage ADAPTER_VERSION|SHA');
    const id = positionals[0]!;
    const store = openStore(storeUriFrom(values.store));
    const graph = new LineageGraph(await store.list());
    const roots = id.startsWith('adp-')
      ? graph.adaptersOf(id).map((m) => m.sha256)
      : [(await store.resolve(id)).sha256];
    if (roots.length === 0)
      throw new UsageError(`no adapter artifact with version ${id} in ${values.store ?? 'the store'}`);
    const deployments = registryExists(values.registry)
      ? await withRegistry(values.registry, (r) => deployedFrom(r, roots))
      : [];
    const result = roots.map((sha) => ({
      sha256: sha,
      madeFrom: graph.upstream(sha),
      madeInto: graph.downstream(sha),
    }));
    if (values.json) {
      printJson({ artifacts: result, deployments });
      return 0;
    }
    for (const r of result) {
      console.log(
        `made from:\n${renderTree(r.madeFrom)
          .map((l) => `  ${l}`)
          .join('\n')}`,
      );
      console.log(
        `made into:\n${renderTree(r.madeInto)
          .map((l) => `  ${l}`)
          .join('\n')}`,
      );
    }
    if (deployments.length) {
      console.log('deployments:');
      for (const d of deployments)
        console.log(
          `  ${d.version} (${d.target} ${d.endpoint})${d.moves.map((e) => `\n    ${e.at} ${e.action} by ${e.actor}${e.previous ? ` (was ${e.previous})` : ''}`).join('')}`,
        );
    }
    return 0;
  },
};

/** Registry versions whose adapter is one of these artifacts, with every alias move to them. */
async function deployedFrom(registry: AliasRegistry, adapterShas: string[]) {
  const versions = (await Promise.all((await registry.aliases()).map(({ alias }) => registry.versions(alias))))
    .flat()
    .filter((v) => adapterShas.includes(v.adapter.sha256));
  return Promise.all(
    versions.map(async (v) => ({
      version: v.name,
      alias: v.alias,
      target: v.target,
      endpoint: v.endpoint,
      moves: (await registry.history(v.alias)).filter((e) => e.version === v.name),
    })),
  );
}
