/**
 * Recall@k of the lexical tool retriever (core/retrieve/tool-retriever.ts) when an agent offers every tool of
 * the config's servers: does the tool a request needs land in the k the router would see? Scored on the call
 * rows of the frozen synthetic test set and on the hand-written cases (which no generator phrasing produced).
 * The baseline in the same run is a random slice of k, which is what recall would be with no retriever.
 *
 *   node --import tsx scripts/bench/retriever-recall.ts [--config FILE] [--cases FILE] [--k 1,4,6,8]
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../core/config/load.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { retrieverRecall } from '../../core/retrieve/recall.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { buildDataset } from '../lib/build-dataset.js';
import { handwrittenRowsOf } from '../lib/handwritten.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: join(REPO, DEFAULT_CONFIG) },
    cases: { type: 'string', default: join(REPO, 'test', 'fixtures', 'handwritten', 'sandboxes.jsonl') },
    k: { type: 'string', default: '1,4,6,8' },
  },
});
const ks = values.k.split(',').map(Number);
const config = await loadConfigFile(values.config);
if (!config.dataset) throw new Error(`${values.config}: the retriever benchmark needs a dataset section`);
// Rows sliced the classic way, so a retriever miss is not already relabelled tool_not_offered.
const dataset = { ...config.dataset, slicing: 'neighbours' as const };
const built = await buildDataset({ ...config, dataset });
const tools = built.catalog.tools;

function recall(rows: RouterRow[]) {
  const t0 = performance.now();
  const r = retrieverRecall(rows, tools, ks);
  const msPerQuery = (performance.now() - t0) / Math.max(1, r.calls);
  return { n: r.calls, recall: ks.map((k) => r.recallAt[String(k)] ?? 0), msPerQuery };
}

const handRows = handwrittenRowsOf(await readFile(values.cases, 'utf8'), values.cases, built.catalog, dataset);
const sets = [
  { name: 'frozen test set (calls)', ...recall(built.rows.test) },
  { name: 'hand-written (calls)', ...recall(handRows) },
];
console.log(`${tools.length} tools offered (every tool of ${built.catalog.servers.map((s) => s.name).join(', ')})`);
console.log(`| set | cases | ${ks.map((k) => `recall@${k}`).join(' | ')} | ms/query |`);
console.log(`|---|---|${ks.map(() => '---|').join('')}---|`);
for (const s of sets)
  console.log(`| ${s.name} | ${s.n} | ${s.recall.map((r) => r.toFixed(3)).join(' | ')} | ${s.msPerQuery.toFixed(2)} |`);
console.log(
  `| random slice (baseline) | — | ${ks.map((k) => Math.min(1, k / tools.length).toFixed(3)).join(' | ')} | — |`,
);
const at8 = ks.includes(8) ? ks.indexOf(8) : ks.length - 1;
console.log(
  `retriever: recall@${ks[at8]} test=${sets[0]!.recall[at8]!.toFixed(3)} handwritten=${sets[1]!.recall[at8]!.toFixed(3)}`,
);
