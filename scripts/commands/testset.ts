import { readFile, rename, writeFile } from 'node:fs/promises';
import { openStore } from '../../core/artifacts/index.js';
import { catalogHistory } from '../../core/catalog/history.js';
import { loadConfigFile } from '../../core/config/load.js';
import { frozenTestSet, pinTestSet } from '../../core/dataset/testset.js';
import { exportTestset, formatOf, importTestset, TestsetError } from '../../core/dataset/testset-io.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import type { Catalog } from '../../core/catalog/types.js';
import { datasetSchema } from '../../core/config/schema.js';
import { firstJsonLine, isHandwritten } from '../../core/eval/handwritten.js';
import { handwrittenRowsOf } from '../lib/handwritten.js';

export const testsetCommand: Command = {
  name: 'testset',
  summary: 'export the frozen test set for audit, import an audited one',
  usage: `flywheel testset export --config FILE --out FILE.jsonl|FILE.csv [--catalog-version cat-…]
flywheel testset import FILE.jsonl|FILE.csv --config FILE [--catalog-version cat-…]

The test set is frozen per project and catalog version (by default the latest catalog version): created by
the first run's split stage, reused by every later run. Export writes it with an empty "approved" column
for a person to fill (true/false, yes/no, 1/0) and a "notes" column; import requires a decision on every
row, keeps the approved ones and pins them as the frozen test set. Later runs evaluate on exactly those.
Import also takes hand-written cases (JSONL {"id", "domain", "messages", "scopes"?, "tools"?, "expected"},
the format of \`flywheel eval --cases\`): every case is checked against that catalog version and pinned.`,
  async run(argv) {
    const { values, positionals } = parse(
      argv,
      { config: { type: 'string' }, out: { type: 'string' }, 'catalog-version': { type: 'string' } },
      true,
    );
    const [verb, file, ...rest] = positionals;
    if (!values.config) throw new UsageError('--config FILE is required (it names the project and the artifact store)');
    if (rest.length) throw new UsageError(`unexpected argument ${rest[0]}`);
    const config = await loadConfigFile(values.config);
    const store = openStore(config.artifacts.store, config.artifacts.s3);
    const version = values['catalog-version'] ?? (await catalogHistory(store, config.name)).at(-1)?.version;
    if (!version)
      throw new UsageError(`project ${config.name} has no catalog yet in ${config.artifacts.store}; run it first`);
    if (verb === 'export') {
      if (!values.out || file)
        throw new UsageError('expected: flywheel testset export --config FILE --out FILE.jsonl|FILE.csv');
      const pinned = await frozenTestSet(store, config.name, version);
      if (!pinned)
        throw new UsageError(`no frozen test set for ${config.name} at ${version}; a run's split stage creates it`);
      const rows = await store.readJsonl<RouterRow>(pinned.ref);
      const tmp = `${values.out}.tmp-${process.pid}`;
      await writeFile(tmp, exportTestset(rows, formatOf(values.out)));
      await rename(tmp, values.out);
      console.log(
        `${values.out}: ${rows.length} rows of the ${version} test set (${pinned.source}, pinned ${pinned.pinnedAt}); fill the approved column, then import`,
      );
      return 0;
    }
    if (verb === 'import') {
      if (!file) throw new UsageError('expected: flywheel testset import FILE --config FILE');
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`${file}: ${(err as Error).message}`);
      }
      if (file.endsWith('.jsonl') && isHandwritten(firstJsonLine(text))) {
        const entry = (await catalogHistory(store, config.name)).find((e) => e.version === version)!;
        const catalog = await store.readJson<Catalog>(entry.sha256);
        const dataset = config.dataset ?? datasetSchema.parse({});
        const rows = handwrittenRowsOf(text, file, catalog, dataset);
        const ref = await store.putJsonl('test', rows, {
          stats: { rows: rows.length, handwritten: true, importedFrom: file },
        });
        await pinTestSet(store, config.name, version, ref, 'import');
        console.log(
          `pinned ${rows.length} hand-written cases as the ${version} test set of ${config.name}: ${ref.sha256.slice(0, 12)}`,
        );
        return 0;
      }
      try {
        const { approved, rejected, repeated } = importTestset(text, formatOf(file), file);
        const ref = await store.putJsonl('test', approved, {
          stats: { rows: approved.length, rejectedInAudit: rejected, repeatsDropped: repeated, importedFrom: file },
        });
        await pinTestSet(store, config.name, version, ref, 'import');
        console.log(
          `pinned ${approved.length} approved rows (${rejected} rejected in audit${repeated ? `, ${repeated} identical repeats kept once` : ''}) as the ${version} test set of ${config.name}: ${ref.sha256.slice(0, 12)}`,
        );
        return 0;
      } catch (err) {
        if (err instanceof TestsetError) {
          console.error(err.message);
          return 2;
        }
        throw err;
      }
    }
    throw new UsageError('expected: flywheel testset export|import');
  },
};
