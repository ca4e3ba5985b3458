import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted, no whitespace, arrays in order.
 * Two values that mean the same thing serialise to the same bytes, so their hashes match.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`canonicalJson: ${value} is not representable in JSON`);
  }
  return value;
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
