import { sha256Hex } from '../hash.js';
import { InputError } from '../errors.js';

/** One file of a publication: its path inside the repo or prefix, its bytes and their sha256. */
export interface PublishFile {
  path: string;
  bytes: Buffer;
  sha256: string;
}

/**
 * What gets published, whatever the destination: the files (card first, manifest.json last) and the names a
 * destination needs. Everything in it is derived from artifact content, so publishing twice gives the same bytes.
 */
export interface Publication {
  kind: 'dataset' | 'adapter';
  /** ds-<datasetHash12> or the adapter version adp-…: the folder under an s3:// prefix. */
  name: string;
  /** The commit title on the Hub. */
  title: string;
  /** A longer commit description: every hash the card names. */
  description: string;
  /** README.md: the dataset card or the model card. */
  card: string;
  files: PublishFile[];
  /** sha256 over the dataset's artifact hashes (see datasetHash). */
  datasetHash: string;
  /** Things a person should know: missing eval report, a split not found, … */
  notes: string[];
}

/** Bad input (unknown version, wrong kind of artifact): retrying cannot help; the CLI exits 2. */
export class PublishInputError extends InputError {
  override name = 'PublishInputError';
}

/** A file at a relative path inside the publication; anything that could escape it (.., /abs, backslashes) is refused. */
export function publishFile(path: string, bytes: Buffer | string): PublishFile {
  if (
    !path ||
    path.startsWith('/') ||
    path.includes('\\') ||
    path.split('/').some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new PublishInputError(`refusing to publish a file at ${JSON.stringify(path)}: not a plain relative path`);
  }
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return { path, bytes: data, sha256: sha256Hex(data) };
}
