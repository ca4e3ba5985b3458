import { hashOf } from '../hash.js';
import type { RouterRow } from './types.js';

export interface SplitRatios {
  train: number;
  val: number;
  test: number;
}

export interface Splits {
  train: RouterRow[];
  val: RouterRow[];
  test: RouterRow[];
}

/** Rows that share any entity key end up in one group (union-find), so no entity can span two splits. */
export function entityGroups(rows: RouterRow[]): RouterRow[][] {
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let r = k;
    while (parent.get(r) !== r) r = parent.get(r)!;
    let c = k;
    while (parent.get(c) !== r) {
      const next = parent.get(c)!;
      parent.set(c, r);
      c = next;
    }
    return r;
  };
  for (const row of rows) {
    if (row.entities.length === 0) throw new Error(`row ${row.id} has no entities; every row needs a split key`);
    for (const e of row.entities) if (!parent.has(e)) parent.set(e, e);
    const root = find(row.entities[0]!);
    for (const e of row.entities.slice(1)) parent.set(find(e), root);
  }
  const groups = new Map<string, RouterRow[]>();
  for (const row of rows) {
    const root = find(row.entities[0]!);
    groups.set(root, [...(groups.get(root) ?? []), row]);
  }
  return [...groups.values()];
}

/**
 * Split by entity: whole entity groups go to one split. Within each stratum (domain x tool), groups are
 * taken in a seeded order and each goes to the split furthest below its target share, so every split gets
 * its share of each tool and domain. With `frozenTest`, that set is the test split as it stands; groups touching its entities are held
 * out of train and val entirely.
 */
export function splitByEntity(
  rows: RouterRow[],
  ratios: SplitRatios,
  seed: string | number,
  frozenTest?: RouterRow[],
): Splits & { heldOut: number } {
  const out: Splits = { train: [], val: [], test: frozenTest ? [...frozenTest] : [] };
  const frozenKeys = new Set((frozenTest ?? []).flatMap((r) => r.entities));
  const frozenIds = new Set((frozenTest ?? []).map((r) => r.id));
  let heldOut = 0;
  const names = (frozenTest ? ['train', 'val'] : ['train', 'val', 'test']) as Array<keyof Splits>;
  const total = names.reduce((s, n) => s + ratios[n], 0);
  // Strata: domain x the group's tool (its positives' tool, or the abstention code), so every tool and the
  // unsatisfiable asks get their share in each split, not just every domain.
  const strata = new Map<string, RouterRow[][]>();
  for (const g of entityGroups(rows.filter((r) => !frozenIds.has(r.id)))) {
    if (g.some((r) => r.entities.some((e) => frozenKeys.has(e)))) {
      heldOut += g.length;
      continue;
    }
    const lead = g.find((r) => !r.provenance.operator) ?? g[0]!;
    const key = `${lead.domain}|${lead.target.tool ?? `(${lead.target.code})`}`;
    strata.set(key, [...(strata.get(key) ?? []), g]);
  }
  for (const key of [...strata.keys()].sort()) {
    const groups = strata
      .get(key)!
      .map((g) => ({ g, k: hashOf({ seed, key: [...g.map((r) => r.id)].sort()[0] }) }))
      .sort((a, b) => (a.k < b.k ? -1 : 1));
    const counts: Record<string, number> = { train: 0, val: 0, test: 0 };
    let placed = 0;
    for (const { g } of groups) {
      placed += g.length;
      let best = names[0]!;
      let deficit = -Infinity;
      for (const n of names) {
        const d = (ratios[n] / total) * placed - counts[n]!;
        if (d > deficit) {
          deficit = d;
          best = n;
        }
      }
      counts[best]! += g.length;
      out[best].push(...g);
    }
  }
  return { ...out, heldOut };
}

/** Entity keys that appear in more than one split; must be empty. */
export function entityOverlap(s: Splits): string[] {
  const where = new Map<string, Set<string>>();
  for (const name of ['train', 'val', 'test'] as const)
    for (const r of s[name]) for (const e of r.entities) where.set(e, (where.get(e) ?? new Set()).add(name));
  return [...where]
    .filter(([, set]) => set.size > 1)
    .map(([e]) => e)
    .sort();
}

/**
 * Oversample the training split: tools with fewer than `minPerTool` rows and, if negatives are under
 * `negativeShare`, negatives, by repeating rows round-robin. Copies get ids `<id>#<n>`; val and test are
 * never touched.
 */
export function balanceTrain(train: RouterRow[], opts: { minPerTool: number; negativeShare: number }): RouterRow[] {
  const out = [...train];
  const byTool = new Map<string, RouterRow[]>();
  for (const r of train)
    if (r.target.tool !== null) byTool.set(r.target.tool, [...(byTool.get(r.target.tool) ?? []), r]);
  for (const [, rows] of [...byTool].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (let i = 0; rows.length + i < opts.minPerTool; i++)
      out.push({ ...rows[i % rows.length]!, id: `${rows[i % rows.length]!.id}#${Math.floor(i / rows.length) + 1}` });
  }
  const negatives = train.filter((r) => r.target.tool === null);
  if (negatives.length) {
    let copies = 0;
    while (out.filter((r) => r.target.tool === null).length / out.length < opts.negativeShare) {
      const src = negatives[copies % negatives.length]!;
      out.push({ ...src, id: `${src.id}#n${Math.floor(copies / negatives.length) + 1}` });
      copies++;
    }
  }
  return out;
}

/** What `capTrain` left out of the training split. */
export interface TrainCap {
  maxPerTool: number;
  droppedCalls: number;
  droppedNoCalls: number;
}

/**
 * Cap the training split at `maxPerTool` calls per tool, and its no-calls at the share of the split they had, so a
 * run on a small budget (a CPU) can see every row it keeps. Originals are kept before oversampled copies, then in
 * an order drawn from the seed; no-calls are kept round-robin over their codes so none is squeezed out. The rows
 * kept stay in their order; val and test are never touched.
 */
export function capTrain(
  train: RouterRow[],
  opts: { maxPerTool: number; seed: string | number },
): { rows: RouterRow[]; cap: TrainCap } {
  // Rows from traces first (real traffic is what a retrain is for), then originals before oversampled copies, then
  // the seed's draw.
  const order = (rows: RouterRow[]) =>
    rows
      .map((r) => ({
        r,
        generated: r.provenance.source === 'trace' ? 0 : 1,
        copy: r.id.includes('#') ? 1 : 0,
        draw: hashOf([opts.seed, 'cap', r.id]),
      }))
      .sort((a, b) => a.generated - b.generated || a.copy - b.copy || (a.draw < b.draw ? -1 : a.draw > b.draw ? 1 : 0))
      .map((x) => x.r);
  const groups = (rows: RouterRow[], label: (r: RouterRow) => string) => {
    const by = new Map<string, RouterRow[]>();
    for (const r of rows) by.set(label(r), [...(by.get(label(r)) ?? []), r]);
    return [...by].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, g]) => order(g));
  };
  const calls = train.filter((r) => r.target.tool !== null);
  const noCalls = train.filter((r) => r.target.tool === null);
  const kept = new Set<RouterRow>();
  for (const g of groups(calls, (r) => r.target.tool!)) for (const r of g.slice(0, opts.maxPerTool)) kept.add(r);
  const callsKept = kept.size;
  const share = train.length ? noCalls.length / train.length : 0;
  const noCallsWanted = Math.min(
    noCalls.length,
    share < 1 ? Math.round((callsKept * share) / (1 - share)) : noCalls.length,
  );
  const byCode = groups(noCalls, (r) => ('code' in r.target ? String(r.target.code) : ''));
  for (let i = 0; kept.size - callsKept < noCallsWanted; i++)
    for (const g of byCode) if (i < g.length && kept.size - callsKept < noCallsWanted) kept.add(g[i]!);
  return {
    rows: train.filter((r) => kept.has(r)),
    cap: {
      maxPerTool: opts.maxPerTool,
      droppedCalls: calls.length - callsKept,
      droppedNoCalls: noCalls.length - (kept.size - callsKept),
    },
  };
}

/**
 * Repeat the rows from traces, in turn, until they are `share` of the training split: a retrain's traffic is a
 * few hundred rows beside thousands of synthetic ones, and a step budget that samples the split would hardly see
 * it. Copies are made of the rows as they came (not of balance's copies), get ids `<id>#t<n>` and come after every
 * other row; a split with no trace rows, or with its share already, is returned as it is.
 */
export function shareTraces(train: RouterRow[], share: number): { rows: RouterRow[]; copies: number } {
  const traced = train.filter((r) => r.provenance.source === 'trace');
  const originals = traced.filter((r) => !r.id.includes('#'));
  const sources = originals.length ? originals : traced;
  if (!sources.length) return { rows: train, copies: 0 };
  // traced + copies ≥ share × (train + copies)  ⇔  copies ≥ (share × train − traced) / (1 − share)
  const copies = Math.max(0, Math.ceil((share * train.length - traced.length) / (1 - share) - 1e-9));
  const rows = [...train];
  for (let i = 0; i < copies; i++) {
    const src = sources[i % sources.length]!;
    rows.push({ ...src, id: `${src.id}#t${Math.floor(i / sources.length) + 1}` });
  }
  return { rows, copies };
}

/**
 * The training split as the split stage writes it: balanced (minPerTool, negativeShare), capped (maxPerTool), then
 * its rows from traces repeated up to traceShare (`traceCopies`: how many copies that added).
 */
export function trainingRows(
  train: RouterRow[],
  dataset: {
    minPerTool: number;
    negativeShare: number;
    maxPerTool?: number;
    traceShare?: number;
    seed: string | number;
  },
): { rows: RouterRow[]; cap?: TrainCap; traceCopies?: number } {
  const balanced = balanceTrain(train, dataset);
  const capped =
    dataset.maxPerTool === undefined
      ? { rows: balanced }
      : capTrain(balanced, { maxPerTool: dataset.maxPerTool, seed: dataset.seed });
  if (dataset.traceShare === undefined) return capped;
  const shared = shareTraces(capped.rows, dataset.traceShare);
  return { ...capped, rows: shared.rows, traceCopies: shared.copies };
}

/** How the split stage's summary says what a cap left out. */
export function describeCap(cap: TrainCap): string {
  return `capped at ${cap.maxPerTool} calls per tool: ${cap.droppedCalls} calls and ${cap.droppedNoCalls} no-calls left out of train`;
}
