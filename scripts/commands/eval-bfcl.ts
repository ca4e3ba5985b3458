/** `flywheel eval --bfcl CATEGORY[,…]`: an endpoint judged by BFCL's own checker on BFCL's questions. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Catalog } from '../../core/catalog/types.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import type { EvaluateOptions } from '../../core/eval/evaluate.js';
import {
  bfclGroups,
  bfclMarkdown,
  bfclTable,
  parseCategories,
  scoreBfcl,
  type BfclReport,
} from '../../core/eval/bfcl/index.js';

export interface BfclEvalArgs {
  categories: string;
  spec: EndpointSpec;
  catalog?: Catalog;
  limit?: number;
  sampleSeed: string;
  options: Omit<EvaluateOptions, 'onProgress' | 'onPrediction'>;
  out: string;
}

/** Score, print the table, write bfcl.json and bfcl.md into `out`. */
export async function runBfclEval(args: BfclEvalArgs): Promise<BfclReport> {
  const categories = parseCategories(args.categories);
  const { judge, groups } = await bfclGroups(categories, {
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    seed: args.sampleSeed,
    ...(args.catalog ? { catalog: args.catalog } : {}),
  });
  console.error(
    `scoring ${args.spec.label} at ${args.spec.baseUrl} on BFCL ${groups.map((g) => `${g.category} ${g.cases.length}/${g.total}`).join(', ')}; judge: ${judge.python}`,
  );
  const started = performance.now();
  const score = await scoreBfcl(groups, args.spec, {
    ...args.options,
    onProgress: (category, done, total) => {
      if (done % 10 === 0 || done === total) {
        const s = ((performance.now() - started) / 1000).toFixed(0);
        console.error(`${category}: ${done}/${total} (${s} s)`);
      }
    },
  });
  const report: BfclReport = {
    createdAt: new Date().toISOString(),
    judge,
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    sampleSeed: args.sampleSeed,
    endpoints: [score],
  };
  const out = resolve(args.out);
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'bfcl.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(out, 'bfcl.md'), bfclMarkdown(report));
  console.log(bfclTable(report.endpoints));
  console.log(`\nreport: ${join(out, 'bfcl.md')} (also bfcl.json, every answer with BFCL's verdict)`);
  return report;
}
