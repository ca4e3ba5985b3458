import { packagedNameProblem } from './packaged-bases.js';
import jobSchema from '../../trainer/job.schema.json' with { type: 'json' };
import type { ErrorObject } from 'ajv';
import { formatPath } from '../config/path.js';
import { compileSchema } from '../schema/compile.js';
import { canonicalJson } from '../hash.js';
import { InputError } from '../errors.js';

/**
 * The TypeScript side of the train job contract: trainer/job.schema.json is the one definition; the Python
 * trainer validates the same file with jsonschema and fills the same defaults (tested to agree).
 */
export const JOB_SCHEMA = jobSchema as Record<string, unknown>;

const compiled = compileSchema(JOB_SCHEMA);
if (!compiled.ok) throw new Error(`trainer/job.schema.json does not compile: ${compiled.error}`);
const validate = compiled.validate;

export interface JobProblem {
  path: Array<string | number>;
  message: string;
}

export class TrainJobError extends InputError {
  override name = 'TrainJobError';
  readonly problems: string[];
  constructor(readonly issues: JobProblem[]) {
    const problems = issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
    super(`invalid train job\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

function pointerToPath(pointer: string): Array<string | number> {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
}

function describe(e: ErrorObject): JobProblem {
  const path = pointerToPath(e.instancePath);
  if (e.keyword === 'additionalProperties')
    return {
      path: [...path, String((e.params as { additionalProperty: string }).additionalProperty)],
      message: 'unknown key',
    };
  if (e.keyword === 'required')
    return {
      path,
      message: `'${String((e.params as { missingProperty: string }).missingProperty)}' is a required property`,
    };
  return { path, message: e.message ?? 'invalid' };
}

/** Fill `default`s of object properties, recursively; the same algorithm as the trainer's with_defaults. */
export function withDefaults(schema: Record<string, unknown>, value: unknown): unknown {
  if (schema.type !== 'object' || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!(name in out) && 'default' in sub) out[name] = structuredClone(sub.default);
    if (name in out) out[name] = withDefaults(sub, out[name]);
  }
  return out;
}

/** Validate a job, then fill its defaults. Throws TrainJobError naming every bad field. */
export function normalizeTrainJob(raw: unknown): Record<string, unknown> {
  if (!validate(raw)) throw new TrainJobError((validate.errors ?? []).map(describe));
  return withDefaults(JOB_SCHEMA, raw) as Record<string, unknown>;
}

/** Keys the run fills in; a config's `train.job` sets the rest. */
export const RUN_OWNED_KEYS = ['version', 'data', 'outputDir', 'resumeFrom'] as const;

/** Problems of a config's `train.job` section, with paths relative to it (empty when valid). */
export function trainSectionProblems(job: Record<string, unknown>): JobProblem[] {
  const owned = RUN_OWNED_KEYS.filter((k) => k in job).map((k) => ({
    path: [k],
    message: 'is set by the run, not the config',
  }));
  if (owned.length) return owned;
  const base = typeof job.baseModel === 'string' ? packagedNameProblem(job.baseModel) : undefined;
  if (base) return [{ path: ['baseModel'], message: base }];
  // DPO continues this job's adapter: it is the run's `preference` section, a stage of its own.
  if (job.method === 'dpo' || 'preference' in job)
    return [
      {
        path: [job.method === 'dpo' ? 'method' : 'preference'],
        message:
          "train.job is the SFT pass (lora, qlora or full); preference tuning after it is the config's `preference` section",
      },
    ];
  try {
    normalizeTrainJob(
      trainJobFor(job, { train: 'train.jsonl', val: 'val.jsonl', format: 'router-json', outputDir: 'out' }),
    );
    return [];
  } catch (err) {
    if (err instanceof TrainJobError) return err.issues;
    throw err;
  }
}

export interface RunPaths {
  train: string;
  val: string;
  format: 'router-json' | 'hermes';
  outputDir: string;
  resumeFrom?: string | null;
}

/** The full job for the trainer: the config's keys plus what this run owns. Not yet normalised. */
export function trainJobFor(job: Record<string, unknown>, paths: RunPaths): Record<string, unknown> {
  return {
    ...job,
    version: 1,
    data: { train: paths.train, val: paths.val, format: paths.format },
    outputDir: paths.outputDir,
    resumeFrom: paths.resumeFrom ?? null,
  };
}

/**
 * Keys whose schema default came after adapter versions were first derived: at their default they stay out of
 * the identity, so a job that leaves them out keeps the adapter version it had before the default existed.
 */
export const IDENTITY_OMITS_AT_DEFAULT: ReadonlyArray<readonly [string, ...string[]]> = [
  ['optim', 'loraPlusRatio'],
  ['optim', 'sharedPrefixRows'],
  ['optim', 'decisionWeight'],
  ['optim', 'tokenWeightedLoss'],
  ['resources'],
];

/** The schema node of a key path (properties all the way down). */
function schemaAt(path: readonly string[]): Record<string, unknown> {
  let node = JOB_SCHEMA;
  for (const key of path) node = (node.properties as Record<string, Record<string, unknown>>)[key]!;
  return node;
}

/** The job's identity for versioning: normalised, without the run-owned keys (paths differ per machine). */
export function jobIdentity(job: Record<string, unknown>, format: RunPaths['format']): Record<string, unknown> {
  const full = normalizeTrainJob(trainJobFor(job, { train: '-', val: '-', format, outputDir: '-' }));
  for (const k of ['data', 'outputDir', 'resumeFrom']) delete full[k];
  for (const path of IDENTITY_OMITS_AT_DEFAULT) {
    const node = schemaAt(path);
    const parent = path.slice(0, -1).reduce((o, k) => o[k] as Record<string, unknown>, full);
    const key = path[path.length - 1]!;
    if (canonicalJson(parent[key]) === canonicalJson(withDefaults(node, node.default))) delete parent[key];
  }
  return { ...full, format };
}

/** The config's `preference` section (core/config/schema.ts): DPO settings and the train.job keys that differ. */
export interface PreferenceSettings {
  beta: number;
  lossType: string;
  job: Record<string, unknown>;
}

/** Keys of preference.job the run owns: the method and where DPO starts from. */
const PREFERENCE_OWNED_KEYS = ['method', 'preference', ...RUN_OWNED_KEYS] as const;

/**
 * The DPO job's config keys: the SFT job, then preference.job's keys over it (`optim` merged key by key), method
 * dpo, starting from (and referenced against) the adapter at `startFrom`.
 */
export function preferenceJobConfig(
  trainJob: Record<string, unknown>,
  pref: PreferenceSettings,
  startFrom: string,
): Record<string, unknown> {
  const { optim, ...rest } = pref.job as { optim?: Record<string, unknown> } & Record<string, unknown>;
  const sftOptim = (trainJob.optim ?? {}) as Record<string, unknown>;
  return {
    ...trainJob,
    ...rest,
    optim: { ...sftOptim, ...optim },
    method: 'dpo',
    preference: { startFrom, beta: pref.beta, lossType: pref.lossType },
  };
}

/** Problems of a config's `preference` section against its train.job, with paths relative to the section. */
export function preferenceSectionProblems(trainJob: Record<string, unknown>, pref: PreferenceSettings): JobProblem[] {
  const owned = PREFERENCE_OWNED_KEYS.filter((k) => k in pref.job).map((k) => ({
    path: ['job', k],
    message: 'is set by the run, not the config',
  }));
  if (owned.length) return owned;
  if (trainJob.method === 'full')
    return [
      {
        path: [],
        message: 'DPO continues a LoRA adapter, and train.job.method full trains the whole model: use lora or qlora',
      },
    ];
  try {
    normalizeTrainJob(
      trainJobFor(preferenceJobConfig(trainJob, pref, 'sft-adapter'), {
        train: 'pairs-train.jsonl',
        val: 'pairs-val.jsonl',
        format: 'router-json',
        outputDir: 'out',
      }),
    );
    return [];
  } catch (err) {
    if (!(err instanceof TrainJobError)) throw err;
    // beta and lossType are checked by the section's own schema (the same ranges): only train.job keys, overridden
    // here or not, are reported from the job.
    return err.issues.filter((i) => i.path[0] !== 'preference').map((i) => ({ ...i, path: ['job', ...i.path] }));
  }
}

/** The DPO job's identity for versioning (the SFT adapter it starts from is versioned by its sha, apart). */
export function preferenceIdentity(
  trainJob: Record<string, unknown>,
  pref: PreferenceSettings,
  format: RunPaths['format'],
): Record<string, unknown> {
  return jobIdentity(preferenceJobConfig(trainJob, pref, '-'), format);
}
