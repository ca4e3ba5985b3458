import OpenAI from 'openai';
import { fromWire, toWire } from '../catalog/wire-names.js';
import type { ChatMessage, RenderedRow } from '../dataset/render.js';
import { answerConstraint } from './answer-schema.js';
import type { AnswerMessage } from '../router/answer.js';
import type { ChoiceLogprobs, ConfidenceSignal } from '../router/confidence.js';
import type { CostModel } from './types.js';

/** An OpenAI-compatible endpoint to score: a frontier API, vLLM, LoRAX, the trainer's serve, the gateway. */
export interface EndpointSpec {
  /** Column name in reports: candidate, production, teacher, or what the user chose. */
  label: string;
  /** OpenAI base URL (…/v1). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** LoRAX selects the adapter per request with `adapter_id`. */
  adapterId?: string;
  /** Extra request fields a backend understands (e.g. `flywheel serve`'s `constrained: false`, for ablations). */
  extraBody?: Record<string, unknown>;
  /**
   * `openai`: send tool names under OpenAI's rule and map the answer back (core/catalog/wire-names.ts), for a
   * frontier API; unset: the names as trained, for a router backend.
   */
  wireNames?: 'openai';
  /**
   * `json-schema`: decode inside the router answer's JSON Schema over the offered tools (`response_format`), with
   * the tools only rendered into the prompt (`tool_choice: "none"`), for an engine such as vLLM that has
   * structured outputs but not `flywheel serve`'s constraint; unset: the backend's own behaviour.
   */
  constraint?: 'json-schema';
  /** Ask for the answer's token logprobs, to read how sure the model was of its decision (core/router/confidence.ts). */
  logprobs?: boolean;
  /** Which confidence those logprobs give (default `tool`, as the gateway's default). */
  confidence?: ConfidenceSignal;
  /** With `constraint`: the adapter's catalog tools it may also name (flywheel.json `tools`), as serve allows. */
  nameable?: RenderedRow['tools'];
  cost: CostModel;
}

export interface ChatAnswer {
  message: AnswerMessage | undefined;
  /** With `logprobs`: the answer's tokens and their logprobs, as the endpoint returned them. */
  logprobs?: ChoiceLogprobs | null;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

export type Ask = (messages: ChatMessage[], tools: RenderedRow['tools']) => Promise<ChatAnswer>;

/**
 * One deterministic decision per call (temperature 0). Transport faults (429, 5xx, timeouts) are retried by
 * the openai SDK; the latency includes them, as a caller would see it.
 */
export function chatClient(
  spec: EndpointSpec,
  opts: { timeoutMs: number; maxRetries: number; maxTokens?: number },
): Ask {
  const client = new OpenAI({
    baseURL: spec.baseUrl,
    apiKey: spec.apiKey ?? 'not-needed',
    timeout: opts.timeoutMs,
    maxRetries: opts.maxRetries,
  });
  return async (messages, tools) => {
    const request = {
      model: spec.model,
      messages: messages as OpenAI.Chat.ChatCompletionMessageParam[],
      ...(tools.length > 0 ? { tools } : {}),
      temperature: 0,
      max_tokens: opts.maxTokens ?? 512,
      ...(spec.adapterId ? { adapter_id: spec.adapterId } : {}),
      ...(spec.constraint === 'json-schema' ? answerConstraint(tools, spec.nameable) : {}),
      ...(spec.logprobs ? { logprobs: true } : {}),
      ...spec.extraBody,
    };
    const wire = spec.wireNames === 'openai' ? toWire(request) : undefined;
    const body = wire?.body ?? request;
    const started = performance.now();
    const res = await client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    const message = res.choices[0]?.message as AnswerMessage | undefined;
    return {
      message: message && wire ? fromWire(message, wire.names) : message,
      ...(spec.logprobs ? { logprobs: (res.choices[0]?.logprobs ?? null) as ChoiceLogprobs | null } : {}),
      promptTokens: res.usage?.prompt_tokens ?? 0,
      completionTokens: res.usage?.completion_tokens ?? 0,
      latencyMs: performance.now() - started,
    };
  };
}
