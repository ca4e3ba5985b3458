import { canonicalJson, sha256Hex } from '../hash.js';

/**
 * An adapter's version: the dataset (train + val artifact hashes) and the normalised job decide it, so the
 * same data and settings name the same adapter and any change names a new one.
 */
export function adapterVersion(trainSha: string, valSha: string, jobIdentity: Record<string, unknown>): string {
  return `adp-${sha256Hex(canonicalJson({ train: trainSha, val: valSha, job: jobIdentity })).slice(0, 12)}`;
}
