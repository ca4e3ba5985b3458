import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import { formatPath } from '../config/load.js';
import { compileSchema } from '../schema/compile.js';

/**
 * The TypeScript side of the train job contract: trainer/job.schema.json is the one definition; the Python
 * trainer validates the same file with jsonschema and fills the same defaults (tested to agree).
 */
export const JOB_SCHEMA_PATH = fileURLToPath(new URL('../../trainer/job.schema.json', import.meta.url));
export const JOB_SCHEMA = JSON.parse(readFileSync(JOB_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;

const compiled = compileSchema(JOB_SCHEMA);
if (!compiled.ok) throw new Error(`trainer/job.schema.json does not compile: ${compiled.error}`);
const validate = compiled.validate;

export class TrainJobError extends Error {
  override name = 'TrainJobError';
  constructor(readonly problems: string[]) {
    super(`invalid train job\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function pointerToPath(pointer: string): Array<string | number> {
  return pointer.split('/').slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
}

function describe(e: ErrorObject): string {
  const path = pointerToPath(e.instancePath);
  if (e.keyword === 'additionalProperties') return `${formatPath([...path, String((e.params as { additionalProperty: string }).additionalProperty)])}: unknown key`;
  if (e.keyword === 'required') return `${formatPath(path)}: '${String((e.params as { missingProperty: string }).missingProperty)}' is a required property`;
  return `${formatPath(path)}: ${e.message ?? 'invalid'}`;
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
