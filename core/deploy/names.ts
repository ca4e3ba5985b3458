import { hashOf, shortSha } from '../hash.js';

/**
 * `<alias>@<dataset-short-hash>-<job-short-hash>`: a name always means the same adapter bytes (the train stage
 * is memoized on exactly these inputs), so a name is never loaded with different weights.
 */
export function versionName(
  alias: string,
  dataset: { trainSha: string; valSha: string },
  jobIdentity: unknown,
): string {
  return `${alias}@${shortSha(hashOf([dataset.trainSha, dataset.valSha]), 8)}-${shortSha(hashOf(jobIdentity), 8)}`;
}
