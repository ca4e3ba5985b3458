import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { canonicalJson, SHA256_RE, sha256Hex } from '../hash.js';
import type { StorageBackend } from './backend.js';
import {
  ArtifactError,
  TREE_MEDIA_TYPE,
  type ArtifactRef,
  type Manifest,
  type MediaType,
  type MemoEntry,
  type PutOptions,
  type TreeEntry,
} from './types.js';

const NAME_RE = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/**
 * Content-addressed artifact store over a backend. Objects are named by their sha256, so writing the same
 * content twice is a no-op and every read is verified against the hash in the ref.
 */
export class ArtifactStore {
  constructor(readonly backend: StorageBackend) {}

  get rootUri(): string {
    return this.backend.rootUri;
  }

  /** Write rows as JSONL (one canonical JSON document per line), streamed through a staging file. */
  async putJsonl(
    kind: string,
    rows: Iterable<unknown> | AsyncIterable<unknown>,
    opts: PutOptions = {},
  ): Promise<ArtifactRef> {
    const staged = await this.backend.stagingPath();
    const hash = createHash('sha256');
    const out = createWriteStream(staged);
    // A write error (disk full) must reject this call, not crash the process or leave a drain wait hanging.
    let failed: Error | undefined;
    const failure = new Promise<never>((_, reject) => out.once('error', (err) => reject((failed = err))));
    failure.catch(() => undefined);
    let count = 0;
    let bytes = 0;
    // Lines are batched into ~1 MiB writes: one stream write per row is the slow part for big datasets.
    let batch: string[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const chunk = batch.join('');
      batch = [];
      batchBytes = 0;
      hash.update(chunk);
      if (failed) throw failed;
      if (!out.write(chunk)) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failure]);
    };
    try {
      for await (const row of rows) {
        const line = `${canonicalJson(row)}\n`;
        const n = Buffer.byteLength(line);
        bytes += n;
        batchBytes += n;
        count += 1;
        batch.push(line);
        if (batchBytes >= 1 << 20) await flush();
      }
      await flush();
      out.end();
      await Promise.race([finished(out), failure]);
    } catch (err) {
      out.destroy();
      await rm(staged, { force: true });
      throw err;
    }
    return this.commit(kind, 'application/jsonl', hash.digest('hex'), staged, count, bytes, opts);
  }

  /** Write one JSON document (canonical form). */
  async putJson(kind: string, value: unknown, opts: PutOptions = {}): Promise<ArtifactRef> {
    return this.putBytes(kind, Buffer.from(canonicalJson(value)), 'application/json', 1, opts);
  }

  async putBytes(
    kind: string,
    data: Buffer,
    mediaType: MediaType,
    count: number,
    opts: PutOptions = {},
  ): Promise<ArtifactRef> {
    const staged = await this.backend.stagingPath();
    await writeFile(staged, data);
    return this.commit(kind, mediaType, sha256Hex(data), staged, count, data.length, opts);
  }

  /** Store every regular file under a directory; the artifact is the tree listing. Symlinks are refused. */
  async putDir(kind: string, dir: string, opts: PutOptions = {}): Promise<ArtifactRef> {
    const root = resolve(dir);
    const entries: TreeEntry[] = [];
    for (const file of await walkFiles(root)) {
      const data = await readFile(file);
      const sha = sha256Hex(data);
      const staged = await this.backend.stagingPath();
      await writeFile(staged, data);
      await this.backend.commitObject(sha, staged);
      entries.push({ path: relative(root, file).split(sep).join('/'), sha256: sha, bytes: data.length });
    }
    entries.sort((a, b) => (a.path < b.path ? -1 : 1));
    const tree = Buffer.from(canonicalJson({ files: entries }));
    const total = entries.reduce((n, e) => n + e.bytes, 0);
    const staged = await this.backend.stagingPath();
    await writeFile(staged, tree);
    const ref = await this.commit(kind, TREE_MEDIA_TYPE, sha256Hex(tree), staged, entries.length, total, opts);
    return ref;
  }

  private async commit(
    kind: string,
    mediaType: MediaType,
    sha: string,
    staged: string,
    count: number,
    bytes: number,
    opts: PutOptions,
  ): Promise<ArtifactRef> {
    await this.backend.commitObject(sha, staged);
    // The manifest goes last: an artifact with a manifest is complete. First writer wins.
    const key = manifestKey(sha);
    if ((await this.backend.getDoc(key)) === undefined) {
      const manifest: Manifest = {
        sha256: sha,
        kind,
        mediaType,
        count,
        bytes,
        parents: (opts.parents ?? []).map((p) => (typeof p === 'string' ? p : p.sha256)),
        stats: opts.stats ?? {},
        ...(opts.producer ? { producer: opts.producer } : {}),
        createdAt: new Date().toISOString(),
      };
      await this.backend.putDoc(key, JSON.stringify(manifest, null, 2));
    }
    return { uri: this.backend.objectUri(sha), sha256: sha, kind, count, bytes };
  }

  /** Check that a ref names an object of this store; refuses anything that points elsewhere. */
  checkRef(ref: ArtifactRef): void {
    if (!SHA256_RE.test(ref.sha256))
      throw new ArtifactError(`invalid sha256 in artifact ref: ${JSON.stringify(ref.sha256)}`);
    const expected = this.backend.objectUri(ref.sha256);
    if (normalizeUri(ref.uri) !== normalizeUri(expected)) {
      throw new ArtifactError(`artifact ref ${ref.uri} is outside the store ${this.rootUri}`);
    }
  }

  /** Accept a ref, a full sha256, or a unique prefix of one (at least 8 hex digits). */
  async resolve(refOrSha: ArtifactRef | string): Promise<ArtifactRef> {
    if (typeof refOrSha !== 'string') {
      this.checkRef(refOrSha);
      return refOrSha;
    }
    const sha = await this.expandSha(refOrSha);
    const m = await this.manifest(sha);
    return { uri: this.backend.objectUri(sha), sha256: sha, kind: m.kind, count: m.count, bytes: m.bytes };
  }

  private async expandSha(s: string): Promise<string> {
    const fromUri = /([0-9a-f]{64})$/.exec(s);
    if (fromUri) return fromUri[1]!;
    if (!/^[0-9a-f]{8,63}$/.test(s)) throw new ArtifactError(`not a sha256 or artifact URI: ${s}`);
    const matches = (await this.listShas()).filter((sha) => sha.startsWith(s));
    if (matches.length === 0) throw new ArtifactError(`no artifact matches ${s} in ${this.rootUri}`);
    if (matches.length > 1) throw new ArtifactError(`${s} is ambiguous: ${matches.length} artifacts match`);
    return matches[0]!;
  }

  /** Read an object's bytes, verifying its sha256. */
  async read(refOrSha: ArtifactRef | string): Promise<Buffer> {
    const ref = await this.resolve(refOrSha);
    const data = await this.backend.readObject(ref.sha256);
    const actual = sha256Hex(data);
    if (actual !== ref.sha256) {
      throw new ArtifactError(`artifact ${ref.uri} is corrupt: content hashes to ${actual}`);
    }
    return data;
  }

  async readJson<T = unknown>(ref: ArtifactRef | string): Promise<T> {
    return JSON.parse((await this.read(ref)).toString('utf8')) as T;
  }

  async readJsonl<T = unknown>(ref: ArtifactRef | string): Promise<T[]> {
    const text = (await this.read(ref)).toString('utf8');
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as T);
  }

  async readTree(ref: ArtifactRef | string): Promise<TreeEntry[]> {
    const m = await this.manifest((await this.resolve(ref)).sha256);
    if (m.mediaType !== TREE_MEDIA_TYPE) throw new ArtifactError(`artifact ${m.sha256} is not a directory artifact`);
    return (await this.readJson<{ files: TreeEntry[] }>(ref)).files;
  }

  /** One file of a directory artifact, hash-verified (tree files are blobs without manifests of their own). */
  async readTreeFile(entry: TreeEntry): Promise<Buffer> {
    const data = await this.backend.readObject(entry.sha256);
    if (sha256Hex(data) !== entry.sha256) throw new ArtifactError(`file ${entry.path} in artifact is corrupt`);
    return data;
  }

  /** Write a directory artifact to dest (which must not exist): staged next to it, then renamed. */
  async materializeDir(ref: ArtifactRef | string, dest: string): Promise<void> {
    const files = await this.readTree(ref);
    const target = resolve(dest);
    const staging = `${target}.partial-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    try {
      for (const f of files) {
        const normalized = posix.normalize(f.path);
        if (normalized.startsWith('../') || normalized === '..' || posix.isAbsolute(normalized)) {
          throw new ArtifactError(`directory artifact entry escapes its root: ${f.path}`);
        }
        const data = await this.readTreeFile(f);
        const out = join(staging, ...normalized.split('/'));
        await mkdir(dirname(out), { recursive: true });
        await writeFile(out, data);
      }
      await mkdir(dirname(target), { recursive: true });
      await rename(staging, target);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  async manifest(sha: string): Promise<Manifest> {
    const doc = await this.backend.getDoc(manifestKey(sha));
    if (doc === undefined) throw new ArtifactError(`no artifact ${sha} in ${this.rootUri}`);
    return JSON.parse(doc) as Manifest;
  }

  async listShas(): Promise<string[]> {
    return (await this.backend.listDocs('manifests/'))
      .map((k) => /([0-9a-f]{64})\.json$/.exec(k)?.[1])
      .filter((s): s is string => Boolean(s));
  }

  /** All manifests, newest first. */
  async list(): Promise<Manifest[]> {
    const manifests = await Promise.all((await this.listShas()).map((sha) => this.manifest(sha)));
    return manifests.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  }

  // ---- memoization: stage key -> outputs ----

  async getMemo(key: string): Promise<MemoEntry | undefined> {
    const doc = await this.backend.getDoc(`memo/${checkName(key)}.json`);
    if (doc === undefined) return undefined;
    const entry = JSON.parse(doc) as MemoEntry;
    // A memo whose outputs were garbage-collected is a miss, not an error.
    for (const ref of Object.values(entry.outputs)) {
      if (!(await this.backend.hasObject(ref.sha256))) return undefined;
    }
    return entry;
  }

  async putMemo(entry: MemoEntry): Promise<void> {
    await this.backend.putDoc(`memo/${checkName(entry.key)}.json`, JSON.stringify(entry, null, 2));
  }

  // ---- named pointers: small mutable JSON documents such as catalog history ----

  async getPointer<T>(name: string): Promise<T | undefined> {
    const doc = await this.backend.getDoc(`refs/${checkName(name)}.json`);
    return doc === undefined ? undefined : (JSON.parse(doc) as T);
  }

  async putPointer(name: string, value: unknown): Promise<void> {
    await this.backend.putDoc(`refs/${checkName(name)}.json`, JSON.stringify(value, null, 2));
  }
}

function manifestKey(sha: string): string {
  if (!SHA256_RE.test(sha)) throw new ArtifactError(`invalid sha256: ${JSON.stringify(sha)}`);
  return `manifests/${sha}.json`;
}

function checkName(name: string): string {
  if (!NAME_RE.test(name) || name.split('/').includes('..')) {
    throw new ArtifactError(`invalid store key "${name}": use letters, digits, . _ - and / only`);
  }
  return name;
}

function normalizeUri(uri: string): string {
  if (uri.startsWith('file:')) {
    try {
      return resolve(fileURLToPath(uri));
    } catch {
      return uri;
    }
  }
  return uri;
}

async function walkFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) throw new ArtifactError(`refusing symlink in directory artifact: ${p}`);
    if (e.isDirectory()) out.push(...(await walkFiles(p)));
    else if (e.isFile()) out.push(p);
    else if (!(await lstat(p)).isFile()) throw new ArtifactError(`not a regular file: ${p}`);
  }
  return out;
}
