import { TRACE_FORMATS } from '../traces/formats/index.js';
import { BFCL_CATEGORIES } from '../eval/bfcl/categories.js';
import { CONFIDENCE_SIGNALS } from '../router/confidence.js';
import { z } from 'zod';
import {
  DEFAULT_ADAPTER_DIR,
  DEFAULT_RATE_LIMIT_DB,
  DEFAULT_REGISTRY,
  DEFAULT_SERVE_ENDPOINT,
  DEFAULT_STORE_URI,
  DEFAULT_TRACES_DIR,
} from '../defaults.js';
import { preferenceSectionProblems, trainSectionProblems } from '../train/job.js';
import { dbLocationProblem } from '../db-location.js';

/**
 * The flywheel config: one YAML/JSON document. Every object is strict, so a typo'd key is an error that
 * names its path instead of a silently ignored setting. Later stages add their own sections here.
 */

const name = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    'use lowercase letters, digits and dashes (max 63), starting with a letter or digit',
  );

export const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment for the server process (merged over the worker's PATH/HOME only). */
  env: z.record(z.string(), z.string()).default({}),
  /** Working directory; relative paths resolve against the worker's working directory. */
  cwd: z.string().optional(),
});

export const httpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  /** Name of an environment variable on the worker holding a bearer token (never the token itself). */
  bearerTokenEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
    .optional(),
});

/** Defaults of the probe section, so `probe: {}` (or none) is complete. */
export const PROBE_DEFAULTS = { callsPerTool: 3, callTimeoutMs: 5_000, budgetMs: 60_000, allow: [] as string[] };

/**
 * Entity discovery before intents: the server's read-only tools are called to find real values for
 * requests. Only tools declaring readOnlyHint: true and openWorldHint: false are called, plus those in `allow`.
 */
export const probeSchema = z.strictObject({
  /** Calls per read-only tool; later calls reuse values earlier ones found (list, then get). */
  callsPerTool: z.number().int().min(1).max(50).default(PROBE_DEFAULTS.callsPerTool),
  /** A call with no answer within this is given up, and its tool is not probed again (at most 60 s: calls heartbeat between them). */
  callTimeoutMs: z.number().int().min(100).max(60_000).default(PROBE_DEFAULTS.callTimeoutMs),
  /** Total probing time for this server. */
  budgetMs: z.number().int().min(1000).max(3_600_000).default(PROBE_DEFAULTS.budgetMs),
  /** Tools to call for real although they do not declare readOnlyHint: true and openWorldHint: false (you vouch for them). */
  allow: z.array(z.string().min(1)).default([]),
});

export const serverSchema = z
  .strictObject({
    name,
    stdio: stdioServerSchema.optional(),
    http: httpServerSchema.optional(),
    /**
     * A file of tool definitions instead of a live server (an OpenAI tools list, a tools/list dump, BFCL function
     * docs; core/catalog/tools-file.ts): read on the worker, relative to its working directory. Nothing is called.
     */
    tools: z.string().min(1).optional(),
    /** Connect + each tools/list page must finish within this many milliseconds. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** Entity discovery settings (see probeSchema), or false to skip it (validation still executes read-only calls and dry-runs). */
    probe: z.union([z.literal(false), probeSchema]).optional(),
  })
  .refine((s) => [s.stdio, s.http, s.tools].filter(Boolean).length === 1, {
    message: 'set exactly one of "stdio", "http" or "tools"',
  })
  .refine((s) => !(s.tools && s.probe !== undefined), {
    message: 'a "tools" file has no server to probe: remove "probe"',
    path: ['probe'],
  });

const personaSchema = z.strictObject({
  name: z.string().min(1),
  /** The server name (config servers[].name) this persona acts on. */
  domain: z.string().min(1),
  scopes: z.array(z.string().min(1)),
});

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name');

/** A SQLite path or a PostgreSQL URL without a password (core/db-location.ts). */
const dbLocation = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    const problem = dbLocationProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** One budget per teacher endpoint, held across every worker through a shared store (core/ratelimit/). */
const rateLimitSchema = z
  .strictObject({
    requestsPerSecond: z.number().positive().max(100_000).optional(),
    tokensPerSecond: z.number().positive().optional(),
    /** A SQLite file every worker reaches (one host or one volume), or a password-free PostgreSQL URL. */
    store: dbLocation.default(DEFAULT_RATE_LIMIT_DB),
  })
  .refine(
    (r) => r.requestsPerSecond !== undefined || r.tokensPerSecond !== undefined,
    'set requestsPerSecond, tokensPerSecond or both',
  );

const teacherSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('template') }),
  z.strictObject({
    kind: z.literal('openai'),
    /** Any OpenAI-compatible endpoint (OpenAI, vLLM, ...). */
    baseUrl: z.url(),
    model: z.string().min(1),
    /** Worker environment variable holding the API key (never the key itself). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
      .default('OPENAI_API_KEY'),
    /** Requests in flight at once. */
    concurrency: z.number().int().min(1).max(256).default(8),
    /** Intents drafted per generation request (solving asks one request per call). */
    batchSize: z.number().int().min(1).max(50).default(8),
    timeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
    /** Retries of 5xx / timeouts / dropped connections per request; 429s always back off (Retry-After honoured) and never count. */
    maxRetries: z.number().int().min(0).max(20).default(5),
    rateLimit: rateLimitSchema.optional(),
    /** Ask for JSON output (response_format json_object); turn off for endpoints that reject it. */
    jsonMode: z.boolean().default(true),
    /**
     * Ask for the drafting answer's exact JSON Schema instead (response_format json_schema: the structured outputs
     * of OpenAI and vLLM), so even a small teacher answers in the shape asked; wins over jsonMode.
     */
    jsonSchema: z.boolean().optional(),
    temperature: z.number().min(0).max(2).default(0.7),
    /** The most tokens one answer may use (`max_completion_tokens`); unset: the endpoint's own limit. */
    maxTokens: z.number().int().min(1).max(100_000).optional(),
    /** Dollars per million tokens, to report what the teacher's calls cost (absent: tokens only). */
    pricing: z.strictObject({ inputPerMillion: z.number().min(0), outputPerMillion: z.number().min(0) }).optional(),
  }),
]);

/** Defaults of every dataset key, so `dataset: {}` is a complete section. */
export const DATASET_DEFAULTS = {
  seed: 42,
  perGoal: 24,
  unsatisfiableShare: 0.15,
  negativeShare: 0.4,
  sliceSize: 6,
  split: { train: 0.8, val: 0.1, test: 0.1 },
  minPerTool: 20,
  chunkSize: 1000,
  teacher: { kind: 'template' as const },
  render: { format: 'router-json' as const },
};

export const datasetSchema = z
  .strictObject({
    /** Seeds intents, phrasing, slices, corruption and the split: same seed, same dataset. */
    seed: z.union([z.number().int(), z.string().min(1)]).default(DATASET_DEFAULTS.seed),
    /** Intents drawn per goal template (one or more templates per tool). */
    perGoal: z.number().int().min(1).max(100_000).default(DATASET_DEFAULTS.perGoal),
    /** Share of asks no tool can serve (targets: abstain / no_tool). */
    unsatisfiableShare: z.number().min(0).max(0.9).default(DATASET_DEFAULTS.unsatisfiableShare),
    /** Share of near-miss negatives after corruption. */
    negativeShare: z.number().min(0).max(0.9).default(DATASET_DEFAULTS.negativeShare),
    /** Tools offered per row (the correct one plus distractors). */
    sliceSize: z.number().int().min(2).max(64).default(DATASET_DEFAULTS.sliceSize),
    /**
     * Where set, each row offers a number of tools drawn from [minSliceSize, sliceSize], so the router also sees
     * the short menus agents send (one function that fits, or one that does not). No default is filled, so
     * configs that leave it out keep their stage keys and every row offers sliceSize tools.
     */
    minSliceSize: z.number().int().min(1).max(64).optional(),
    /**
     * How a row's tools are chosen: `neighbours` (absent; the right tool plus siblings and near neighbours) or
     * `retriever` (what the gateway's BM25 retriever finds for the request; a miss is labelled tool_not_offered).
     * Optional with no default, so configs that leave it out keep their stage keys.
     */
    slicing: z.enum(['neighbours', 'retriever']).optional(),
    /**
     * How requests for a tool without a domain pack are phrased: `description` (absent; from its description
     * string and its arguments' labels) or `natural` (from what it does: everyday verbs and nouns, each argument said
     * by its meaning, values drawn by meaning, clarifying exchanges; docs/pipeline.md). Optional with no default,
     * so configs that leave it out keep their stage keys.
     */
    phrasing: z.enum(['description', 'natural']).optional(),
    split: z
      .strictObject({ train: z.number().positive(), val: z.number().min(0), test: z.number().positive() })
      .default(DATASET_DEFAULTS.split),
    /** Oversample train so every tool has at least this many rows. */
    minPerTool: z.number().int().min(0).max(100_000).default(DATASET_DEFAULTS.minPerTool),
    /**
     * Keep at most this many training rows per tool (no-calls keep their share), so that a small training budget
     * sees every row it keeps. No default is filled, so configs that leave it out keep their stage keys.
     */
    maxPerTool: z.number().int().min(1).max(100_000).optional(),
    /**
     * Repeat the rows from traces until they are at least this share of train (after the cap), so a retrain's
     * traffic is not lost among the synthetic rows. At most 0.9: each step past it multiplies the copies (0.99 of
     * 11,000 rows is a million). No default is filled: configs without it keep their keys.
     */
    traceShare: z.number().gt(0).max(0.9).optional(),
    /** Rows per chunk of generate, solve and validate: a bigger input runs as parallel chunk activities. */
    chunkSize: z.number().int().min(1).max(1_000_000).default(DATASET_DEFAULTS.chunkSize),
    teacher: teacherSchema.default(DATASET_DEFAULTS.teacher),
    /** Replace the default personas (docs/reference/config.md); each needs a domain matching a server name. */
    personas: z.array(personaSchema).min(1).optional(),
    render: z
      .strictObject({ format: z.enum(['router-json', 'hermes']).default('router-json') })
      .default(DATASET_DEFAULTS.render),
  })
  .refine((d) => d.maxPerTool === undefined || d.maxPerTool >= d.minPerTool, {
    path: ['maxPerTool'],
    message: 'is below dataset.minPerTool: train would be oversampled to one count and capped below it',
  })
  .refine((d) => d.minSliceSize === undefined || d.minSliceSize <= d.sliceSize, {
    path: ['minSliceSize'],
    message: 'is above dataset.sliceSize, the most tools a row offers',
  });

/**
 * Production traces (JSON or JSONL: the gateway's own, OpenAI chat or Responses logs, Anthropic Messages logs), read on the worker: a file, a directory of them, an
 * s3://bucket/prefix/ (every *.jsonl / *.json object directly under it) or one s3://bucket/key.jsonl object.
 */
export const traceSourceSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    /** Server name for traces without metadata.domain. */
    domain: z.string().min(1).optional(),
    /** The records' format (core/traces/formats/); unset: told from each record's shape. */
    format: z.enum(TRACE_FORMATS).optional(),
  }),
]);

/**
 * When a run trains: a run whose traces hold fewer than `minNewTraceRows` rows beyond the watermark (the rows
 * the last run that trained had seen) stops after the watermark stage and records why. A changed catalog or
 * an input with `force: true` trains regardless.
 */
const retrainSchema = z.strictObject({
  minNewTraceRows: z.number().int().min(0).max(100_000_000).default(50),
});

/** LoRA SFT of the rendered dataset on the `flywheel-gpu` queue. */
export const trainSchema = z
  .strictObject({
    /** trainer/job.schema.json keys (baseModel, method, lora, optim, precision, ...); the run sets data and outputDir. */
    job: z.record(z.string(), z.unknown()).default({ baseModel: 'tiny:nano' }),
    /** A GPU worker that stops heartbeating this long is presumed dead; the retry resumes from its last checkpoint. */
    heartbeatTimeoutSeconds: z.number().int().min(5).max(3600).default(120),
    /** Attempts of the train activity, counting the first (a bad job is never retried). */
    maxAttempts: z.number().int().min(1).max(100).default(5),
  })
  .superRefine((section, ctx) => {
    for (const p of trainSectionProblems(section.job))
      ctx.addIssue({ code: 'custom', path: ['job', ...p.path], message: p.message });
  });

/**
 * Preference tuning after SFT: DPO on the run's near-miss pairs (render's pairsTrain / pairsVal), continuing the
 * train stage's adapter with that adapter as the reference, on the `flywheel-gpu` queue. Its adapter is the one
 * evaluate scores and deploy serves. Heartbeat and attempts are train's.
 */
export const preferenceSchema = z.strictObject({
  /** How far the tuned adapter may move from the SFT adapter (higher: less). */
  beta: z.number().gt(0).max(10).default(0.1),
  /** TRL's DPO loss: sigmoid (the DPO paper), ipo, hinge (SLiC), robust. */
  lossType: z.enum(['sigmoid', 'ipo', 'hinge', 'robust']).default('sigmoid'),
  /** train.job keys that differ for the DPO pass (`optim` merged key by key), e.g. a lower learning rate. */
  job: z.record(z.string(), z.unknown()).default({}),
});

const costSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  /** API pricing: dollars per million prompt / completion tokens. */
  z.strictObject({
    kind: z.literal('tokens'),
    inputPerMillion: z.number().min(0),
    outputPerMillion: z.number().min(0),
  }),
  /** Self-hosted: dollars per GPU-hour, spread over the decisions per second measured in the same eval. */
  z.strictObject({ kind: z.literal('gpu-hour'), dollarsPerHour: z.number().min(0) }),
]);

/** Score the candidate, the deployed production version and the teacher on the frozen test set. */
export const evaluateSchema = z.strictObject({
  /** Score a seeded, stratified sample of N cases of the frozen test set: a smoke-sized eval. Unset: every case. */
  limit: z.number().int().min(1).optional(),
  /** Seed of that sample: same test set, limit and seed, same cases. */
  sampleSeed: z.number().int().default(7),
  /** Cases per chunk: more cases run as parallel chunk activities on the GPU queue. Unset: one activity. */
  chunkSize: z.number().int().min(1).optional(),
  /** Before the alias serves anything, score the base model in production's place (memoised per base and test set). */
  scoreBase: z.boolean().default(true),
  /** Requests in flight at once per endpoint. */
  concurrency: z.number().int().min(1).max(256).default(4),
  /** Per request; a request that times out is retried, then scored as invalid output. */
  timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
  maxRetries: z.number().int().min(0).max(10).default(2),
  /** Tokens an answer may take: a router's answer is ~20-100; an untrained base can ramble to this bound. */
  maxTokens: z.number().int().min(16).max(4096).default(160),
  bootstrap: z
    .strictObject({
      resamples: z.number().int().min(100).max(100_000).default(1000),
      seed: z.number().int().default(7),
    })
    .default({ resamples: 1000, seed: 7 }),
  /** Cost of serving the candidate and production (the small model). */
  cost: costSchema.default({ kind: 'none' }),
  /** Also score the teacher when it is an OpenAI-compatible endpoint (dataset.teacher.kind openai). */
  teacher: z.boolean().default(true),
  teacherCost: costSchema.default({ kind: 'none' }),
  /**
   * The candidate's confidence (read as the gateway reads it) against whether it was right: reliability bins and the
   * escalation threshold whose kept answers reach this precision.
   */
  calibration: z
    .strictObject({
      targetPrecision: z.number().min(0).max(1).default(0.9),
      bins: z.number().int().min(2).max(50).default(10),
      /** The probability of the chosen tool's name tokens (`tool`) or of the whole answer (`answer`): set gateway.confidence alike. */
      confidence: z.enum(CONFIDENCE_SIGNALS).default('tool'),
    })
    .default({ targetPrecision: 0.9, bins: 10, confidence: 'tool' }),
  /** Also score the candidate (and the base in production's place) on BFCL's questions, judged by BFCL's own checker. */
  bfcl: z
    .strictObject({
      categories: z.array(z.enum(BFCL_CATEGORIES)).min(1),
      /** A seeded sample of at most this many questions per category (seed: sampleSeed). Unset: every question. */
      limit: z.number().int().min(1).optional(),
    })
    .optional(),
});

/** Promote the candidate only if it is not worse than production (docs/release.md, "Gate"). */
export const gateSchema = z.strictObject({
  /** The candidate's exact match may trail production by at most this (absolute), judged on the 95 % CI low bound of the paired difference. */
  margin: z.number().min(0).max(1).default(0.02),
  /** Abstention F1 may drop by at most this (absolute) versus production. */
  abstentionF1Tolerance: z.number().min(0).max(1).default(0),
  /** First deploy (no production yet): the candidate's exact match must reach this. */
  minExactMatch: z.number().min(0).max(1).default(0),
  /** Wait for an operator's approve / reject (Update or signal) before deploying. */
  requireApproval: z.boolean().default(false),
  /** No decision within this many minutes: the candidate is not deployed. */
  approvalTimeoutMinutes: z
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30)
    .default(24 * 60),
});

/** Where adapters are served and how the alias is kept. */
export const deploySchema = z.strictObject({
  /** Requests name this alias; each deploy gets a version name `<alias>@<dataset-hash>-<job-hash>`. */
  alias: name,
  /** local: the trainer's serve; vllm: vLLM with --enable-lora (runtime load API); lorax: adapter id per request. */
  target: z.enum(['local', 'vllm', 'lorax']).default('local'),
  /** The serving backend's OpenAI base URL (…/v1). */
  endpoint: z.url({ protocol: /^https?$/ }).default(DEFAULT_SERVE_ENDPOINT),
  /** Worker environment variable holding the backend's API key, if it needs one. */
  apiKeyEnv: envName.optional(),
  /** Worker environment variable with the backend's admin token for loading adapters (unset: FLYWHEEL_SERVE_ADMIN_TOKEN; vLLM: its --api-key). */
  adminTokenEnv: envName.optional(),
  /** Directory the adapters are materialised in; the backend must see it at the same path (shared volume). */
  adapterDir: z.string().min(1).default(DEFAULT_ADAPTER_DIR),
  /** The alias table (SQLite) the gateway reads: versions, alias history. */
  registry: dbLocation.default(DEFAULT_REGISTRY),
  /** Test cases sent to a freshly loaded version before the alias moves. */
  smokeProbes: z.number().int().min(1).max(50).default(3),
  timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
});

/** The router gateway (`flywheel gateway`): alias resolution, escalation, trace log. */
export const gatewaySchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8300),
  /** The alias table; the same file deploy writes. */
  registry: dbLocation.default(DEFAULT_REGISTRY),
  /** Every decision is appended here as an OpenAI-format trace (one JSONL file per UTC day); `traces:` can name this directory. */
  tracesDir: z.string().min(1).default(DEFAULT_TRACES_DIR),
  /** Per request to a backend. */
  timeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
  /** Environment variable with the serving backends' API key (vLLM --api-key), if they need one. */
  backendApiKeyEnv: envName.optional(),
  /** Client keys (`name:sha256` lines, `flywheel gateway keys create NAME`); with any key here or in FLYWHEEL_GATEWAY_KEYS every request needs one. */
  keysFile: z.string().min(1).optional(),
  /** Listen beyond loopback without client keys: anyone who reaches the port may call (and spend escalation). */
  allowAnonymous: z.boolean().default(false),
  /**
   * What a decision's confidence (traced, and escalated below minConfidence) is the probability of: the chosen tool's
   * name tokens (`tool`) or the whole answer as written (`answer`). Choose minConfidence on the same signal
   * (evaluate.calibration.confidence).
   */
  confidence: z.enum(CONFIDENCE_SIGNALS).default('tool'),
  /** The cascade: low-confidence decisions go to a frontier endpoint. Without it nothing escalates. */
  escalation: z
    .strictObject({
      baseUrl: z.url({ protocol: /^https?$/ }),
      model: z.string().min(1),
      apiKeyEnv: envName.default('OPENAI_API_KEY'),
      /** Escalate when the decision's confidence (gateway.confidence) is below this (needs backend logprobs). */
      minConfidence: z.number().min(0).max(1).default(0.5),
      /**
       * Rules that escalate regardless of logprobs: invalid (output is not a decision), rewritten (the router called
       * a tool the router contract's checks refused: not offered, an ungrounded id, off its schema), abstain (the
       * model declined).
       */
      on: z.array(z.enum(['invalid', 'rewritten', 'abstain'])).default(['invalid', 'rewritten']),
      /** What escalation may spend, in total and per client key; over a cap the small model answers (gateway/spend-budget.ts). */
      budget: z
        .strictObject({
          requestsPerMinute: z.number().int().min(0).optional(),
          tokensPerDay: z.number().int().min(0).optional(),
          perKey: z
            .strictObject({
              requestsPerMinute: z.number().int().min(0).optional(),
              tokensPerDay: z.number().int().min(0).optional(),
            })
            .optional(),
        })
        .optional(),
    })
    .optional(),
  /**
   * Export each decision as an OpenTelemetry GenAI span over OTLP/HTTP (gateway/otel.ts); a collector's file exporter
   * writes what a `traces:` source reads back (format otel-genai).
   */
  otel: z
    .strictObject({
      /** The collector's OTLP/HTTP base URL (spans go to ENDPOINT/v1/traces), e.g. http://127.0.0.1:4318. */
      endpoint: z.url({ protocol: /^https?$/ }),
      /** Put the messages and tool definitions on the span (`gen_ai.input.messages`, …). Off by default, as the convention asks; `flywheel gateway --otel-capture-content` turns it on. */
      captureContent: z.boolean().default(false),
      /** The `service.name` the spans carry. */
      serviceName: z.string().min(1).default('flywheel-gateway'),
      /** How long spans are batched before an export. */
      exportIntervalMs: z.number().int().min(100).max(60_000).default(2000),
    })
    .optional(),
  /**
   * Render each agent request as the router was trained (docs/release.md, Router gateway): the router's system prompt with this
   * caller, the agent's conversation, and a retriever's slice of its tools. Without it requests are forwarded
   * as sent, which suits clients that send rendered prompts (eval, replays).
   */
  render: z
    .strictObject({
      /** Tools shown to the router per request. Default: the config's dataset.sliceSize (else 6), as in training. */
      sliceSize: z.number().int().min(1).max(64).optional(),
      /** The persona the router checks calls against. Scopes come from here, never from the request body. */
      caller: z
        .strictObject({ name: z.string().min(1), scopes: z.array(z.string().min(1)) })
        .default({ name: 'agent', scopes: [] }),
      /** Longer conversations lose their oldest turns (recorded in the trace and a response header). */
      maxPromptTokens: z.number().int().min(256).max(1_000_000).default(4096),
    })
    .optional(),
});

export const configSchema = z
  .strictObject({
    version: z.literal(1),
    /** Project name: keys workflow ids, catalog history and schedules. */
    name,
    artifacts: z
      .strictObject({
        /** file:PATH (relative to the worker's cwd), file:///abs/path, or s3://bucket/prefix. */
        store: z.string().min(1).default(DEFAULT_STORE_URI),
        s3: z
          .strictObject({
            endpoint: z.url().optional(),
            region: z.string().optional(),
            forcePathStyle: z.boolean().optional(),
          })
          .default({}),
      })
      .default({ store: DEFAULT_STORE_URI, s3: {} }),
    servers: z
      .array(serverSchema)
      .min(1, 'at least one MCP server is needed')
      .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, {
        message: 'server names must be unique',
      }),
    catalog: z
      .strictObject({
        /** Stop following nextCursor after this many pages (guards against a server that never ends). */
        maxPages: z.number().int().min(1).max(10_000).default(100),
      })
      .default({ maxPages: 100 }),
    /** Build a training dataset from the catalog's sandboxes; without this section a run stops after ingest. */
    dataset: datasetSchema.optional(),
    /** Agent traces to unroll into rows next to the generated ones (needs a dataset section). */
    traces: z.array(traceSourceSchema).default([]),
    /** Train only when enough new trace rows arrived since the last run that trained (needs traces and train). */
    retrain: retrainSchema.optional(),
    /** Train an adapter on the rendered dataset (needs a dataset section and a `flywheel-gpu` worker). */
    train: trainSchema.optional(),
    /** DPO on near-miss pairs after SFT (needs train); its adapter is the candidate. */
    preference: preferenceSchema.optional(),
    /** Score the trained candidate (needs train). */
    evaluate: evaluateSchema.optional(),
    /** Decide whether the candidate may replace production (needs evaluate). */
    gate: gateSchema.optional(),
    /** Serve the promoted candidate under the alias (needs gate). */
    deploy: deploySchema.optional(),
    /** Options of `flywheel gateway`; not used by runs. */
    gateway: gatewaySchema.optional(),
  })
  .refine((c) => c.traces.length === 0 || c.dataset !== undefined, {
    message: 'traces need a dataset section: they become dataset rows',
    path: ['traces'],
  })
  .refine((c) => c.retrain === undefined || (c.train !== undefined && c.traces.length > 0), {
    message: 'retrain needs traces and a train section: it decides whether new traces warrant training',
    path: ['retrain'],
  })
  .refine((c) => c.train === undefined || c.dataset !== undefined, {
    message: 'train needs a dataset section: it trains on the rendered rows',
    path: ['train'],
  })
  .refine((c) => c.preference === undefined || c.train !== undefined, {
    message: 'preference needs a train section: DPO continues its adapter',
    path: ['preference'],
  })
  .superRefine((c, ctx) => {
    if (!c.preference || !c.train) return;
    for (const p of preferenceSectionProblems(c.train.job, c.preference))
      ctx.addIssue({ code: 'custom', path: ['preference', ...p.path], message: p.message });
  })
  .refine((c) => !c.evaluate?.bfcl || c.evaluate.chunkSize === undefined, {
    message:
      'evaluate.bfcl is scored in the one evaluate activity; it cannot be combined with evaluate.chunkSize (drop one)',
    path: ['evaluate', 'bfcl'],
  })
  .refine((c) => c.evaluate === undefined || c.train !== undefined, {
    message: 'evaluate needs a train section: it scores the trained adapter',
    path: ['evaluate'],
  })
  .refine((c) => c.gate === undefined || c.evaluate !== undefined, {
    message: 'gate needs an evaluate section: it decides on the eval report',
    path: ['gate'],
  })
  .refine((c) => c.deploy === undefined || c.gate !== undefined, {
    message: 'deploy needs a gate section: only a promoted candidate is deployed',
    path: ['deploy'],
  });

export type FlywheelConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type ProbeConfig = z.infer<typeof probeSchema>;
export type DatasetConfig = z.infer<typeof datasetSchema>;
export type TrainConfig = z.infer<typeof trainSchema>;
export type PreferenceConfig = z.infer<typeof preferenceSchema>;
export type TeacherConfig = DatasetConfig['teacher'];
export type EvaluateConfig = z.infer<typeof evaluateSchema>;
export type GateSettings = z.infer<typeof gateSchema>;
export type DeployConfig = z.infer<typeof deploySchema>;
export type RetrainConfig = z.infer<typeof retrainSchema>;
export type GatewayConfig = z.infer<typeof gatewaySchema>;
export type CostConfig = z.infer<typeof costSchema>;
