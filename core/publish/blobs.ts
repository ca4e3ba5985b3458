import type { ArtifactStore, TreeEntry } from '../artifacts/index.js';
import { ArtifactError } from '../artifacts/index.js';
import { sha256Hex } from '../hash.js';

/**
 * One file of a directory artifact, hash-verified. Files inside a tree are blobs without manifests, so
 * store.read (which resolves through a manifest) cannot fetch them.
 */
export async function readTreeFile(store: ArtifactStore, entry: TreeEntry): Promise<Buffer> {
  const data = await store.backend.readObject(entry.sha256);
  if (sha256Hex(data) !== entry.sha256) throw new ArtifactError(`file ${entry.path} of a directory artifact is corrupt`);
  return data;
}

/** A JSON file of a tree by path, or undefined when the tree has no such file or it does not parse. */
export async function readTreeJson<T>(store: ArtifactStore, files: TreeEntry[], path: string): Promise<T | undefined> {
  const entry = files.find((f) => f.path === path);
  if (!entry) return undefined;
  try {
    return JSON.parse((await readTreeFile(store, entry)).toString('utf8')) as T;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
