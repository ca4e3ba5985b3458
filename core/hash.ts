import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted, no whitespace, arrays in order.
 * Two values that mean the same thing serialise to the same bytes, so their hashes match.
 */
export function canonicalJson(value: unknown): string {
  // Most values (rows read back from canonical JSONL, catalog schemas) are already in canonical key order:
  // checking that is much cheaper than rebuilding the string, and then the native serializer is exact.
  return isCanonical(value) ? JSON.stringify(value) : (write(value) ?? 'null');
}

function isCanonical(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (Array.isArray(value)) {
    for (const v of value) if (v === undefined || !isCanonical(v)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false;
  let prev: string | undefined;
  for (const key in value as Record<string, unknown>) {
    if (prev !== undefined && !(prev < key)) return false;
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || !isCanonical(v)) return false;
    prev = key;
  }
  return true;
}

// A direct serializer (no intermediate sorted copies): datasets run through this for every row.
function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not representable in JSON`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new TypeError('canonicalJson: BigInt is not representable in JSON');
  }
  if (Array.isArray(value)) return `[${value.map((v) => child(v) ?? 'null').join(',')}]`;
  const obj = value as Record<string, unknown> & { toJSON?: () => unknown };
  if (typeof obj.toJSON === 'function') return write(obj.toJSON());
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = child(obj[key]);
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${v}`);
  }
  return `{${parts.join(',')}}`;
}

/** Canonical subtrees (a catalog schema inside a row, say) go to the native serializer. */
function child(value: unknown): string | undefined {
  return value !== undefined && typeof value === 'object' && value !== null && isCanonical(value)
    ? JSON.stringify(value)
    : write(value);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash of the canonical JSON of a value: the key for memoization and versions. */
export function hashOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

export const SHA256_RE = /^[0-9a-f]{64}$/;

export function shortSha(sha: string, n = 12): string {
  return sha.slice(0, n);
}
