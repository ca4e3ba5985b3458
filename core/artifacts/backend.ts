/**
 * What a storage backend must do. Objects are immutable and keyed by sha256; docs are small mutable JSON
 * files (manifests, memo entries, named pointers). Everything else lives in ArtifactStore.
 */
export interface StorageBackend {
  /** Root URI of the store, e.g. file:///abs/path or s3://bucket/prefix. */
  readonly rootUri: string;
  objectUri(sha: string): string;
  /** A local path for staging a new object before commit (same filesystem as the store where possible). */
  stagingPath(): Promise<string>;
  hasObject(sha: string): Promise<boolean>;
  /** Move a fully written, already hashed staging file into place atomically. No-op if the object exists. */
  commitObject(sha: string, stagedPath: string): Promise<void>;
  readObject(sha: string): Promise<Buffer>;
  deleteObject(sha: string): Promise<void>;
  putDoc(key: string, body: string): Promise<void>;
  getDoc(key: string): Promise<string | undefined>;
  /** Keys of docs under a prefix, e.g. "manifests/". */
  listDocs(prefix: string): Promise<string[]>;
  deleteDoc(key: string): Promise<void>;
}

export function objectKey(sha: string): string {
  return `objects/${sha.slice(0, 2)}/${sha}`;
}
