import { FileBackend } from './file-backend.js';
import { S3Backend, type S3Options } from './s3-backend.js';
import { ArtifactStore } from './store.js';
import { ArtifactError } from './types.js';
import { DEFAULT_STORE_URI } from '../defaults.js';

export * from './types.js';
export { ArtifactStore } from './store.js';
export type { S3Options } from './s3-backend.js';

export { DEFAULT_STORE_URI } from '../defaults.js';

/** Open a store from a URI: file:PATH, file:///abs/path, a bare path, or s3://bucket/prefix. */
export function openStore(uri: string = DEFAULT_STORE_URI, s3: S3Options = {}): ArtifactStore {
  if (uri.startsWith('s3://')) return new ArtifactStore(new S3Backend(uri, s3));
  if (uri.startsWith('file:')) return new ArtifactStore(FileBackend.fromUri(uri));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri))
    throw new ArtifactError(`unsupported artifact store URI: ${uri} (use file: or s3://)`);
  return new ArtifactStore(new FileBackend(uri));
}
