import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { canonicalJson } from '../hash.js';

// ajv-formats ships CJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Strict validation: no type coercion, no defaults filled in, unknown keywords are schema errors.
 * Type/tuple/required strictness stays off: real MCP schemas use union types and loose tuples legally.
 */
const OPTIONS: Options = {
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
  allErrors: true,
  validateFormats: true,
  // 1234.56 is a multiple of 0.01; without a precision, float division says it is not.
  multipleOfPrecision: 9,
};

type Draft = '07' | '2019-09' | '2020-12';
const instances = new Map<Draft, Ajv>();

function ajvFor(draft: Draft): Ajv {
  let ajv = instances.get(draft);
  if (!ajv) {
    ajv = draft === '07' ? new Ajv(OPTIONS) : draft === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv2020(OPTIONS);
    addFormats(ajv);
    // Tool schemas carry documentation keywords JSON Schema does not define: `example` (MCP servers), `optional`
    // (BFCL's function docs, beside `required`).
    ajv.addVocabulary(['example', 'optional']);
    instances.set(draft, ajv);
  }
  return ajv;
}

/** Pick the dialect from $schema; MCP's default dialect (no $schema) is 2020-12. */
export function draftOf(schema: Record<string, unknown>): Draft {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(id)) return '07';
  if (id.includes('2019-09')) return '2019-09';
  return '2020-12';
}

export type CompileResult = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

/** Compile a JSON Schema without registering it globally, so a bad schema never poisons later ones. */
export function compileSchema(schema: unknown): CompileResult {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { ok: false, error: 'schema is not a JSON object' };
  }
  const draft = draftOf(schema as Record<string, unknown>);
  const ajv = ajvFor(draft);
  // Drop $id so two tools with the same $id do not collide in the shared instance.
  const { $id: _ignored, ...rest } = schema as Record<string, unknown>;
  try {
    return { ok: true, validate: ajv.compile(rest) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

// Compiling is the slow part; callers judge the same few tool schemas over and over.
const validators = new Map<string, ValidateFunction | null>();

/** A compiled validator for a tool schema, kept per distinct schema; null for one ajv cannot compile. */
export function validatorFor(schema: unknown): ValidateFunction | null {
  const key = canonicalJson(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    const compiled = compileSchema(schema);
    validate = compiled.ok ? compiled.validate : null;
    validators.set(key, validate);
  }
  return validate;
}
