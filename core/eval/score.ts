import { canonicalJson } from '../hash.js';
import { validatorFor } from '../schema/compile.js';
import {
  ABSTAIN,
  INVALID,
  type CallMeasure,
  type CaseResult,
  type EvalCase,
  type Outcome,
  type Prediction,
} from './types.js';

type Obj = Record<string, unknown>;

/** Score one case: exactly one outcome, checked in the order documented on ERROR_TYPES. */
export function scoreCase(c: EvalCase, prediction: Prediction, measure: CallMeasure): CaseResult {
  const p: Prediction = measure.error
    ? { kind: 'invalid', raw: '', problem: `request failed: ${measure.error}` }
    : prediction;
  const target = c.target;
  const targetTool = target.tool ?? ABSTAIN;
  const predictedTool = p.kind === 'call' ? p.tool : p.kind === 'no-call' ? ABSTAIN : INVALID;
  const schema = p.kind === 'call' ? c.tools.find((t) => t.function.name === p.tool)?.function.parameters : undefined;
  const [outcome, detail] = classify(c, p, schema);
  return {
    id: c.id,
    domain: c.domain,
    targetTool,
    predictedTool,
    outcome,
    exact: outcome === 'correct',
    toolMatch: predictedTool === targetTool,
    targetAbstains: target.tool === null,
    predictedAbstains: p.kind === 'no-call',
    schemaValid: p.kind !== 'call' ? null : schema ? validates(schema, p.arguments) : false,
    detail,
    ...(p.kind === 'no-call' && p.refused ? { scopeRefused: p.refused } : {}),
    measure,
  };
}

function classify(c: EvalCase, p: Prediction, schema: Obj | undefined): [Outcome, string] {
  const t = c.target;
  if (p.kind === 'invalid') return ['invalid_output', p.problem];
  if (p.kind === 'call' && !isObj(p.arguments)) return ['invalid_output', 'arguments are not an object'];
  // A second call makes the answer something other than the target, even when the first call matches.
  if (
    p.kind === 'call' &&
    p.extraCalls === 0 &&
    t.tool === p.tool &&
    canonicalJson(p.arguments) === canonicalJson(t.arguments)
  )
    return ['correct', ''];
  if (p.kind === 'no-call' && t.tool === null && p.verdict === t.verdict && p.code === t.code) return ['correct', ''];
  if (p.kind === 'call' && p.extraCalls > 0) return ['spurious_call', `made ${p.extraCalls + 1} calls`];
  if (p.kind === 'call' && !schema) return ['spurious_call', `called ${p.tool}, which was not offered`];
  if (t.tool === null) {
    const expected = `${t.verdict}/${t.code}`;
    if (p.kind === 'call') return ['missed_abstention', `called ${p.tool}, expected ${expected}`];
    return ['wrong_verdict', `expected ${expected}, got ${p.verdict ?? '-'}/${p.code ?? '-'}`];
  }
  if (p.kind === 'no-call')
    return ['spurious_abstention', `abstained (${p.verdict ?? '-'}/${p.code ?? '-'}), expected ${t.tool}`];
  if (p.tool !== t.tool) return ['wrong_tool', `called ${p.tool}, expected ${t.tool}`];
  return argumentError(p.arguments as Obj, t.arguments, schema ?? {});
}

/** Right tool, different arguments: what the schema says is wrong, else which value differs. */
function argumentError(args: Obj, expected: Obj, schema: Obj): [Outcome, string] {
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === 'string')
    : [];
  const missing = required.find((k) => !(k in args));
  if (missing !== undefined) return ['missing_required', `missing required ${missing}`];
  const properties = isObj(schema.properties) ? schema.properties : undefined;
  const unexpected = properties && Object.keys(args).find((k) => !(k in properties));
  if (unexpected !== undefined) return ['unexpected_argument', `unexpected argument ${unexpected}`];
  for (const [key, value] of Object.entries(args)) {
    const prop = properties?.[key];
    const types = isObj(prop) ? [prop.type].flat().filter((x): x is string => typeof x === 'string') : [];
    if (types.length > 0 && !types.some((ty) => hasType(value, ty)))
      return ['type_error', `${key} should be ${types.join('|')}, got ${jsonType(value)}`];
  }
  const keys = [...new Set([...Object.keys(args), ...Object.keys(expected)])].sort();
  const differs = keys.find((k) => show(args, k) !== show(expected, k)) ?? '?';
  return ['value_error', `${differs}: got ${show(args, differs)}, expected ${show(expected, differs)}`];
}

function show(obj: Obj, key: string): string {
  if (!(key in obj)) return 'nothing';
  const s = canonicalJson(obj[key]);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
}

function hasType(v: unknown, type: string): boolean {
  const actual = jsonType(v);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** Arguments valid under the tool's input schema; a schema ajv cannot compile judges nothing (null). */
function validates(schema: Obj, args: unknown): boolean | null {
  const validate = validatorFor(schema);
  return validate ? validate(args) : null;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
