import { z } from 'zod';
import { trainSectionProblems } from '../train/job.js';

/**
 * The flywheel config: one YAML/JSON document. Every object is strict, so a typo'd key is an error that
 * names its path instead of a silently ignored setting. Later stages add their own sections here.
 */

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'use lowercase letters, digits and dashes (max 63), starting with a letter or digit');

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
  bearerTokenEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').optional(),
});

export const serverSchema = z
  .strictObject({
    name,
    stdio: stdioServerSchema.optional(),
    http: httpServerSchema.optional(),
    /** Connect + each tools/list page must finish within this many milliseconds. */
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  })
  .refine((s) => Boolean(s.stdio) !== Boolean(s.http), {
    message: 'set exactly one of "stdio" or "http"',
  });

const personaSchema = z.strictObject({
  name: z.string().min(1),
  /** The server name (config servers[].name) this persona acts on. */
  domain: z.string().min(1),
  scopes: z.array(z.string().min(1)),
});

const teacherSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('template') }),
  z.strictObject({
    kind: z.literal('openai'),
    /** Any OpenAI-compatible endpoint (OpenAI, vLLM, ...). */
    baseUrl: z.url(),
    model: z.string().min(1),
    /** Worker environment variable holding the API key (never the key itself). */
    apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name').default('OPENAI_API_KEY'),
    /** Requests in flight at once. */
    concurrency: z.number().int().min(1).max(256).default(8),
    timeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
    /** Retries of 429 / 5xx / timeouts per request (429 honours Retry-After). */
    maxRetries: z.number().int().min(0).max(20).default(5),
    /** Ask for JSON output (response_format json_object); turn off for endpoints that reject it. */
    jsonMode: z.boolean().default(true),
    temperature: z.number().min(0).max(2).default(0.7),
  }),
]);

/** Defaults of every dataset key, so `dataset: {}` is a complete section. */
const DATASET_DEFAULTS = {
  seed: 42,
  perGoal: 24,
  unsatisfiableShare: 0.15,
  negativeShare: 0.4,
  sliceSize: 8,
  split: { train: 0.8, val: 0.1, test: 0.1 },
  minPerTool: 20,
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
    split: z
      .strictObject({ train: z.number().positive(), val: z.number().min(0), test: z.number().positive() })
      .default(DATASET_DEFAULTS.split),
    /** Oversample train so every tool has at least this many rows. */
    minPerTool: z.number().int().min(0).max(100_000).default(DATASET_DEFAULTS.minPerTool),
    teacher: teacherSchema.default(DATASET_DEFAULTS.teacher),
    /** Replace the default personas (see README); each needs a domain matching a server name. */
    personas: z.array(personaSchema).min(1).optional(),
    render: z.strictObject({ format: z.enum(['router-json', 'hermes']).default('router-json') }).default(DATASET_DEFAULTS.render),
  });

/** A production trace file (JSON or JSONL, OpenAI format), read on the worker. */
const traceSourceSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    /** Server name for traces without metadata.domain. */
    domain: z.string().min(1).optional(),
  }),
]);

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
    for (const p of trainSectionProblems(section.job)) ctx.addIssue({ code: 'custom', path: ['job', ...p.path], message: p.message });
  });

export const configSchema = z.strictObject({
  version: z.literal(1),
  /** Project name: keys workflow ids, catalog history and schedules. */
  name,
  artifacts: z
    .strictObject({
      /** file:PATH (relative to the worker's cwd), file:///abs/path, or s3://bucket/prefix. */
      store: z.string().min(1).default('file:.flywheel/artifacts'),
      s3: z
        .strictObject({
          endpoint: z.url().optional(),
          region: z.string().optional(),
          forcePathStyle: z.boolean().optional(),
        })
        .default({}),
    })
    .default({ store: 'file:.flywheel/artifacts', s3: {} }),
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
  /** Train an adapter on the rendered dataset (needs a dataset section and a `flywheel-gpu` worker). */
  train: trainSchema.optional(),
})
  .refine((c) => c.traces.length === 0 || c.dataset !== undefined, { message: 'traces need a dataset section: they become dataset rows', path: ['traces'] })
  .refine((c) => c.train === undefined || c.dataset !== undefined, { message: 'train needs a dataset section: it trains on the rendered rows', path: ['train'] });

export type FlywheelConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type DatasetConfig = z.infer<typeof datasetSchema>;
export type TrainConfig = z.infer<typeof trainSchema>;
export type TeacherConfig = DatasetConfig['teacher'];
