import { Rng } from '../rng.js';
import type { Catalog, CatalogTool } from '../catalog/types.js';
import type { DatasetConfig } from '../config/schema.js';
import { packPoolsAsHarvested } from '../probe/harvest.js';
import type { DomainPools } from '../probe/types.js';
import { canonicalJson } from '../hash.js';
import { corruptRows, type CorruptStats } from './corrupt.js';
import { genericGoal } from './generic/goals.js';
import { deriveUnsatisfiable } from './generic/unsatisfiable.js';
import { drawIntents } from './intents.js';
import { packFor, type DomainPack } from './packs.js';
import { domainPersonas } from './personas.js';
import { candidateRow } from './rows.js';
import type { Candidate } from './teacher/types.js';
import type { Goal, Intent, RouterRow } from './types.js';
import type { CallValidator } from './validate.js';

/**
 * The dataset stages as plain functions over in-memory rows: the activities load and store artifacts
 * around them, tests and the benchmark call them directly.
 */

export function domainTools(catalog: Catalog, domain: string): CatalogTool[] {
  return catalog.tools.filter((t) => t.server === domain);
}

/** Where a tool's intents came from, and why it got none: the coverage table's first columns. */
export interface ToolNote {
  source: 'pack' | 'generic';
  intents: number;
  /** Why the tool got no (or fewer) intents. */
  skipped?: string;
  /** How its probe went: "ok 12 values", "failed: …", "skipped: not read-only …". */
  probe?: string;
}

export interface IntentsStats {
  intents: number;
  byDomain: Record<string, number>;
  unsatisfiable: number;
  skippedGoals: Record<string, string>;
  /** Per tool id (`server/name`). */
  tools: Record<string, ToolNote>;
  /** Per server: why its domain pack was set aside, when it was. */
  packNotes: Record<string, string>;
}

/**
 * Draws per generic goal: enough that, after validation and the split's train share, a tool keeps about
 * minPerTool distinct training rows instead of oversampled copies.
 */
export function genericDraws(dataset: DatasetConfig): number {
  const trainShare = dataset.split.train / (dataset.split.train + dataset.split.val + dataset.split.test);
  return Math.max(dataset.perGoal, Math.ceil((dataset.minPerTool / trainShare) * 1.3));
}

/**
 * Intents for every tool of every server: a domain pack's goals for the tools it covers, a generic goal
 * (schema-sampled arguments, probe values, description-phrased requests) for every other tool.
 */
export async function buildIntents(
  catalog: Catalog,
  dataset: DatasetConfig,
  pools: Record<string, DomainPools>,
  packs: readonly DomainPack[] = [],
  trial?: (tool: CatalogTool, args: Record<string, unknown>) => Promise<boolean>,
): Promise<{ intents: Intent[]; stats: IntentsStats }> {
  const intents: Intent[] = [];
  const stats: IntentsStats = {
    intents: 0,
    byDomain: {},
    unsatisfiable: 0,
    skippedGoals: {},
    tools: {},
    packNotes: {},
  };
  const personas = domainPersonas(catalog, dataset, packs);
  for (const server of catalog.servers) {
    const tools = domainTools(catalog, server.name);
    const pack = packFor(packs, server.serverInfo?.name);
    const found = pools[server.name] ?? { harvested: {}, probes: [] };
    const probeOf = new Map(found.probes.map((p) => [p.tool, p]));
    if (found.packNote) stats.packNotes[server.name] = found.packNote;
    const goals: Goal[] = [];
    const packed = new Set<string>();
    if (pack && found.pack)
      for (const g of pack.goals.filter((g) => tools.some((t) => t.name === g.tool))) {
        goals.push(g);
        packed.add(g.tool);
      }
    for (const tool of tools) {
      const p = probeOf.get(tool.name);
      stats.tools[tool.id] = {
        source: packed.has(tool.name) ? 'pack' : 'generic',
        intents: 0,
        ...(p
          ? {
              probe:
                p.status === 'ok' ? `ok, ${p.values} values from ${p.calls} calls` : `${p.status}: ${p.detail ?? ''}`,
            }
          : {}),
      };
      if (packed.has(tool.name)) continue;
      const goal = genericGoal(server.name, tool, found.harvested, dataset.seed, {
        ...(dataset.phrasing ? { phrasing: dataset.phrasing } : {}),
        siblings: tools,
      });
      if ('skip' in goal) stats.tools[tool.id]!.skipped = goal.skip;
      else goals.push(goal);
    }
    const drawn = await drawIntents({
      domain: server.name,
      goals,
      personas,
      toolScopes: Object.fromEntries(tools.map((t) => [t.name, t.scopes])),
      toolDescriptions: Object.fromEntries(
        tools.filter((t) => !packed.has(t.name) && t.description).map((t) => [t.name, t.description!.slice(0, 400)]),
      ),
      pools: found.pack ?? {},
      perGoal: dataset.perGoal,
      drawsFor: (g) => (g.id.startsWith('generic:') ? genericDraws(dataset) : dataset.perGoal),
      unsatisfiableShare: dataset.unsatisfiableShare,
      asks: [
        ...(pack?.unsatisfiable ?? []),
        ...deriveUnsatisfiable(tools, dataset.phrasing === 'natural' ? { otherTools: { seed: dataset.seed } } : {}),
      ],
      // Pack goals draw from the pack's own pools and need no trial; generic ones do.
      ...(trial
        ? {
            trial: (name: string, args: Record<string, unknown>) =>
              packed.has(name)
                ? Promise.resolve(true)
                : trial(
                    tools.find((t) => t.name === name)!,
                    args,
                  ),
          }
        : {}),
      seed: dataset.seed,
    });
    intents.push(...drawn.intents);
    stats.byDomain[server.name] = drawn.intents.length;
    for (const i of drawn.intents) if (i.tool) stats.tools[`${server.name}/${i.tool}`]!.intents++;
    for (const [g, why] of Object.entries(drawn.skipped)) {
      stats.skippedGoals[`${server.name}/${g}`] = why;
      const tool = goals.find((x) => x.id === g)?.tool;
      const note = tool ? stats.tools[`${server.name}/${tool}`] : undefined;
      if (note && !note.skipped) note.skipped = why;
    }
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
  const stats: ValidateStats = {
    candidates: candidates.length,
    valid: 0,
    rejected: 0,
    rejectionsByReason: {},
    byTool: {},
  };
  const toolsByDomain = new Map<string, CatalogTool[]>();
  // Checks run `concurrency` at a time (dry-runs are round trips to the sandboxes); results are assembled in
  // candidate order, so the output does not depend on timing.
  const verdicts = new Array<Awaited<ReturnType<CallValidator['check']>>>(candidates.length);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, candidates.length) }, async () => {
      while (next < candidates.length) {
        const i = next++;
        const c = candidates[i]!;
        const intent = byId.get(c.intentId);
        if (!intent) throw new Error(`candidate for unknown intent ${c.intentId}`);
        const disagrees = c.malformed ? undefined : disagreement(intent, c);
        verdicts[i] = c.malformed
          ? { valid: false, reason: 'teacher_malformed', detail: c.malformed }
          : disagrees
            ? { valid: false, reason: 'disagrees_with_intent', detail: disagrees }
            : await validator.check(c.target, intent.persona);
        if (++done % 25 === 0) onProgress?.(done);
      }
    }),
  );
  candidates.forEach((c, i) => {
    const intent = byId.get(c.intentId)!;
    const v = verdicts[i]!;
    if (v.valid) {
      if (!toolsByDomain.has(intent.domain)) toolsByDomain.set(intent.domain, domainTools(catalog, intent.domain));
      const row = candidateRow(
        intent,
        c,
        toolsByDomain.get(intent.domain)!,
        dataset.sliceSize,
        dataset.seed,
        dataset.slicing,
        dataset.minSliceSize,
      );
      if (v.checkedBy && c.target.tool !== null) row.provenance.checkedBy = v.checkedBy;
      rows.push(row);
      const key = c.target.tool ?? '(no tool)';
      stats.byTool[key] = (stats.byTool[key] ?? 0) + 1;
      stats.valid++;
    } else {
      rejections.push({
        intentId: c.intentId,
        request: c.request,
        target: c.target,
        reason: v.reason!,
        detail: v.detail ?? '',
      });
      stats.rejectionsByReason[v.reason!] = (stats.rejectionsByReason[v.reason!] ?? 0) + 1;
      stats.rejected++;
    }
  });
  return { rows, rejections, stats };
}

/**
 * Why a teacher's answer does not match what the intent was drawn for (the solving teacher answers the
 * request on its own): another tool, other arguments, or a call where no tool fits. Undefined: it agrees.
 */
export function disagreement(intent: Intent, c: Candidate): string | undefined {
  if (intent.tool === null)
    return c.target.tool === null ? undefined : `no tool fits this ask, but the teacher called ${c.target.tool}`;
  if (c.target.tool !== intent.tool)
    return `the intent is ${intent.tool}, the teacher answered ${c.target.tool ?? 'no call'}`;
  if (canonicalJson(c.target.arguments) !== canonicalJson(intent.arguments))
    return `arguments differ from the intent's: ${canonicalJson(c.target.arguments).slice(0, 200)}`;
  return undefined;
}

/** Positives plus proven near-miss negatives, per domain. `callable`: whether validation can call a tool (see callMode). */
export async function augmentRows(
  rows: RouterRow[],
  catalog: Catalog,
  validator: CallValidator,
  dataset: DatasetConfig,
  pools: Record<string, DomainPools>,
  packs: readonly DomainPack[],
  callable: (tool: CatalogTool) => boolean,
  onProgress?: (checked: number) => void,
): Promise<{ rows: RouterRow[]; stats: CorruptStats & { positives: number; negatives: number } }> {
  const personas = domainPersonas(catalog, dataset, packs);
  const byName = new Map(personas.map((p) => [`${p.domain}/${p.name}`, p]));
  const out: RouterRow[] = [];
  const stats = {
    kept: {} as Record<string, number>,
    dropped: {} as Record<string, number>,
    positives: rows.length,
    negatives: 0,
  };
  let checked = 0;
  for (const domain of [...new Set(rows.map((r) => r.domain))].sort()) {
    const mine = rows.filter((r) => r.domain === domain);
    const tools = domainTools(catalog, domain);
    const found = pools[domain];
    const ctx = {
      tools,
      personas,
      pools: { ...packPoolsAsHarvested(found?.pack ?? {}), ...(found?.harvested ?? {}) },
      sliceSize: dataset.sliceSize,
      ...(dataset.minSliceSize !== undefined ? { minSliceSize: dataset.minSliceSize } : {}),
      slicing: dataset.slicing ?? 'neighbours',
      rng: new Rng(`corrupt:${dataset.seed}:${domain}`),
      callable: (name: string) => tools.some((t) => t.name === name && callable(t)),
    };
    const { negatives, stats: s } = await corruptRows(
      mine,
      ctx,
      async (call, row) => {
        if (++checked % 25 === 0) onProgress?.(checked);
        const v = await validator.check(
          call,
          byName.get(`${domain}/${row.persona.name}`) ?? { ...row.persona, domain },
          row.tools,
        );
        return { ...(v.reason ? { reason: v.reason } : {}), ...(v.detail ? { detail: v.detail } : {}) };
      },
      dataset.negativeShare,
    );
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
    // Only where requests carry a style (natural phrasing), so other datasets' manifests stay as they were.
    ...(rows.some((r) => r.provenance.style) ? { byStyle: count((r) => r.provenance.style ?? 'other') } : {}),
    // Only where rows came from traces or hand-written cases, likewise: trace rows by the format they were read in.
    ...(rows.some((r) => r.provenance.source !== 'generated')
      ? {
          bySource: count((r) =>
            r.provenance.source === 'trace' ? `trace:${r.provenance.format ?? 'messages'}` : r.provenance.source,
          ),
        }
      : {}),
  };
}

/** Distinct (request, arguments) call rows per tool id (`domain/tool`), before any oversampling: what a tool really taught. */
export function distinctCallsByTool(rows: RouterRow[]): Record<string, number> {
  const seen = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.target.tool === null) continue;
    const key = `${r.domain}/${r.target.tool}`;
    const set = seen.get(key) ?? new Set<string>();
    seen.set(key, set.add(canonicalJson([r.request, r.messages ?? null, r.target.arguments])));
  }
  return Object.fromEntries([...seen].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v.size]));
}
