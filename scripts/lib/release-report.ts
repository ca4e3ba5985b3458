import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import type { ArtifactStore } from '../../core/artifacts/index.js';
import { gatewaySchema, type FlywheelConfig } from '../../core/config/schema.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { casesFrom, lastRequest, showcaseCases } from '../../core/eval/cases.js';
import { calibrationLines, summaryTable } from '../../core/eval/report-markdown.js';
import type { EvalReport } from '../../core/eval/types.js';
import { startGateway } from '../../gateway/server.js';
import type { RunStatus } from './runs.js';
import { DEFAULT_TRACES_DIR } from '../../core/defaults.js';
import type { Catalog } from '../../core/catalog/types.js';
import { toolScopes } from '../../core/scope-guard.js';

/** The eval table, the gate's decision and where the HTML report is (materialised under .flywheel/reports). */
export async function evalReport(store: ArtifactStore, status: RunStatus): Promise<string | undefined> {
  const gate = status.stages.find((s) => s.name === 'gate');
  const ref = gate?.outputs.evalReport;
  if (!ref) return undefined;
  const dir = resolve('.flywheel', 'reports', ref.sha256.slice(0, 12));
  if (!existsSync(dir)) await store.materializeDir(ref, dir);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as EvalReport;
  const lines = [summaryTable(report)];
  if (report.gate)
    lines.push('', `gate: ${report.gate.promote ? 'PROMOTE' : 'HOLD'}`, ...report.gate.reasons.map((r) => `  - ${r}`));
  // Which escalation threshold keeps the candidate's answers at the target precision (the report's Calibration section).
  if (report.calibration) lines.push('', ...calibrationLines(report.calibration));
  lines.push('', `report: ${join(dir, 'report.html')}  (also report.md, report.json)`);
  return lines.join('\n');
}

/**
 * Send a few test prompts through a gateway on the run's registry: the alias resolves to the version the run
 * deployed, and each decision is logged as a trace the next run can ingest.
 */
export async function gatewayTour(
  store: ArtifactStore,
  status: RunStatus,
  config: FlywheelConfig,
  count = 4,
): Promise<string | undefined> {
  const deploy = status.stages.find((s) => s.name === 'deploy');
  if (!config.deploy || deploy?.state !== 'completed') return undefined;
  const render = status.stages.find((s) => s.name === 'render')?.outputs;
  const split = status.stages.find((s) => s.name === 'split')?.outputs;
  if (!render?.renderedTest || !split?.test) return undefined;
  const cases = showcaseCases(
    casesFrom(await store.readJsonl<RenderedRow>(render.renderedTest), await store.readJsonl<RouterRow>(split.test)),
    count,
  );
  // The run's catalog: the gateway refuses calls the prompt's caller lacks scopes for, as `flywheel gateway --config` does.
  const catalog = status.stages.find((s) => s.name === 'ingest')?.outputs?.catalog;
  const toolScopesOf = catalog ? toolScopes((await store.readJson<Catalog>(catalog)).tools) : undefined;
  const gateway = await startGateway(
    {
      ...(config.gateway ?? gatewaySchema.parse({ tracesDir: DEFAULT_TRACES_DIR })),
      port: 0,
      registry: config.deploy.registry,
    },
    toolScopesOf ? { toolScopes: toolScopesOf } : {},
  );
  try {
    const client = new OpenAI({ baseURL: gateway.url, apiKey: 'not-needed' });
    const lines = [
      `gateway ${gateway.url} (model "${config.deploy.alias}" → ${(await gateway.aliases()).find((a) => a.alias === config.deploy!.alias)?.version ?? '?'})`,
    ];
    for (const c of cases) {
      const { data, response } = await client.chat.completions
        .create({
          model: config.deploy.alias,
          messages: c.messages as OpenAI.Chat.ChatCompletionMessageParam[],
          tools: c.tools,
          temperature: 0,
          metadata: { domain: c.domain ?? '' },
        } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      const m = data.choices[0]?.message;
      const answer =
        m?.tool_calls?.[0]?.type === 'function'
          ? `${m.tool_calls[0].function.name}(${m.tool_calls[0].function.arguments})`
          : (m?.content ?? '');
      const expected = c.target.tool === null ? `no call (${c.target.code})` : c.target.tool;
      const request = lastRequest(c);
      lines.push(
        `  ${request.slice(0, 70)}${request.length > 70 ? '…' : ''}`,
        `    → ${answer.slice(0, 110)}   [expected ${expected}; ${response.headers.get('x-flywheel-version')}]`,
      );
    }
    lines.push(
      `decisions logged as traces under ${config.gateway?.tracesDir ?? DEFAULT_TRACES_DIR} (list it under traces: to ingest them next run)`,
    );
    lines.push(
      `run it yourself: flywheel gateway --config <config>   then POST /v1/chat/completions with model "${config.deploy.alias}"`,
    );
    return lines.join('\n');
  } finally {
    await gateway.close();
  }
}
