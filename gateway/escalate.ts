/** The cascade: when the small router is unsure (or says nothing usable), ask a frontier model instead. */
import type { GatewayConfig } from '../core/config/schema.js';
import type { Decision } from '../core/router/answer.js';
import { redact, refusedCredential } from '../core/secrets.js';
import { fromWire, toWire } from '../core/catalog/wire-names.js';
import { postChat, UpstreamError, type ChatCompletion } from './upstream.js';

export type EscalationConfig = NonNullable<GatewayConfig['escalation']>;

/** Why this decision should go to the frontier, or null when the small model's answer stands. */
export function escalationReason(
  decision: Decision,
  confidence: number | null,
  esc: EscalationConfig | undefined,
  /** Why the router contract's checks refused the router's call (gateway/router-answer.ts), if they did. */
  rewritten?: string,
): string | null {
  if (!esc) return null;
  if (decision.kind === 'invalid' && esc.on.includes('invalid')) return `invalid: ${decision.detail}`;
  if (rewritten && esc.on.includes('rewritten')) return `rewritten: ${rewritten}`;
  if (decision.kind === 'no-call' && esc.on.includes('abstain')) return `abstain: ${decision.code}`;
  if (confidence !== null && confidence < esc.minConfidence)
    return `confidence ${confidence.toFixed(3)} < ${esc.minConfidence}`;
  return null;
}

export type FrontierResult =
  { ok: true; response: ChatCompletion; latencyMs: number } | { ok: false; error: string; latencyMs: number };

export interface Escalator {
  model: string;
  /** Never throws: a failed frontier call is reported, and the caller keeps the small model's answer. */
  ask(request: Record<string, unknown>): Promise<FrontierResult>;
}

/** Reads the API key now, so a gateway without it fails at startup rather than on the first unsure request. */
export function createEscalator(
  esc: EscalationConfig,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Escalator {
  const apiKey = env[esc.apiKeyEnv];
  if (!apiKey)
    throw new Error(
      `gateway escalation: environment variable ${esc.apiKeyEnv} is not set (it holds the API key for ${esc.baseUrl})`,
    );
  return {
    model: esc.model,
    async ask(request) {
      const started = Date.now();
      try {
        // A frontier API refuses names MCP allows (`uber.ride`): send wire names, answer with the agent's own.
        const { body, names } = toWire({ ...request, model: esc.model });
        const response = await postChat(esc.baseUrl, body, { timeoutMs, apiKey });
        response.choices = response.choices.map((c) => ({ ...c, message: fromWire(c.message, names) }));
        return { ok: true, response, latencyMs: Date.now() - started };
      } catch (err) {
        const refused =
          err instanceof UpstreamError && refusedCredential(err.status)
            ? `the frontier endpoint refused the API key in ${esc.apiKeyEnv}: `
            : '';
        return {
          ok: false,
          error: refused + redact((err as Error).message, apiKey, esc.apiKeyEnv),
          latencyMs: Date.now() - started,
        };
      }
    },
  };
}
