import type { Catalog } from '../catalog/types.js';
import type { Rejection, ToolNote } from './pipeline.js';
import type { Intent, RouterRow } from './types.js';

/** One row of the coverage table: what the dataset holds for a tool, and why it holds nothing when it does not. */
export interface ToolCoverage {
  /** `server/name`. */
  tool: string;
  source: 'pack' | 'generic';
  probe?: string;
  intents: number;
  valid: number;
  rejected: Record<string, number>;
  /** How its valid rows were checked: executed, dry-run, schema only. */
  checkedBy: Record<string, number>;
  /** Set when the tool has no valid rows: the reason. */
  noData?: string;
}

/**
 * Per tool: intents drawn, rows that passed validation, rejections by reason, and the reason a tool got no
 * data (unsampleable schema, no persona, every candidate rejected). Catalog order; quarantined tools too.
 */
export function toolCoverage(
  catalog: Catalog,
  notes: Record<string, ToolNote>,
  intents: Intent[],
  rows: RouterRow[],
  rejections: Rejection[],
): ToolCoverage[] {
  const intentOf = new Map(intents.map((i) => [i.id, i]));
  const table = new Map<string, ToolCoverage>();
  for (const t of catalog.tools) {
    const note = notes[t.id];
    table.set(t.id, {
      tool: t.id,
      source: note?.source ?? 'generic',
      ...(note?.probe ? { probe: note.probe } : {}),
      intents: 0,
      valid: 0,
      rejected: {},
      checkedBy: {},
    });
  }
  for (const i of intents)
    if (i.tool) {
      const c = table.get(`${i.domain}/${i.tool}`);
      if (c) c.intents++;
    }
  for (const r of rows)
    if (r.target.tool !== null) {
      const c = table.get(`${r.domain}/${r.target.tool}`);
      if (!c) continue;
      c.valid++;
      const how = r.provenance.checkedBy ?? 'schema';
      c.checkedBy[how] = (c.checkedBy[how] ?? 0) + 1;
    }
  for (const j of rejections) {
    const intent = intentOf.get(j.intentId);
    const c = intent?.tool ? table.get(`${intent.domain}/${intent.tool}`) : undefined;
    if (c) c.rejected[j.reason] = (c.rejected[j.reason] ?? 0) + 1;
  }
  for (const c of table.values()) {
    if (c.valid > 0) continue;
    const note = notes[c.tool];
    const top = Object.entries(c.rejected).sort((a, b) => b[1] - a[1])[0];
    c.noData =
      c.intents === 0
        ? (note?.skipped ?? 'no intents drawn')
        : top
          ? `every candidate rejected (${top[0]} ${top[1]})`
          : (note?.skipped ?? 'no valid rows');
  }
  const quarantined = catalog.quarantined.map((q): ToolCoverage => ({
    tool: `${q.server}/${q.name ?? '?'}`,
    source: 'generic',
    intents: 0,
    valid: 0,
    rejected: {},
    checkedBy: {},
    noData: `quarantined at ingest (${q.code}): ${q.reason}`,
  }));
  return [...table.values(), ...quarantined];
}

/** "12/14 tools have data (generic 10, pack 2)". */
export function coverageSummary(rows: ToolCoverage[]): string {
  const covered = rows.filter((r) => r.valid > 0);
  const by = (s: string) => covered.filter((r) => r.source === s).length;
  return `${covered.length}/${rows.length} tools have data (${by('pack')} from packs, ${by('generic')} generic)`;
}
