import type { Manifest } from './artifacts/types.js';

/** One artifact in a lineage tree: what it is and what it came from (or what came from it). */
export interface LineageNode {
  sha256: string;
  kind: string;
  count: number;
  createdAt: string;
  /** adapterVersion, catalog version, promote…: the stats that name the artifact for a person. */
  label: string;
  children: LineageNode[];
}

const LABEL_KEYS = ['adapterVersion', 'version', 'promote', 'rows', 'cases', 'format'];

function label(m: Manifest): string {
  return LABEL_KEYS.filter((k) => m.stats[k] !== undefined)
    .map((k) => `${k} ${JSON.stringify(m.stats[k])}`)
    .join(', ');
}

/**
 * The artifact graph from manifests (every manifest names its parents): upstream is what an artifact was
 * made from — catalog, traces, dataset, test set — and downstream what was made from it: adapters, eval
 * reports, deployments. Each artifact appears once per tree (a shared ancestor is shown where first reached);
 * walking down, each artifact also names its other inputs (an eval report's test set).
 */
export class LineageGraph {
  private readonly bySha = new Map<string, Manifest>();
  private readonly childrenOf = new Map<string, string[]>();

  constructor(manifests: Manifest[]) {
    for (const m of manifests) {
      this.bySha.set(m.sha256, m);
      for (const p of m.parents) this.childrenOf.set(p, [...(this.childrenOf.get(p) ?? []), m.sha256]);
    }
  }

  manifest(sha: string): Manifest | undefined {
    return this.bySha.get(sha);
  }

  /** The adapter artifacts trained as this adapter version (a retrain after a lost memo can make several). */
  adaptersOf(adapterVersion: string): Manifest[] {
    return [...this.bySha.values()].filter((m) => m.kind === 'adapter' && m.stats.adapterVersion === adapterVersion);
  }

  upstream(sha: string): LineageNode {
    return this.walk(sha, this.upstreamOf, new Set());
  }

  downstream(sha: string): LineageNode {
    return this.walk(sha, (m) => this.childrenOf.get(m.sha256) ?? [], new Set());
  }

  private walk(sha: string, next: (m: Manifest) => string[], seen: Set<string>, from?: string): LineageNode {
    seen.add(sha);
    const m = this.bySha.get(sha);
    if (!m) return { sha256: sha, kind: '(not in this store)', count: 0, createdAt: '', label: '', children: [] };
    const children: LineageNode[] = [];
    for (const s of next(m)) if (!seen.has(s)) children.push(this.walk(s, next, seen, sha));
    // Walking down, an artifact's other inputs matter too (an eval report's test set): name them.
    const others =
      from === undefined || next === this.upstreamOf
        ? []
        : m.parents.filter((p) => p !== from).map((p) => `${this.bySha.get(p)?.kind ?? 'artifact'} ${p.slice(0, 12)}`);
    const text = [label(m), others.length ? `also from ${others.join(', ')}` : ''].filter(Boolean).join('; ');
    return { sha256: sha, kind: m.kind, count: m.count, createdAt: m.createdAt, label: text, children };
  }

  private readonly upstreamOf = (m: Manifest): string[] => m.parents;
}

/** An indented tree, one artifact per line. */
export function renderTree(node: LineageNode, indent = ''): string[] {
  const line = `${indent}${node.kind} ${node.sha256.slice(0, 12)}${node.count ? ` (${node.count})` : ''}${node.label ? ` — ${node.label}` : ''}`;
  return [line, ...node.children.flatMap((c) => renderTree(c, `${indent}  `))];
}
