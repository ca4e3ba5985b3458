/**
 * Score cases the way production meets them: sent raw, as a live agent sends them (its conversation, no router
 * prompt, every tool of the catalog), through a real gateway with `gateway.render`, to a served model. Beside
 * the pre-rendered score of the same cases, the gap is what rendering at inference (retriever slice, caller
 * from config) costs.
 */
import { join } from 'node:path';
import type { Catalog } from '../../core/catalog/types.js';
import { type ChatMessage, offeredTool } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import type { EvaluateOptions } from '../../core/eval/evaluate.js';
import { aggregate } from '../../core/eval/metrics.js';
import type { CaseResult, EndpointResult, EvalCase } from '../../core/eval/types.js';
import { type RetrieverRecall, retrieverRecall } from '../../core/retrieve/recall.js';
import { gatewaySchema } from '../../core/config/schema.js';
import { startGateway } from '../../gateway/server.js';
import { toolScopes } from '../../core/scope-guard.js';

export interface ThroughGateway {
  result: EndpointResult;
  /** The gateway's retriever on these cases' calls: recall at the slice size (what the router saw) and at 8. */
  recall: RetrieverRecall;
}

/** `rows` must carry their original targets (sliced the classic way, so none was relabelled for a retriever miss). */
export async function scoreThroughGateway(
  rows: RouterRow[],
  catalog: Catalog,
  backend: { url: string; model: string },
  sliceSize: number,
  dir: string,
  opts: EvaluateOptions,
): Promise<ThroughGateway> {
  const tools = catalog.tools.map(offeredTool);
  const registryFile = join(dir, 'gateway-registry.sqlite');
  const writer = await openRegistry(registryFile);
  const sha = '0'.repeat(64);
  await writer.registerVersion({
    name: 'router@bench',
    alias: 'router',
    adapterVersion: 'adp-bench',
    adapter: { uri: `file:${backend.model}`, sha256: sha, kind: 'adapter', count: 1, bytes: 0 },
    target: 'local',
    endpoint: backend.url,
    servedModel: backend.model,
    adapterId: null,
    baseModel: 'bench',
    runId: null,
    evalReport: null,
    probes: null,
  });
  await writer.repoint('router', 'router@bench', {
    action: 'deploy',
    actor: 'bench',
    reason: 'quality benchmark',
    requestId: 'bench',
  });
  await writer.close();

  // One gateway per caller: scopes come from the gateway's config, never from the request.
  const byCaller = new Map<string, RouterRow[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.persona.name, r.persona.scopes]);
    byCaller.set(key, [...(byCaller.get(key) ?? []), r]);
  }
  // The gateway refuses calls its caller lacks scopes for, as `flywheel gateway --config` does from the project's catalog.
  const scopes = toolScopes(catalog.tools);
  const results: CaseResult[] = [];
  const started = performance.now();
  for (const group of byCaller.values()) {
    const caller = { name: group[0]!.persona.name, scopes: group[0]!.persona.scopes };
    const gateway = await startGateway(
      gatewaySchema.parse({
        port: 0,
        registry: registryFile,
        tracesDir: join(dir, 'gateway-traces'),
        timeoutMs: opts.timeoutMs,
        render: { sliceSize, caller },
      }),
      { toolScopes: scopes },
    );
    try {
      const cases: EvalCase[] = group.map((r) => ({
        id: r.id,
        domain: r.domain,
        messages: (r.messages ?? [{ role: 'user', content: r.request }]) as ChatMessage[],
        tools,
        target: r.target,
      }));
      const scored = await evaluateEndpoint(
        cases,
        { label: 'raw through gateway', baseUrl: gateway.url, model: 'router', cost: { kind: 'none' } },
        opts,
      );
      results.push(...scored.cases);
    } finally {
      await gateway.close();
    }
  }
  const metrics = aggregate(results, {
    bootstrap: opts.bootstrap,
    cost: { kind: 'none' },
    wallSeconds: (performance.now() - started) / 1000,
  });

  return {
    result: { label: 'raw through gateway', endpoint: 'gateway', model: backend.model, metrics, cases: results },
    recall: retrieverRecall(rows, catalog.tools, [...new Set([sliceSize, 8])]),
  };
}
