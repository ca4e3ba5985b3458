import { canonicalJson, hashOf, sha256Hex, shortSha } from '../hash.js';

/**
 * An adapter's version: the dataset (train + val artifact hashes) and the normalised job decide it, so the
 * same data and settings name the same adapter and any change names a new one.
 */
export function adapterVersion(trainSha: string, valSha: string, jobIdentity: Record<string, unknown>): string {
  return `adp-${sha256Hex(canonicalJson({ train: trainSha, val: valSha, job: jobIdentity })).slice(0, 12)}`;
}

/**
 * The candidate's tag in a deployed version's name, `<alias>@<tag>`: the short hashes of the SFT dataset (train + val
 * artifact hashes) and of the identity, so a name always means the same adapter bytes (the training stages are
 * memoised on exactly these inputs). Train and preference compute it with the version; deploy takes it.
 */
export function adapterTag(dataset: { trainSha: string; valSha: string }, identity: unknown): string {
  return `${shortSha(hashOf([dataset.trainSha, dataset.valSha]), 8)}-${shortSha(hashOf(identity), 8)}`;
}
