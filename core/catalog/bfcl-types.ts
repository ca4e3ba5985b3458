/**
 * BFCL's function docs use Python-flavoured types (`dict`, `float`, `tuple`, `any`, Java's and JavaScript's too).
 * They become JSON Schema as BFCL's own OpenAI handler makes them (bfcl_eval/model_handler/utils.py
 * `convert_to_tool` with `GORILLA_TO_OPENAPI`, bfcl-eval 2026.3.23): the parameters object is an `object`, each
 * property's type is mapped (an unknown or missing type is `string`), a `float` gains `format: "float"` and says
 * so in its description, and nested properties and array items are mapped the same way. Where BFCL's own code
 * would fail (items without a type, deeper nesting) the same mapping simply continues.
 */
import { isObject } from './build.js';

/** BFCL's GORILLA_TO_OPENAPI, verbatim. */
export const GORILLA_TO_OPENAPI: Readonly<Record<string, string>> = {
  integer: 'integer',
  number: 'number',
  float: 'number',
  string: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  dict: 'object',
  object: 'object',
  tuple: 'array',
  any: 'string',
  byte: 'integer',
  short: 'integer',
  long: 'integer',
  double: 'number',
  char: 'string',
  ArrayList: 'array',
  Array: 'array',
  HashMap: 'object',
  Hashtable: 'object',
  Queue: 'array',
  Stack: 'array',
  Any: 'string',
  String: 'string',
  Bigint: 'integer',
};

type Json = Record<string, unknown>;

/** Whether a parameters object is written in BFCL's types (its top level says `dict`). */
export function isBfclParameters(parameters: unknown): boolean {
  return isObject(parameters) && parameters.type === 'dict';
}

/** A BFCL parameters object as JSON Schema (a new object; the input is not changed). */
export function bfclParametersToJsonSchema(parameters: Json): Json {
  const out: Json = structuredClone(parameters);
  out.type = 'object';
  if (isObject(out.properties)) out.properties = castProperties(out.properties);
  return out;
}

function castProperties(properties: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(properties)) out[key] = isObject(value) ? castProperty(value) : value;
  return out;
}

function castProperty(prop: Json): Json {
  const out: Json = { ...prop };
  const given = out.type;
  if (given === 'float') {
    out.format = 'float';
    out.description = `${typeof out.description === 'string' ? out.description : ''} This is a float type value.`;
  }
  out.type = mapped(given);
  if (out.type === 'array' || out.type === 'object') {
    if (isObject(out.properties)) out.properties = castProperties(out.properties);
    else if (isObject(out.items)) out.items = castItems(out.items);
  }
  return out;
}

/** Items get their type mapped (no float format: BFCL adds it to properties only), then their own items or properties. */
function castItems(items: Json): Json {
  if (typeof items.type !== 'string') return items;
  const out: Json = { ...items, type: mapped(items.type) };
  if (out.type === 'array' && isObject(out.items)) out.items = castItems(out.items);
  else if (out.type === 'object' && isObject(out.properties)) out.properties = castProperties(out.properties);
  return out;
}

/** BFCL's mapping of one type name; anything else (`constructor` included) is a string, as in BFCL. */
function mapped(type: unknown): string {
  return typeof type === 'string' && Object.hasOwn(GORILLA_TO_OPENAPI, type) ? GORILLA_TO_OPENAPI[type]! : 'string';
}
