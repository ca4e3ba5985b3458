import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type _Object,
} from '@aws-sdk/client-s3';
import { objectKey, type StorageBackend, type StoredObject } from './backend.js';
import { ArtifactError } from './types.js';

export interface S3Options {
  /** Custom endpoint for S3-compatible stores (MinIO, Ceph, R2, moto). Falls back to FLYWHEEL_S3_ENDPOINT. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing; most S3-compatible servers need it. Defaults to true when an endpoint is set. */
  forcePathStyle?: boolean;
  /** Keys per list request (S3's default is 1000); small values let tests cover pagination. */
  listPageSize?: number;
}

/**
 * A client for S3 or an S3-compatible store, the same way everywhere (artifacts, trace sources, publishing):
 * endpoint from the option or FLYWHEEL_S3_ENDPOINT, path-style addressing with a custom endpoint, region
 * from the option or AWS_REGION, credentials from the standard AWS environment/profile chain.
 */
export function s3ClientFor(opts: Pick<S3Options, 'endpoint' | 'region' | 'forcePathStyle'> = {}): S3Client {
  const endpoint = opts.endpoint ?? process.env.FLYWHEEL_S3_ENDPOINT;
  return new S3Client({
    region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: opts.forcePathStyle ?? Boolean(endpoint),
  });
}

/**
 * Artifacts in S3 or any S3-compatible store. Each object is one PUT, so a reader never sees a partial
 * object. Credentials come from the standard AWS environment/profile chain, never from config.
 */
export class S3Backend implements StorageBackend {
  readonly rootUri: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly client: S3Client;
  private readonly pageSize: number | undefined;

  constructor(uri: string, opts: S3Options = {}) {
    const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
    if (!m) throw new ArtifactError(`not an s3:// URI: ${uri}`);
    this.bucket = m[1]!;
    this.prefix = (m[2] ?? '').replace(/\/+$/, '');
    this.rootUri = `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
    this.pageSize = opts.listPageSize;
    this.client = s3ClientFor(opts);
  }

  private key(k: string): string {
    if (k.split('/').some((part) => part === '..')) throw new ArtifactError(`key "${k}" escapes the store root`);
    return this.prefix ? `${this.prefix}/${k}` : k;
  }

  objectUri(sha: string): string {
    return `s3://${this.bucket}/${this.key(objectKey(sha))}`;
  }

  async stagingPath(): Promise<string> {
    const dir = join(tmpdir(), 'flywheel-staging');
    await mkdir(dir, { recursive: true });
    return join(dir, randomUUID());
  }

  async hasObject(sha: string): Promise<boolean> {
    return this.exists(this.key(objectKey(sha)));
  }

  private async exists(Key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async commitObject(sha: string, stagedPath: string): Promise<void> {
    try {
      const Key = this.key(objectKey(sha));
      if (await this.exists(Key)) return;
      const { size } = await stat(stagedPath);
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key, Body: createReadStream(stagedPath), ContentLength: size }),
      );
    } finally {
      await rm(stagedPath, { force: true });
    }
  }

  async readObject(sha: string): Promise<Buffer> {
    const body = await this.get(this.key(objectKey(sha)));
    if (body === undefined) throw new ArtifactError(`artifact ${sha} is not in ${this.rootUri}`);
    return body;
  }

  private async get(Key: string): Promise<Buffer | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async deleteObject(sha: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(objectKey(sha)) }));
  }

  async putDoc(key: string, body: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: body, ContentType: 'application/json' }),
    );
  }

  async getDoc(key: string): Promise<string | undefined> {
    return (await this.get(this.key(key)))?.toString('utf8');
  }

  async listDocs(prefix: string): Promise<string[]> {
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    return (await this.list(prefix)).map((o) => o.Key!.slice(strip)).sort();
  }

  async listObjects(): Promise<StoredObject[]> {
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    const out: StoredObject[] = [];
    for (const o of await this.list('objects/')) {
      const key = o.Key!.slice(strip);
      const sha = /\/([0-9a-f]{64})$/.exec(key)?.[1];
      if (sha && key === objectKey(sha))
        out.push({ sha256: sha, bytes: o.Size ?? 0, modifiedAt: (o.LastModified ?? new Date()).toISOString() }); // no time: count it as fresh
    }
    return out;
  }

  /** Every key under a prefix, following ListObjectsV2 pages (1000 keys each, or pageSize). */
  private async list(prefix: string): Promise<_Object[]> {
    const out: _Object[] = [];
    let ContinuationToken: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.key(prefix),
          ContinuationToken,
          ...(this.pageSize ? { MaxKeys: this.pageSize } : {}),
        }),
      );
      for (const o of res.Contents ?? []) if (o.Key) out.push(o);
      ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out;
  }

  async deleteDoc(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
  }

  destroy(): void {
    this.client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  if (err instanceof S3ServiceException) {
    return err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404;
  }
  return false;
}
