import { retrievalQuery } from '../dataset/slice.js';
import type { RouterRow } from '../dataset/types.js';
import { bm25Retriever, type RetrievableTool } from './tool-retriever.js';

/** How often the retriever puts a call's tool among its top k, when every tool in `tools` is offered at once. */
export interface RetrieverRecall {
  retriever: 'bm25';
  /** Tools the retriever ranked for each request (an agent offering all of them). */
  toolsOffered: number;
  /** Call rows scored (no-calls have no tool to find). */
  calls: number;
  /** k → share of calls whose tool ranked in the top k; null without calls. */
  recallAt: Record<string, number | null>;
}

/**
 * Recall@k of the gateway's BM25 retriever on rows' calls, each asked with the request text the gateway reads
 * (every user turn, the deciding one last). Rows sliced by that retriever (`dataset.slicing: retriever`) have
 * their misses relabelled `tool_not_offered` already, which this cannot see: score rows sliced the classic way.
 */
export function retrieverRecall(rows: RouterRow[], tools: RetrievableTool[], ks: number[]): RetrieverRecall {
  const retriever = bm25Retriever(tools);
  const calls = rows.filter((r) => r.target.tool !== null);
  const hits = new Map(ks.map((k) => [k, 0]));
  const deepest = Math.max(...ks);
  for (const row of calls) {
    const ranked = retriever.rank(retrievalQuery(row.request, row.messages?.slice(0, -1)), deepest);
    for (const k of ks) if (ranked.slice(0, k).includes(row.target.tool!)) hits.set(k, hits.get(k)! + 1);
  }
  return {
    retriever: 'bm25',
    toolsOffered: tools.length,
    calls: calls.length,
    recallAt: Object.fromEntries(ks.map((k) => [String(k), calls.length ? hits.get(k)! / calls.length : null])),
  };
}
