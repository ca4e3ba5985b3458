import { Rng } from '../../sandboxes/common/rng.js';
import type { Catalog, CatalogTool } from '../catalog/types.js';
import type { DatasetConfig } from '../config/schema.js';
import type { EntityPools } from '../sandbox/entities.js';
import { corruptRows, type CorruptStats } from './corrupt.js';
import { GOALS_BY_SERVER } from './goals/index.js';
import { drawIntents } from './intents.js';
import { DEFAULT_PERSONAS } from './personas.js';
import { candidateRow } from './rows.js';
import type { Candidate } from './teacher/types.js';
import type { Intent, Persona, RouterRow } from './types.js';
import type { CallValidator } from './validate.js';

/**
 * The dataset stages as plain functions over in-memory rows: the activities load and store artifacts
 * around them, tests and the benchmark call them directly.
 */

export function personasOf(dataset: DatasetConfig): Persona[] {
  return dataset.personas ?? DEFAULT_PERSONAS;
}

export function domainTools(catalog: Catalog, domain: string): CatalogTool[] {
  return catalog.tools.filter((t) => t.server === domain);
}

export interface IntentsStats {
  intents: number;
  byDomain: Record<string, number>;
  unsatisfiable: number;
  skippedGoals: Record<string, string>;
  domainsWithoutGoals: string[];
}

/** Intents for every catalog server that has goal templates, from entity pools sampled per server. */
export function buildIntents(catalog: Catalog, dataset: DatasetConfig, pools: Record<string, EntityPools>): { intents: Intent[]; stats: IntentsStats } {
  const intents: Intent[] = [];
  const stats: IntentsStats = { intents: 0, byDomain: {}, unsatisfiable: 0, skippedGoals: {}, domainsWithoutGoals: [] };
  for (const server of catalog.servers) {
    const goals = server.serverInfo ? GOALS_BY_SERVER[server.serverInfo.name] : undefined;
    if (!goals || !pools[server.name]) {
      stats.domainsWithoutGoals.push(server.name);
      continue;
    }
    const toolScopes = Object.fromEntries(domainTools(catalog, server.name).map((t) => [t.name, t.scopes]));
    const drawn = drawIntents({
      domain: server.name,
      goals,
      personas: personasOf(dataset).map((p) => ({ ...p })),
      toolScopes,
      pools: pools[server.name]!,
      perGoal: dataset.perGoal,
      unsatisfiableShare: dataset.unsatisfiableShare,
      seed: dataset.seed,
    });
    intents.push(...drawn.intents);
    stats.byDomain[server.name] = drawn.intents.length;
    for (const [g, why] of Object.entries(drawn.skipped)) stats.skippedGoals[`${server.name}/${g}`] = why;
  }
  stats.intents = intents.length;
  stats.unsatisfiable = intents.filter((i) => i.tool === null).length;
  return { intents, stats };
}

export interface ValidateStats {
  candidates: number;
  valid: number;
  rejected: number;
  rejectionsByReason: Record<string, number>;
  byTool: Record<string, number>;
}

export interface Rejection {
  intentId: string;
  request: string;
  target: Candidate['target'];
  reason: string;
  detail: string;
}

/** Check every candidate; valid ones become rows with their tool slice, the rest rejections with a reason. */
export async function validateCandidates(
  intents: Intent[],
  candidates: Candidate[],
  catalog: Catalog,
  validator: CallValidator,
  dataset: DatasetConfig,
  onProgress?: (done: number) => void,
  concurrency = 8,
): Promise<{ rows: RouterRow[]; rejections: Rejection[]; stats: ValidateStats }> {
  const byId = new Map(intents.map((i) => [i.id, i]));
  const rows: RouterRow[] = [];
  const rejections: Rejection[] = [];
  const stats: ValidateStats = { candidates: candidates.length, valid: 0, rejected: 0, rejectionsByReason: {}, byTool: {} };
  const toolsByDomain = new Map<string, CatalogTool[]>();
  // Checks run `concurrency` at a time (dry-runs are round trips to the sandboxes); results are assembled in
  // candidate order, so the output does not depend on timing.
  const verdicts = new Array<Awaited<ReturnType<CallValidator['check']>>>(candidates.length);
  let next = 0;
  let done = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, candidates.length) }, async () => {
    while (next < candidates.length) {
      const i = next++;
      const c = candidates[i]!;
      const intent = byId.get(c.intentId);
      if (!intent) throw new Error(`candidate for unknown intent ${c.intentId}`);
      verdicts[i] = c.malformed ? { valid: false, reason: 'teacher_malformed', detail: c.malformed } : await validator.check(c.target, intent.persona);
      if (++done % 500 === 0) onProgress?.(done);
    }
  }));
  candidates.forEach((c, i) => {
    const intent = byId.get(c.intentId)!;
    const v = verdicts[i]!;
    if (v.valid) {
      if (!toolsByDomain.has(intent.domain)) toolsByDomain.set(intent.domain, domainTools(catalog, intent.domain));
      rows.push(candidateRow(intent, c, toolsByDomain.get(intent.domain)!, dataset.sliceSize, dataset.seed));
      const key = c.target.tool ?? '(no tool)';
      stats.byTool[key] = (stats.byTool[key] ?? 0) + 1;
      stats.valid++;
    } else {
      rejections.push({ intentId: c.intentId, request: c.request, target: c.target, reason: v.reason!, detail: v.detail ?? '' });
      stats.rejectionsByReason[v.reason!] = (stats.rejectionsByReason[v.reason!] ?? 0) + 1;
      stats.rejected++;
    }
  });
  return { rows, rejections, stats };
}

/** Positives plus proven near-miss negatives, per domain. */
export async function augmentRows(
  rows: RouterRow[],
  catalog: Catalog,
  validator: CallValidator,
  dataset: DatasetConfig,
  pools: Record<string, EntityPools>,
  onProgress?: (checked: number) => void,
): Promise<{ rows: RouterRow[]; stats: CorruptStats & { positives: number; negatives: number } }> {
  const personas = personasOf(dataset);
  const byName = new Map(personas.map((p) => [p.name, p]));
  const out: RouterRow[] = [];
  const stats = { kept: {} as Record<string, number>, dropped: {} as Record<string, number>, positives: rows.length, negatives: 0 };
  let checked = 0;
  for (const domain of [...new Set(rows.map((r) => r.domain))].sort()) {
    const mine = rows.filter((r) => r.domain === domain);
    const ctx = { tools: domainTools(catalog, domain), personas, pools: pools[domain] ?? {}, sliceSize: dataset.sliceSize, rng: new Rng(`corrupt:${dataset.seed}:${domain}`) };
    const { negatives, stats: s } = await corruptRows(mine, ctx, async (call, row) => {
      if (++checked % 500 === 0) onProgress?.(checked);
      return (await validator.check(call, byName.get(row.persona.name) ?? { ...row.persona, domain }, row.tools)).reason;
    }, dataset.negativeShare);
    out.push(...mine, ...negatives);
    stats.negatives += negatives.length;
    for (const [k, n] of Object.entries(s.kept)) stats.kept[k] = (stats.kept[k] ?? 0) + n;
    for (const [k, n] of Object.entries(s.dropped)) stats.dropped[k] = (stats.dropped[k] ?? 0) + n;
  }
  return { rows: out, stats };
}

/** Counts per tool, domain and verdict: what every dataset artifact's manifest carries. */
export function rowStats(rows: RouterRow[]): Record<string, unknown> {
  const count = (key: (r: RouterRow) => string) => {
    const out: Record<string, number> = {};
    for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
  };
  return {
    rows: rows.length,
    byDomain: count((r) => r.domain),
    byVerdict: count((r) => (r.target.tool === null ? r.target.verdict : 'call')),
    byTool: count((r) => r.target.tool ?? `(${r.target.code})`),
    byOperator: count((r) => r.provenance.operator ?? 'none'),
  };
}
