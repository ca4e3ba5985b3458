import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CatalogTool } from '../catalog/types.js';
import { Rng } from '../rng.js';
import { sampleArguments, UnsampleableSchema } from '../schema/sample.js';
import { callMode } from './call-mode.js';
import { harvestRefusal, harvestResult } from './harvest.js';
import { valuesForField } from './match.js';
import type { HarvestedPools, ToolProbe } from './types.js';

export interface ProbeSettings {
  /** Calls per read-only tool (the first with no arguments when none are required). */
  callsPerTool: number;
  /** A call with no answer within this is given up, and its tool is not called again. */
  callTimeoutMs: number;
  /** Total time for one server's probe; tools not reached are recorded as skipped. */
  budgetMs: number;
  /** Tools to call although they do not declare readOnlyHint (the operator vouches for them). */
  allow: string[];
}

/**
 * Entity discovery: call a server's read-only tools with sampled (or empty) arguments and harvest the
 * values in their results, so requests name things that exist. Rounds go over every tool, tools that need
 * no arguments first, and later rounds draw arguments from what earlier calls found (list, then get).
 * A failing or hanging tool is recorded and left behind; only a closed connection ends the probe early.
 */
export async function probeServer(
  client: Pick<Client, 'callTool'>,
  tools: CatalogTool[],
  settings: ProbeSettings,
  seed: string | number,
  onCall?: (tool: string) => void,
): Promise<{ harvested: HarvestedPools; probes: ToolProbe[] }> {
  const harvested: HarvestedPools = {};
  const probes = new Map<string, ToolProbe>();
  const eligible: CatalogTool[] = [];
  for (const tool of tools) {
    const { mode, why } = callMode(tool, settings.allow);
    if (mode === 'execute') eligible.push(tool);
    else probes.set(tool.name, { tool: tool.name, status: 'skipped', calls: 0, values: 0, detail: why });
  }
  const required = (t: CatalogTool) => ((t.inputSchema.required as unknown[] | undefined) ?? []).length;
  eligible.sort((a, b) => required(a) - required(b) || (a.name < b.name ? -1 : 1));
  const state = new Map(
    eligible.map((t) => [
      t.name,
      { probe: { tool: t.name, status: 'failed', calls: 0, values: 0, args: [] } as ToolProbe, ok: 0, done: false },
    ]),
  );
  const started = Date.now();
  let closed: string | undefined;
  for (let round = 0; round < settings.callsPerTool && !closed; round++) {
    for (const tool of eligible) {
      const s = state.get(tool.name)!;
      if (s.done) continue;
      if (Date.now() - started > settings.budgetMs) {
        closed = `probe budget of ${settings.budgetMs} ms spent`;
        break;
      }
      let args: Record<string, unknown>;
      try {
        const rng = new Rng(`probe:${seed}:${tool.id}:${round}`);
        args =
          round === 0 && required(tool) === 0
            ? {}
            : sampleArguments(tool.inputSchema, {
                rng,
                optionalShare: 0.3,
                values: (f) => valuesForField(harvested, f, tool.name).map((v) => v.value),
              });
      } catch (err) {
        Object.assign(s, { done: true });
        s.probe.detail =
          err instanceof UnsampleableSchema ? `cannot sample arguments: ${err.reason}` : (err as Error).message;
        continue;
      }
      s.probe.calls++;
      s.probe.args!.push(args);
      onCall?.(tool.name);
      try {
        const res = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
          timeout: settings.callTimeoutMs,
        })) as { isError?: boolean; content?: unknown; structuredContent?: unknown };
        if (res.isError) {
          const text = resultText(res);
          s.probe.detail = `error result: ${text.slice(0, 160)}`;
          s.probe.values += harvestRefusal(harvested, text, tool.name, s.probe.calls, new Set(leaves(args)));
          continue;
        }
        s.ok++;
        s.probe.values += harvestResult(harvested, res, tool.name, s.probe.calls, listedUnder(args));
      } catch (err) {
        const message = (err as Error).message ?? String(err);
        if (/timed out|timeout/i.test(message)) {
          // A tool that hangs once will hang again: do not spend the budget on it.
          s.done = true;
          s.probe.detail = `no answer within ${settings.callTimeoutMs} ms`;
        } else if (/connection closed|not connected/i.test(message)) {
          closed = `the server closed the connection while ${tool.name} was probed`;
          s.probe.detail = closed;
          break;
        } else s.probe.detail = `call failed: ${message.slice(0, 160)}`;
      }
    }
  }
  for (const [name, s] of state) {
    if (s.ok > 0)
      probes.set(name, {
        ...s.probe,
        status: 'ok',
        ...(s.probe.calls > s.ok
          ? { detail: `${s.probe.calls - s.ok} of ${s.probe.calls} calls failed; last: ${s.probe.detail ?? ''}` }
          : { detail: undefined }),
      });
    else if (s.probe.calls === 0 && !s.probe.detail)
      probes.set(name, { ...s.probe, status: 'skipped', detail: closed ?? 'not reached' });
    else probes.set(name, s.probe);
  }
  return { harvested, probes: tools.map((t) => stripUndefined(probes.get(t.name)!)) };
}

function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

/** The path-like argument of a call, if any: a listing's short names are relative to it. */
function listedUnder(args: Record<string, unknown>): string | undefined {
  const paths = Object.values(args).filter(
    (v): v is string => typeof v === 'string' && /^(\/|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/)/.test(v),
  );
  return paths.length === 1 ? paths[0] : undefined;
}

function resultText(res: { content?: unknown; structuredContent?: unknown }): string {
  const err = (res.structuredContent as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (err?.message) return `${err.code ? `${err.code}: ` : ''}${err.message}`;
  return Array.isArray(res.content)
    ? res.content
        .map((c) => (c as { text?: string }).text ?? '')
        .join(' ')
        .trim()
    : '';
}

function stripUndefined(p: ToolProbe): ToolProbe {
  const { detail, args, ...rest } = p;
  return { ...rest, ...(args?.length ? { args } : {}), ...(detail !== undefined ? { detail } : {}) };
}
