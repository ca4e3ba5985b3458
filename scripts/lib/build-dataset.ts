/**
 * The dataset stages as plain functions, in memory, no Temporal: what the benchmarks build their rows with.
 * Same core/ code and same order as the workflow's stages (ingest → intents → generate → solve → validate →
 * corrupt → split → render), against the config's live servers.
 */
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { augmentRows, buildIntents, validateCandidates } from '../../core/dataset/pipeline.js';
import { splitByEntity, trainingRows } from '../../core/dataset/split.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { connectServer, type McpConnection } from '../../core/mcp/connect.js';
import { callModeFor } from '../../core/probe/call-mode.js';
import { discoverPools } from '../../core/probe/discover.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';

export interface BuiltDataset {
  catalog: Catalog;
  /** Router rows per split; train is balanced (minPerTool, negativeShare) as the split stage balances it. */
  rows: { train: RouterRow[]; val: RouterRow[]; test: RouterRow[] };
  /** Rows after each stage: intents drawn, candidates that validated, rows with negatives. */
  counts: { intents: number; valid: number; augmented: number };
  /** Seconds per stage. */
  seconds: Record<string, number>;
}

export async function buildDataset(config: FlywheelConfig): Promise<BuiltDataset> {
  const dataset = config.dataset;
  if (!dataset) throw new Error(`config ${config.name} has no dataset section`);
  // The benchmarks run without an artifact store, which the openai teacher caches its answers in: rather than
  // quietly measure another teacher's data, say so.
  if (dataset.teacher.kind !== 'template') {
    throw new Error(
      `config ${config.name}: dataset.teacher.kind is ${dataset.teacher.kind}; the benchmarks build rows with the template teacher only (run the pipeline for the ${dataset.teacher.kind} teacher's data)`,
    );
  }
  const seconds: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    seconds[name] = (performance.now() - t) / 1000;
    t = performance.now();
  };
  const catalog = buildCatalog(
    config.name,
    await Promise.all(config.servers.map((s) => listServerTools(s, { maxPages: 100 }))),
  );
  lap('ingest');
  const conns = new Map<string, McpConnection>();
  try {
    for (const s of config.servers) if (!s.tools) conns.set(s.name, await connectServer(s));
    const pools = await discoverPools(conns, config.servers, catalog, DOMAIN_PACKS, dataset.seed);
    const { intents } = await buildIntents(catalog, dataset, pools, DOMAIN_PACKS);
    lap('intents');
    const teacher = templateTeacher(dataset.seed);
    const drafts = await teacher.generate(intents);
    lap('generate');
    const candidates = await teacher.solve(intents, drafts);
    lap('solve');
    const validator = new CallValidator(catalog, mcpDryRunner(conns, config.servers));
    const { rows } = await validateCandidates(intents, candidates, catalog, validator, dataset);
    lap('validate');
    const { rows: augmented } = await augmentRows(
      rows,
      catalog,
      validator,
      dataset,
      pools,
      DOMAIN_PACKS,
      (tool) => callModeFor(config.servers)(tool).mode !== 'schema',
    );
    lap('corrupt');
    const s = splitByEntity(augmented, dataset.split, dataset.seed);
    const { rows: train } = trainingRows(s.train, dataset);
    lap('split');
    return {
      catalog,
      rows: { train, val: s.val, test: s.test },
      counts: { intents: intents.length, valid: rows.length, augmented: augmented.length },
      seconds,
    };
  } finally {
    for (const c of conns.values()) await c.close();
  }
}
