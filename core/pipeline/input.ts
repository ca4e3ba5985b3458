import { z } from 'zod';
import { ConfigError } from '../config/load.js';
import { traceSourceSchema } from '../config/schema.js';

const artifactRefSchema = z.strictObject({
  uri: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  kind: z.string().min(1),
  count: z.number().int().min(0),
  bytes: z.number().int().min(0),
});

/** Caller-supplied idempotency keys become part of the workflow id, so they keep to its safe characters. */
export const IDEMPOTENCY_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/**
 * The one JSON object `flywheelRun` takes: from the CLI, a Schedule, the Temporal UI's "Start Workflow", or
 * another system's Temporal client. `temporal-config/flywheel-run-input.schema.json` is generated from this.
 */
export const flywheelRunInputSchema = z
  .strictObject({
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The config inline (the YAML file as JSON); defaults are filled in by validation.'),
    configPath: z
      .string()
      .min(1)
      .optional()
      .describe("A config file path as seen by the worker (relative to the worker's working directory)."),
    configRef: artifactRefSchema.optional().describe('A config stored earlier as an artifact (what resume uses).'),
    configStore: z
      .string()
      .min(1)
      .optional()
      .describe('The store holding configRef, when it is not the default file store.'),
    resumeOf: z
      .string()
      .min(1)
      .optional()
      .describe('The run this one continues; finished stages are reused through the stage memo.'),
    trigger: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Who started it (cli, ui, schedule:<name>, script:<system>): shown to operators, search attribute Trigger.',
      ),
    reason: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('Why this run was started, in words: shown in the run summary and progress.'),
    traces: z
      .array(traceSourceSchema)
      .optional()
      .describe(
        "Trace sources added to the config's traces (files, directories, s3://bucket/prefix/ or s3://bucket/key.jsonl).",
      ),
    idempotencyKey: z
      .string()
      .regex(IDEMPOTENCY_KEY_RE)
      .optional()
      .describe(
        'The caller\'s key; the workflow id is flywheel-<project>:<key> (docs/operating.md, "Starting runs from scripts and other systems").',
      ),
    force: z
      .boolean()
      .optional()
      .describe('Train even when the retrain policy finds too little new data since the watermark.'),
  })
  .refine((i) => [i.config, i.configPath, i.configRef].filter((v) => v !== undefined).length === 1, {
    message: 'set exactly one of "config", "configPath" or "configRef"',
  });

export type FlywheelRunInput = z.infer<typeof flywheelRunInputSchema>;

/** Validate a workflow input, naming each bad field. */
export function parseRunInput(raw: unknown): FlywheelRunInput {
  const parsed = flywheelRunInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      'workflow input',
      parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** The JSON Schema other systems validate their start requests against. */
export function runInputJsonSchema(): Record<string, unknown> {
  return {
    title: 'flywheelRun input',
    description:
      'The one argument of the flywheelRun workflow (task queue "flywheel"). Exactly one of config, configPath, configRef.',
    ...z.toJSONSchema(flywheelRunInputSchema, { io: 'input', unrepresentable: 'any' }),
    // The refine above, in JSON Schema terms.
    oneOf: [{ required: ['config'] }, { required: ['configPath'] }, { required: ['configRef'] }],
  };
}
