/**
 * The grounding check: ids in a call's arguments must come from the conversation.
 *
 * A small router asked to "post the journal we discussed" writes a journal id anyway, and one asked for an invoice
 * adds an `accountNumber` nobody gave. After the answer, the values that name something (an argument whose key
 * says it is an identifier: `…id`, `…Id`, `…_id`, `…number`, `…no`, `…key`, `…code`, `…ref`, `…sku`, `…uuid`) and
 * whose value is an integer of four or more digits or a string with digits and no whitespace are looked up in the
 * conversation: every turn's text and earlier calls' arguments. Each run of letters and digits in the value that
 * holds a digit must be a whole word there (an integer: the number, thousands separators aside): an id is copied
 * whole. Quantities, amounts, dates, free text, URLs and paths are left alone, as is anything from a closed set or
 * a format (enum, const, format), booleans, arrays and objects.
 *
 * - A required argument that is not grounded means the request lacks it (or the router miscopied it): the answer
 *   becomes the missing_argument no-call, which the gateway may escalate, rather than a call on a made-up id.
 * - An optional one is dropped from the call, unless a oneOf/anyOf alternative requires it.
 */
type Obj = Record<string, unknown>;

const MIN_ID_DIGITS = 4;
const MAX_ID_LENGTH = 80;
// Keys that name an identifier, as MCP servers spell them: customerId, record_id, issue_number, trxNumber, sku …
const ID_KEY = /(?:id|ids|number|num|no|key|code|ref|sku|uuid)$/i;
const WORDS = /[a-z0-9]+/g;
const THOUSANDS = /(?<=\d)[,_ ](?=\d{3}\b)/g;

/** A conversation turn as OpenAI messages carry it (content a string or text parts). */
export interface ConversationMessage {
  role?: string;
  content?: unknown;
  tool_calls?: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message's text: a string, or the text parts of a list of content parts (as OpenAI SDKs send them). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p): p is { text: string } => isObj(p) && typeof p.text === 'string')
      .map((p) => p.text)
      .join('\n');
  return '';
}

/** The words a grounded id may be: every turn's text and earlier calls' arguments, lower case ("12,345" also as 12345). */
export function sourceWords(messages: readonly ConversationMessage[]): Set<string> {
  const parts: string[] = [];
  for (const m of messages) {
    parts.push(textOf(m.content));
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const args = isObj(call) && isObj(call.function) ? call.function.arguments : undefined;
      parts.push(typeof args === 'string' ? args : args !== undefined && args !== null ? JSON.stringify(args) : '');
    }
  }
  const text = parts.join('\n').toLowerCase();
  return new Set([...(text.match(WORDS) ?? []), ...(text.replace(THOUSANDS, '').match(WORDS) ?? [])]);
}

/** Whether the value of `key` is an identifier the check looks up. */
function checked(key: string, schema: unknown): boolean {
  if (!ID_KEY.test(key) || !isObj(schema)) return false;
  if (['enum', 'const', 'format', 'anyOf', 'oneOf', 'allOf', '$ref'].some((k) => k in schema)) return false;
  return schema.type === 'string' || schema.type === 'integer' || schema.type === 'number';
}

/** Whether an identifier value could have come from the conversation (see the module comment). */
export function grounded(value: unknown, source: Set<string>): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return true;
    const digits = String(Math.abs(value));
    return digits.length < MIN_ID_DIGITS || source.has(digits);
  }
  if (typeof value !== 'string' || !value.trim() || value.length > MAX_ID_LENGTH || /\s/.test(value.trim()))
    return true;
  const withDigits = (value.toLowerCase().match(WORDS) ?? []).filter((w) => /\d/.test(w));
  return withDigits.every((w) => source.has(w));
}

function alternativesRequire(parameters: Obj): Set<string> {
  const keys = new Set<string>();
  for (const branch of [parameters.oneOf, parameters.anyOf].flatMap((b) => (Array.isArray(b) ? b : [])))
    if (isObj(branch) && Array.isArray(branch.required))
      for (const k of branch.required) if (typeof k === 'string') keys.add(k);
  return keys;
}

/** The required keys whose values are not grounded, and the optional ones that are not and may be dropped. */
export function ungrounded(
  args: unknown,
  parameters: unknown,
  source: Set<string>,
): { missing: string[]; droppable: string[] } {
  const missing: string[] = [];
  const droppable: string[] = [];
  if (!isObj(parameters) || !isObj(args)) return { missing, droppable };
  const props = isObj(parameters.properties) ? parameters.properties : {};
  const required = new Set(Array.isArray(parameters.required) ? parameters.required : []);
  const pinned = alternativesRequire(parameters);
  for (const [key, value] of Object.entries(args)) {
    if (!checked(key, props[key]) || grounded(value, source)) continue;
    if (required.has(key)) missing.push(key);
    else if (!pinned.has(key)) droppable.push(key);
  }
  return { missing, droppable };
}
