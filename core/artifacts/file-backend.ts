import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { objectKey, type StorageBackend, type StoredObject } from './backend.js';
import { ArtifactError } from './types.js';

/** Artifacts on local disk. Writes go to <root>/tmp first and are renamed into place (atomic on POSIX). */
export class FileBackend implements StorageBackend {
  readonly rootUri: string;
  private readonly root: string;

  constructor(rootPath: string) {
    this.root = resolve(rootPath);
    this.rootUri = pathToFileURL(this.root).href;
  }

  static fromUri(uri: string): FileBackend {
    // file://relative/path is not a valid URL form; accept "file:" + relative path for config convenience.
    if (uri.startsWith('file://')) {
      const rest = uri.slice('file://'.length);
      return new FileBackend(rest.startsWith('/') ? fileURLToPath(uri) : rest);
    }
    return new FileBackend(uri.slice('file:'.length));
  }

  objectUri(sha: string): string {
    return pathToFileURL(this.path(objectKey(sha))).href;
  }

  /** Resolve a key inside the root, refusing anything that would land outside it. */
  private path(key: string): string {
    const p = resolve(this.root, key);
    if (p !== this.root && !p.startsWith(this.root + sep)) {
      throw new ArtifactError(`path "${key}" escapes the artifact store root ${this.root}`);
    }
    return p;
  }

  async stagingPath(): Promise<string> {
    const dir = this.path('tmp');
    await mkdir(dir, { recursive: true });
    return join(dir, randomUUID());
  }

  async hasObject(sha: string): Promise<boolean> {
    return exists(this.path(objectKey(sha)));
  }

  async commitObject(sha: string, stagedPath: string): Promise<void> {
    const dest = this.path(objectKey(sha));
    if (await exists(dest)) {
      await rm(stagedPath, { force: true });
      return;
    }
    await mkdir(join(dest, '..'), { recursive: true });
    await rename(stagedPath, dest);
  }

  async readObject(sha: string): Promise<Buffer> {
    try {
      return await readFile(this.path(objectKey(sha)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ArtifactError(`artifact ${sha} is not in ${this.rootUri}`);
      }
      throw err;
    }
  }

  async deleteObject(sha: string): Promise<void> {
    await rm(this.path(objectKey(sha)), { force: true });
  }

  async listObjects(): Promise<StoredObject[]> {
    const out: StoredObject[] = [];
    for (const key of await this.listDocs('objects/')) {
      const sha = /\/([0-9a-f]{64})$/.exec(key)?.[1];
      if (!sha || key !== objectKey(sha)) continue;
      try {
        const s = await stat(this.path(key));
        out.push({ sha256: sha, bytes: s.size, modifiedAt: s.mtime.toISOString() });
      } catch (err) {
        // Deleted between listing and stat: it is gone either way.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return out;
  }

  async putDoc(key: string, body: string): Promise<void> {
    const dest = this.path(key);
    await mkdir(join(dest, '..'), { recursive: true });
    const tmp = await this.stagingPath();
    await writeFile(tmp, body);
    await rename(tmp, dest);
  }

  async getDoc(key: string): Promise<string | undefined> {
    try {
      return await readFile(this.path(key), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async listDocs(prefix: string): Promise<string[]> {
    const base = this.path(prefix);
    const out: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const e of entries) {
        if (e.isDirectory()) await walk(join(dir, e.name), `${rel}${e.name}/`);
        else if (e.isFile()) out.push(`${prefix}${rel}${e.name}`);
      }
    };
    await walk(base, '');
    return out.sort();
  }

  async deleteDoc(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
