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
  /** Every stored object, manifest or not (directory-artifact blobs have none); for garbage collection. */
  listObjects(): Promise<StoredObject[]>;
  putDoc(key: string, body: string): Promise<void>;
  getDoc(key: string): Promise<string | undefined>;
  /** Keys of docs under a prefix, e.g. "manifests/". */
  listDocs(prefix: string): Promise<string[]>;
  deleteDoc(key: string): Promise<void>;
}

/** An object as listed: its age lets gc spare objects a running stage wrote but has not yet recorded. */
export interface StoredObject {
  sha256: string;
  bytes: number;
  /** ISO time the object was last written. */
  modifiedAt: string;
}

export function objectKey(sha: string): string {
  return `objects/${sha.slice(0, 2)}/${sha}`;
}
