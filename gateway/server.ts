/**
 * The router gateway: an OpenAI-compatible front for the deployed router versions. `model` names an alias,
 * resolved in the registry on every request (a repoint takes effect on the next request, no restart), or a
 * pinned version `alias@…`. Unsure decisions escalate to a frontier model; every decision is logged as a trace.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { DATASET_DEFAULTS, type GatewayConfig } from '../core/config/schema.js';
import { openRegistry } from '../core/deploy/registry.js';
import { ClientKeysError, GATEWAY_KEYS_ENV, loadClientKeys } from './client-keys.js';
import { openSpendBudget } from './spend-budget.js';
import type { DeployedVersion } from '../core/deploy/types.js';
import type { TraceMessage } from '../core/traces/types.js';
import { decisionConfidence } from '../core/router/confidence.js';
import { decisionOf, type Decision } from '../core/router/answer.js';
import { checkScopes, isNotOffered } from '../core/router/checks.js';
import { createEscalator, escalationReason, type Escalator } from './escalate.js';
import { startDecisionSpans } from './otel.js';
import { routerAnswer } from './router-answer.js';
import { answerConstraint } from '../core/eval/answer-schema.js';
import type { RenderedRow } from '../core/dataset/render.js';
import { type RenderedRequest, RequestError, renderAgentRequest } from './render-request.js';
import { appendTrace, callerOf, gatewayTrace, type TraceRequest } from './trace-log.js';
import { postChat, UpstreamError, type ChatCompletion } from './upstream.js';
import { MISSING_SCOPE, type ScopeCheck } from '../core/scope-guard.js';

export interface GatewayOptions {
  log?: (line: string) => void;
  /** Where the escalation API key is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Required scopes by tool name (the project's catalog): a call its caller lacks scopes for is answered as the
   * missing_scope violation (core/scope-guard.ts). Without it no call is refused.
   */
  toolScopes?: Record<string, string[]>;
}

export interface GatewayHandle {
  /** The OpenAI base URL (…/v1); /health is at the server root. */
  url: string;
  /** The aliases served now, with their current versions. */
  aliases(): Promise<Array<{ alias: string; version: string }>>;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers })
    .end(data);
}

function sendError(res: ServerResponse, err: HttpError): void {
  send(res, err.status, { error: { message: err.message, type: err.type, param: err.param, code: err.code } });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `request body is larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch (err) {
    throw new HttpError(400, `request body is not JSON: ${(err as Error).message}`);
  }
}

/**
 * Whether the frontier's call (it saw every tool the agent sent) names a tool of the router's slice: a miss is
 * a request the router could not have served, whatever it learned. Null when the frontier made no call.
 */
function targetInSlice(frontier: ChatCompletion['choices'][number]['message'], slice: string[]): boolean | null {
  const d = decisionOf(frontier);
  return d.kind === 'call' ? slice.includes(d.tool) : null;
}

/** The agent's tool definitions, as the grounding check reads them (with render, the slice's are among them). */
function toolDefinitions(tools: unknown): Array<{ function: { name: string; parameters?: unknown } }> | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.filter(
    (t): t is { function: { name: string; parameters?: unknown } } =>
      isObject(t) && isObject(t.function) && typeof t.function.name === 'string',
  );
}

function describe(d: Decision): string {
  return d.kind === 'call' ? `call ${d.tool}` : d.kind === 'no-call' ? `abstain ${d.code}` : 'invalid';
}

export async function startGateway(cfg: GatewayConfig, opts: GatewayOptions = {}): Promise<GatewayHandle> {
  const log = opts.log ?? (() => {});
  // A missing frontier key is a startup error, before the port is taken.
  // Each decision as an OpenTelemetry GenAI span, when a collector is configured.
  const spans = cfg.otel ? startDecisionSpans(cfg.otel) : undefined;
  const escalator: Escalator | undefined = cfg.escalation
    ? createEscalator(cfg.escalation, cfg.timeoutMs, opts.env ?? process.env)
    : undefined;
  const backendKey = cfg.backendApiKeyEnv ? (opts.env ?? process.env)[cfg.backendApiKeyEnv] : undefined;
  if (cfg.backendApiKeyEnv && !backendKey)
    throw new Error(`gateway: environment variable ${cfg.backendApiKeyEnv} (gateway.backendApiKeyEnv) is not set`);
  // Who may call: client keys, checked before the port is taken; no keys beyond loopback only when asked for.
  const keys = loadClientKeys({ ...(cfg.keysFile ? { keysFile: cfg.keysFile } : {}), env: opts.env ?? process.env });
  if (!keys.required && !isLoopback(cfg.host) && !cfg.allowAnonymous) {
    throw new ClientKeysError(
      `gateway: host ${cfg.host} is reachable by others and no client keys are configured (gateway.keysFile, ${GATEWAY_KEYS_ENV}); add keys, or set gateway.allowAnonymous: true to let anyone call it`,
    );
  }
  /** The caller's key name; a 401 when keys are configured and the request has none of them. */
  const callerKey = (req: IncomingMessage): string | null => {
    if (!keys.required) return null;
    const name = keys.check(req.headers.authorization);
    if (!name)
      throw new HttpError(
        401,
        'Incorrect API key provided. Send a gateway client key as Authorization: Bearer <key>.',
        'invalid_request_error',
        null,
        'invalid_api_key',
      );
    return name;
  };
  const registry = await openRegistry(cfg.registry);
  // Escalation spend lives beside the alias table: it survives restarts and replicas on PostgreSQL share it.
  const budget = cfg.escalation?.budget
    ? await openSpendBudget(cfg.escalation.budget, cfg.registry).catch(async (err: unknown) => {
        await registry.close();
        throw err;
      })
    : undefined;

  async function resolve(model: string): Promise<DeployedVersion> {
    if (model.includes('@')) {
      const pinned = await registry.version(model);
      if (!pinned)
        throw new HttpError(
          404,
          `The model \`${model}\` does not exist: no such version is registered.`,
          'invalid_request_error',
          'model',
          'model_not_found',
        );
      return pinned;
    }
    const current = await registry.current(model);
    if (!current) {
      const known = (await registry.aliases()).map((a) => a.alias);
      throw new HttpError(
        404,
        `The model \`${model}\` does not exist: it is not an alias this gateway serves (serving: ${known.join(', ') || 'none yet'}).`,
        'invalid_request_error',
        'model',
        'model_not_found',
      );
    }
    return current;
  }

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const key = callerKey(req);
    const body = await readJson(req);
    if (!isObject(body)) throw new HttpError(400, 'request body must be a JSON object');
    if (typeof body.model !== 'string' || !body.model)
      throw new HttpError(400, 'model: an alias (or a version alias@…) is required', 'invalid_request_error', 'model');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      throw new HttpError(400, 'messages: a non-empty array is required', 'invalid_request_error', 'messages');
    if (body.stream)
      throw new HttpError(
        400,
        'stream: streaming is not supported by the gateway (it reads the whole decision before answering)',
        'invalid_request_error',
        'stream',
      );
    const version = await resolve(body.model);

    // `metadata` is the gateway's own (trace domain); it is not forwarded.
    const { metadata, model: _model, ...forward } = body;
    const callerWantsLogprobs = body.logprobs === true;
    if (version.target === 'lorax' && !version.adapterId)
      throw new HttpError(502, `version ${version.name} targets lorax but has no adapter id`, 'api_error');
    let rendered: RenderedRequest | undefined;
    if (cfg.render) {
      try {
        rendered = renderAgentRequest(body, {
          sliceSize: cfg.render.sliceSize ?? DATASET_DEFAULTS.sliceSize,
          caller: cfg.render.caller,
          maxPromptTokens: cfg.render.maxPromptTokens,
        });
      } catch (err) {
        if (err instanceof RequestError) throw new HttpError(400, err.message, 'invalid_request_error', err.param);
        throw err;
      }
    }
    const sentTools = (rendered?.tools ?? (Array.isArray(body.tools) ? body.tools : [])) as RenderedRow['tools'];
    const backendBody = {
      ...forward,
      ...(rendered ? { messages: rendered.messages, tools: rendered.tools } : {}),
      model: version.servedModel,
      logprobs: true,
      ...(version.target === 'lorax' ? { adapter_id: version.adapterId } : {}),
      // vLLM has no router constraint of its own: its structured outputs keep the answer in the router's schema.
      ...(version.target === 'vllm' ? answerConstraint(sentTools) : {}),
    };

    const backendStart = Date.now();
    let small: ChatCompletion;
    try {
      small = await postChat(version.endpoint, backendBody, {
        timeoutMs: cfg.timeoutMs,
        ...(backendKey ? { apiKey: backendKey } : {}),
      });
    } catch (err) {
      const e = err as Error;
      // The caller's own mistake (bad messages, bad tools) stays a 400; anything else is the backend's failure.
      const status = err instanceof UpstreamError && (err.status === 400 || err.status === 422) ? 400 : 502;
      throw new HttpError(
        status,
        `backend of ${version.name}: ${e.message}`,
        status === 400 ? 'invalid_request_error' : 'api_error',
      );
    }
    const backendLatencyMs = Date.now() - backendStart;

    const tools = Array.isArray(body.tools) ? (body.tools as NonNullable<TraceRequest['tools']>) : undefined;
    const agentTools = tools?.map((t) => t?.function?.name).filter((n): n is string => typeof n === 'string');
    // The checks after the router (gateway/router-answer.ts): offer (with render, a call past the slice to a tool
    // the agent offered stands) and grounding of ids; a call written as router JSON in content (vLLM under the
    // answer schema) goes to the agent as OpenAI tool_calls, as serve answers it; a no-call stays router JSON.
    const choice = small.choices[0]!;
    const answer = routerAnswer(choice.message, {
      shown: rendered?.slice ?? agentTools,
      agent: agentTools,
      tools: toolDefinitions(body.tools),
      messages: (rendered?.messages ?? body.messages) as TraceMessage[],
    });
    const { decision } = answer;
    const notOffered = answer.notOffered ?? null;
    const beyondSlice = answer.beyondSlice ?? null;
    if (answer.message !== choice.message)
      small = {
        ...small,
        choices: small.choices.map((c, i) =>
          i === 0 ? { ...c, message: answer.message, finish_reason: answer.finishReason ?? c.finish_reason } : c,
        ),
      };
    // What the router may call: its slice with render (and the tool it reached past it for), else the agent's tools.
    const offered = rendered ? [...rendered.slice, ...(beyondSlice ? [beyondSlice] : [])] : agentTools;
    const confidence =
      decision.kind === 'invalid'
        ? null
        : decisionConfidence(cfg.confidence, choice.logprobs, decision.kind === 'call' ? decision.tool : null);
    const reason = escalationReason(decision, confidence, cfg.escalation, answer.rewritten);

    let final = small;
    let escalated = false;
    let frontierError: string | null = null;
    const skipped = reason && escalator && budget ? await budget.acquire(key) : null;
    if (reason && escalator && !skipped) {
      const r = await escalator.ask(forward);
      if (r.ok) {
        final = r.response;
        escalated = true;
        await budget?.spend(key, r.response.usage?.total_tokens ?? 0);
      } else {
        frontierError = r.error;
        log(`frontier ${escalator.model} failed, answering with ${version.name}: ${r.error}`);
      }
    }

    // RBAC after the router, on whichever model answered: a call the caller may not make is refused here. The
    // caller is the configured one when rendering; a prompt rendered already names its own, which is what the
    // router itself was told (such a client writes the whole prompt, and so the decision, anyway).
    const callerScopes = cfg.render ? cfg.render.caller.scopes : callerOf(body.messages as TraceMessage[])?.scopes;
    const scopeCheck: ScopeCheck | undefined =
      opts.toolScopes && callerScopes ? { caller: callerScopes, tools: opts.toolScopes } : undefined;
    const answered = escalated ? decisionOf(final.choices[0]!.message) : decision;
    const scopeRefused =
      answered.kind === 'call' && !isNotOffered(answered.tool, offered)
        ? (checkScopes({ kind: 'call', tool: answered.tool, arguments: answered.arguments, extraCalls: 0 }, scopeCheck)
            .refused ?? null)
        : null;
    const refusedTool = scopeRefused && answered.kind === 'call' ? answered.tool : null;
    if (scopeRefused)
      final = {
        ...final,
        choices: final.choices.map((c, i) =>
          i === 0
            ? { ...c, message: { role: 'assistant', content: JSON.stringify(MISSING_SCOPE) }, finish_reason: 'stop' }
            : c,
        ),
      };

    const out: ChatCompletion = { ...final, model: version.name };
    if (!callerWantsLogprobs) out.choices = final.choices.map((c) => ({ ...c, logprobs: null }));
    const abstention = scopeRefused
      ? { verdict: MISSING_SCOPE.verdict, code: MISSING_SCOPE.code }
      : !escalated && decision.kind === 'no-call'
        ? { verdict: decision.verdict, code: decision.code }
        : null;
    if (abstention) {
      // The agent acts on an abstention through this field (docs/release.md, Router gateway); content keeps the router's JSON.
      out.choices = out.choices.map((c, i) =>
        i === 0 ? { ...c, message: { ...c.message, flywheel: { decision: 'abstain', ...abstention } } } : c,
      );
    }

    const at = new Date();
    // A rendered request is logged as the router saw it, so a trace unrolls into a row rendered like training's.
    const shown: TraceRequest = rendered
      ? { messages: rendered.messages as TraceMessage[], tools: rendered.tools }
      : { messages: body.messages as TraceMessage[], ...(tools ? { tools } : {}) };
    const trace = gatewayTrace(shown, final.choices[0]!.message, {
      domain:
        (isObject(metadata) && typeof metadata.domain === 'string' ? metadata.domain : undefined) ??
        (req.headers['x-flywheel-domain'] as string | undefined) ??
        null,
      gateway: {
        alias: version.alias,
        version: version.name,
        key,
        escalated,
        confidence,
        reason,
        backendLatencyMs,
        frontierModel: reason && escalator && !skipped ? escalator.model : null,
        frontierError,
        ...(skipped ? { escalationSkipped: skipped } : {}),
        ...(scopeRefused ? { scopeRefused } : {}),
        ...(notOffered ? { notOffered } : {}),
        ...(beyondSlice ? { beyondSlice } : {}),
        ...(answer.ungrounded ? { ungrounded: answer.ungrounded } : {}),
        ...(answer.dropped ? { dropped: answer.dropped } : {}),
        ...(answer.offSchema ? { offSchema: answer.offSchema } : {}),
        at: at.toISOString(),
        ...(rendered
          ? {
              rendered: {
                promptSha256: rendered.promptSha256,
                slice: rendered.slice,
                offered: rendered.offered,
                caller: cfg.render!.caller.name,
                truncatedTurns: rendered.truncatedTurns,
                targetInSlice: escalated ? targetInSlice(final.choices[0]!.message, rendered.slice) : null,
              },
            }
          : {}),
      },
    });
    spans?.record(
      trace,
      {
        requestModel: String(body.model),
        responseModel: escalated ? escalator!.model : version.name,
        finishReason: out.choices[0]?.finish_reason ?? null,
        usage: final.usage
          ? { input: final.usage.prompt_tokens ?? 0, output: final.usage.completion_tokens ?? 0 }
          : null,
      },
      started,
      req.headers,
    );
    try {
      await appendTrace(cfg.tracesDir, trace, at);
    } catch (err) {
      // The caller's answer matters more than the log line.
      log(`trace log failed (${cfg.tracesDir}): ${(err as Error).message}`);
    }

    send(res, 200, out, {
      'x-flywheel-version': version.name,
      'x-flywheel-escalated': String(escalated),
      ...(confidence !== null ? { 'x-flywheel-confidence': confidence.toFixed(4) } : {}),
      ...(escalated ? { 'x-flywheel-frontier-model': escalator!.model } : {}),
      ...(skipped ? { 'x-flywheel-escalation-skipped': skipped } : {}),
      ...(rendered?.truncatedTurns ? { 'x-flywheel-truncated-turns': String(rendered.truncatedTurns) } : {}),
      ...(refusedTool ? { 'x-flywheel-scope-refused': refusedTool } : {}),
      ...(notOffered ? { 'x-flywheel-not-offered': notOffered } : {}),
      ...(beyondSlice ? { 'x-flywheel-beyond-slice': beyondSlice } : {}),
      ...(answer.ungrounded ? { 'x-flywheel-ungrounded': answer.ungrounded.join(',') } : {}),
      ...(answer.offSchema ? { 'x-flywheel-off-schema': answer.offSchema.slice(0, 200) } : {}),
    });
    const conf = confidence === null ? '-' : confidence.toFixed(3);
    log(
      `${body.model} -> ${version.name}: ${describe(decision)} conf ${conf}${reason ? `; ${escalated ? 'escalated' : skipped ? 'not escalated' : 'escalation failed'} (${reason}${skipped ? `; ${skipped}` : ''})` : ''}${scopeRefused ? `; refused: ${scopeRefused}` : ''} ${Date.now() - started} ms`,
    );
  }

  async function models(res: ServerResponse): Promise<void> {
    const data = await Promise.all(
      (await registry.aliases()).map(async ({ alias, version }) => {
        const v = await registry.version(version);
        return {
          id: alias,
          object: 'model',
          created: v ? Math.floor(Date.parse(v.createdAt) / 1000) : 0,
          owned_by: 'mcp-flywheel',
          version,
        };
      }),
    );
    send(res, 200, { object: 'list', data });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname.replace(/\/+$/, '');
    const route = `${req.method} ${path}`;
    const work = (async () => {
      if (route === 'GET /v1/models') {
        callerKey(req);
        return models(res);
      }
      if (route === 'GET /health') return send(res, 200, { status: 'ok', aliases: (await registry.aliases()).length });
      if (route === 'POST /v1/chat/completions') return chat(req, res);
      throw new HttpError(404, `no route ${req.method} ${path}`, 'invalid_request_error', null, 'not_found');
    })();
    work.catch((err: unknown) => {
      const e =
        err instanceof HttpError ? err : new HttpError(500, `gateway error: ${(err as Error).message}`, 'api_error');
      if (e.status >= 500 || e.status === 404) log(`${route} ${e.status}: ${e.message}`);
      if (!res.headersSent) sendError(res, e);
      else res.destroy();
    });
  });

  try {
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(cfg.port, cfg.host, () => {
        server.off('error', fail);
        ok();
      });
    });
  } catch (err) {
    await budget?.close();
    await registry.close();
    await spans?.shutdown().catch(() => undefined);
    throw new Error(`gateway: cannot listen on ${cfg.host}:${cfg.port}: ${(err as Error).message}`);
  }
  const port = (server.address() as { port: number }).port;
  const host = cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;

  return {
    url: `http://${host}:${port}/v1`,
    aliases: () => registry.aliases(),
    close: () =>
      new Promise<void>((done) => {
        // In-flight requests may finish; idle keep-alive connections must not hold the close open.
        const force = setTimeout(() => server.closeAllConnections(), 5000);
        server.close(() => {
          clearTimeout(force);
          // A collector that cannot take the last spans must not keep the gateway from stopping.
          void Promise.allSettled([registry.close(), budget?.close(), spans?.shutdown()]).then((settled) => {
            for (const s of settled) if (s.status === 'rejected') log(`on close: ${(s.reason as Error).message}`);
            done();
          });
        });
        server.closeIdleConnections();
      }),
  };
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
