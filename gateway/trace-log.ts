/**
 * Every gateway decision, logged as an OpenAI-format trace the flywheel ingests (`traces:` can name the
 * directory): the request's messages plus the final assistant message, which is a tool call with an id when
 * the decision was a call, so ingestTraces unrolls it into a training row.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Trace, TraceMessage } from '../core/traces/types.js';
import { decisionOf } from '../core/router/answer.js';
import { isNotOffered } from '../core/router/checks.js';
import type { AssistantMessage } from '../core/router/confidence.js';

export interface GatewayTraceMeta {
  alias: string;
  version: string;
  /** The client key's name the request came with (gateway client keys), or null when the gateway takes anonymous calls. */
  key?: string | null;
  /** The caller got the frontier's answer. */
  escalated: boolean;
  /** Probability of the small model's choice; null without logprobs (or for invalid output). */
  confidence: number | null;
  /** Why escalation was tried, or null. */
  reason: string | null;
  backendLatencyMs: number;
  /** The frontier model asked, or null when none was. */
  frontierModel: string | null;
  /** Why the frontier call failed (the small model's answer was returned), or null. */
  frontierError: string | null;
  /** Why an escalation the rules asked for was not made (the escalation budget), when it was not. */
  escalationSkipped?: string;
  /** The answer was a call its caller lacks scopes for, refused as missing_scope: "called X; the caller lacks Y". */
  scopeRefused?: string;
  /** The router named this tool, which the request did not offer: answered as tool_not_offered (the offer check). */
  notOffered?: string;
  /** With render: the router called this tool, which the agent offered but the retriever left out of the slice. */
  beyondSlice?: string;
  /** Required arguments whose ids the conversation does not hold: answered as missing_argument (grounding). */
  ungrounded?: string[];
  /** Optional arguments dropped from the router's call for the same reason, with their values. */
  dropped?: Record<string, unknown>;
  /** What the tool's schema says was wrong with the router's call: answered as missing_argument (schema check). */
  offSchema?: string;
  at: string;
  /** With gateway.render: what the router was shown (the trace's messages and tools are that rendering). */
  rendered?: {
    promptSha256: string;
    slice: string[];
    offered: number;
    caller: string;
    truncatedTurns: number;
    /** Escalated calls: whether the frontier's tool (the target) was in the slice; null when not known. */
    targetInSlice: boolean | null;
  };
}

export interface TraceRequest {
  messages: TraceMessage[];
  tools?: Trace['tools'];
}

/** `Caller: NAME; scopes: a, b.` — the line rendered prompts carry (core/dataset/render.ts). */
const CALLER = /^Caller: (.+?); scopes: ?(.*)\.\s*$/m;

export function callerOf(messages: TraceMessage[]): { persona: string; scopes: string[] } | null {
  for (const m of messages) {
    if (m.role !== 'system' || typeof m.content !== 'string') continue;
    const match = CALLER.exec(m.content);
    if (match)
      return {
        persona: match[1]!.trim(),
        scopes: match[2]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
  }
  return null;
}

/** The final assistant message as a trace keeps it: calls as one tool call with an id, everything else as content. */
export function traceAnswer(message: AssistantMessage, offered?: string[]): TraceMessage {
  const d = decisionOf(message);
  if (d.kind === 'call' && !isNotOffered(d.tool, offered)) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: d.callId ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
          type: 'function',
          function: { name: d.tool, arguments: JSON.stringify(d.arguments) },
        },
      ],
    };
  }
  const out: TraceMessage = {
    role: 'assistant',
    content: typeof message.content === 'string' ? message.content : null,
  };
  // Kept as answered (ids filled in) so the record is true; ingest drops or rejects such turns itself.
  if (message.tool_calls?.length) {
    out.tool_calls = message.tool_calls.map((c, i) => ({
      id: c.id || `call_${i}_${randomUUID().slice(0, 8)}`,
      type: 'function' as const,
      function: { name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' },
    }));
  }
  return out;
}

export function gatewayTrace(
  request: TraceRequest,
  answer: AssistantMessage,
  meta: { domain: string | null; gateway: GatewayTraceMeta },
): Trace {
  const offered = request.tools?.map((t) => t.function.name);
  const caller = callerOf(request.messages);
  return {
    messages: [...request.messages, traceAnswer(answer, offered)],
    ...(request.tools ? { tools: request.tools } : {}),
    metadata: {
      ...(meta.domain ? { domain: meta.domain } : {}),
      ...(caller ? { persona: caller.persona, scopes: caller.scopes } : {}),
      gateway: meta.gateway,
    },
  };
}

/** One JSONL file per UTC day. */
export function traceFileFor(dir: string, at: Date): string {
  return join(dir, `gateway-${at.toISOString().slice(0, 10)}.jsonl`);
}

/** Append the trace as one complete line (one append call, so concurrent requests never interleave). Returns the file. */
export async function appendTrace(dir: string, trace: Trace, at: Date): Promise<string> {
  const file = traceFileFor(dir, at);
  await mkdir(dir, { recursive: true });
  await appendFile(file, `${JSON.stringify(trace)}\n`, 'utf8');
  return file;
}
