/**
 * The router's answer (router-json format) as one JSON Schema over the offered tools: a call names one of them
 * with arguments that follow its input schema, or a no-call names a verdict and one of its codes. An engine with
 * structured outputs (vLLM's `response_format: json_schema`) decodes inside it, as `flywheel serve`'s own
 * constraint does.
 */
import type { RenderedRow } from '../dataset/render.js';
import { VERDICT_CODES, VERDICTS } from '../dataset/verdicts.js';

type Schema = Record<string, unknown>;

export function routerAnswerSchema(tools: RenderedRow['tools']): Schema {
  const calls = tools.map((t) => ({
    type: 'object',
    properties: { tool: { const: t.function.name }, arguments: argumentsSchema(t.function.parameters) },
    required: ['tool', 'arguments'],
    additionalProperties: false,
  }));
  const noCalls = VERDICTS.map((verdict) => ({
    type: 'object',
    properties: {
      tool: { type: 'null' },
      verdict: { const: verdict },
      code: { enum: Object.keys(VERDICT_CODES).filter((c) => VERDICT_CODES[c] === verdict) },
    },
    required: ['tool', 'verdict', 'code'],
    additionalProperties: false,
  }));
  return { anyOf: [...calls, ...noCalls] };
}

/**
 * The request fields that keep an engine's answer inside that schema: structured outputs (`response_format`), and
 * the tools only rendered into the prompt (`tool_choice: "none"`; vLLM refuses `tools` under `auto` without a tool
 * parser, and a tool parser would not read router JSON). `nameable`: tools of the adapter's catalog it may name
 * though the request does not offer them (its flywheel.json `tools`), as `flywheel serve` lets it; the offer check
 * after the answer makes such a call tool_not_offered (core/router/checks.ts).
 */
export function answerConstraint(
  tools: RenderedRow['tools'],
  nameable: RenderedRow['tools'] = [],
): Record<string, unknown> {
  const offered = new Set(tools.map((t) => t.function.name));
  const schemaTools = [...tools, ...nameable.filter((t) => !offered.has(t.function.name))];
  return {
    ...(tools.length > 0 ? { tool_choice: 'none' } : {}),
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'router_answer', schema: routerAnswerSchema(schemaTools), strict: true },
    },
  };
}

/**
 * A tool's input schema as the `arguments` of a call. References point at the tool schema's own root, which is
 * not the root here: a schema with `$ref` is left as any object (the answer is checked after, not forced).
 */
function argumentsSchema(parameters: unknown): Schema {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) return { type: 'object' };
  if (JSON.stringify(parameters).includes('"$ref"')) return { type: 'object' };
  return { type: 'object', ...(engineSchema(parameters) as Schema) };
}

/**
 * What every engine's grammar compiles (vLLM's xgrammar and guidance, OpenAI's strict mode): other keywords go.
 * Not `minProperties`/`maxProperties`: guidance takes them only when every listed property is required.
 */
const KEPT = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'items', 'prefixItems', 'enum', 'const'],
  ...['anyOf', 'allOf', 'description', 'title', 'minLength', 'maxLength', 'pattern', 'format', 'minItems'],
  ...['maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
]);
/** Formats the grammar backends know; another (`uri-reference`, a vendor's own) is dropped rather than refused. */
const FORMATS = new Set(['date', 'date-time', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'uri']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'prefixItems']);

/**
 * A tool's schema in the words engines compile: `oneOf` as `anyOf` (vLLM's guidance backend refuses `oneOf`, and
 * exclusivity is not something decoding can hold anyway), and the keywords they refuse (`uniqueItems`, `not`,
 * `if`, …) and unknown formats left out, so only ever looser there: a schema whose `patternProperties` go also
 * loses `additionalProperties`, which would otherwise shut out what they allowed. The decoded answer is then inside
 * a looser schema; scoring and the gateway's checks judge it against the tool's own. One thing is tighter, as
 * `flywheel serve`'s constraint is: an object that lists its properties and says nothing of others takes no others
 * (scoring counts an argument the schema does not list as an error), except as a branch of anyOf, allOf or oneOf,
 * where the other branches may list them.
 */
function engineSchema(schema: unknown, branch = false): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const given = schema as Schema;
  const out: Schema = {};
  const sub = (v: unknown) => engineSchema(v);
  const branchOf = (v: unknown) => engineSchema(v, true);
  for (const [name, value] of Object.entries(given)) {
    if (!KEPT.has(name) || (name === 'format' && !FORMATS.has(String(value)))) continue;
    if (name === 'additionalProperties' && 'patternProperties' in given) continue;
    if (name === 'properties' && typeof value === 'object' && value !== null)
      out[name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
    else if (SUBSCHEMA_LISTS.has(name) && Array.isArray(value))
      out[name] = value.map(name === 'prefixItems' ? sub : branchOf);
    else if (name === 'items' || name === 'additionalProperties')
      out[name] = Array.isArray(value) ? value.map(sub) : sub(value);
    else out[name] = value;
  }
  const composed = ['anyOf', 'allOf', 'oneOf'].some((k) => k in given);
  const open = 'additionalProperties' in given || 'patternProperties' in given;
  if (!branch && !composed && !open && typeof given.properties === 'object' && given.properties !== null)
    out.additionalProperties = false;
  // oneOf as anyOf; beside an anyOf of its own, both must hold.
  if (Array.isArray(given.oneOf)) {
    const oneOf = { anyOf: given.oneOf.map(branchOf) };
    if (out.anyOf) out.allOf = [...((out.allOf as unknown[]) ?? []), oneOf];
    else out.anyOf = oneOf.anyOf;
  }
  return out;
}
