import type { ArtifactStore, Manifest } from '../artifacts/index.js';
import { LineageGraph } from '../lineage.js';

/**
 * The store's manifests with their lineage graph: the graph answers "what is this, what was it made from";
 * the list answers "what was made directly from this", newest first (store.list() order).
 */
export class LineageIndex {
  readonly graph: LineageGraph;

  constructor(readonly manifests: Manifest[]) {
    this.graph = new LineageGraph(manifests);
  }

  static async of(store: ArtifactStore): Promise<LineageIndex> {
    return new LineageIndex(await store.list());
  }

  manifest(sha: string | undefined): Manifest | undefined {
    return sha ? this.graph.manifest(sha) : undefined;
  }

  parentOfKind(m: Manifest | undefined, kind: string): Manifest | undefined {
    return m?.parents.map((p) => this.graph.manifest(p)).find((p) => p?.kind === kind);
  }

  /** Artifacts made directly from this one, newest first. */
  children(sha: string, kind?: string): Manifest[] {
    return this.manifests.filter((m) => m.parents.includes(sha) && (kind === undefined || m.kind === kind));
  }
}
