import type { ArtifactStore, TreeEntry } from '../artifacts/index.js';

/** A JSON file of a tree by path, or undefined when the tree has no such file or it does not parse. */
export async function readTreeJson<T>(store: ArtifactStore, files: TreeEntry[], path: string): Promise<T | undefined> {
  const entry = files.find((f) => f.path === path);
  if (!entry) return undefined;
  try {
    return JSON.parse((await store.readTreeFile(entry)).toString('utf8')) as T;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
