import {
  DeleteObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3';
import { s3ClientFor } from '../artifacts/s3-backend.js';
import { MANIFEST_PATH } from './manifest.js';
import type { Publication, PublishFile } from './types.js';

export interface S3PublishOptions {
  /** S3-compatible endpoint (MinIO, R2, moto); falls back to FLYWHEEL_S3_ENDPOINT, as the artifact store does. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing; defaults to true when an endpoint is set. */
  forcePathStyle?: boolean;
}

export interface S3PublishResult {
  /** s3://bucket/prefix/<name>/ */
  uri: string;
  uploaded: string[];
  unchanged: string[];
  manifestWritten: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  jsonl: 'application/jsonl',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

function contentType(path: string): string {
  return CONTENT_TYPES[/\.([a-z]+)$/.exec(path)?.[1] ?? ''] ?? 'application/octet-stream';
}

function notFound(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey')
  );
}

/**
 * Upload a publication to s3://bucket/prefix/<name>/. Each object carries its sha256 as metadata, so a file
 * already there with the same hash is skipped: publishing the same content again uploads nothing. manifest.json
 * goes last (and a stale one is removed first when files change), so a reader that finds it finds every file
 * it lists. Credentials come from the AWS environment/profile chain, never from config or argv.
 */
export async function publishToS3(
  pub: Publication,
  target: { bucket: string; prefix: string },
  opts: S3PublishOptions = {},
): Promise<S3PublishResult> {
  const client = s3ClientFor(opts);
  const base = target.prefix ? `${target.prefix}/${pub.name}` : pub.name;
  const Bucket = target.bucket;
  const key = (f: PublishFile) => `${base}/${f.path}`;
  try {
    const manifest = pub.files.find((f) => f.path === MANIFEST_PATH);
    if (!manifest) throw new Error('publication has no manifest.json');
    const files = pub.files.filter((f) => f !== manifest);
    const stored = async (f: PublishFile): Promise<string | undefined> => {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket, Key: key(f) }))).Metadata?.sha256;
      } catch (err) {
        if (notFound(err)) return undefined;
        throw err;
      }
    };
    const changed: PublishFile[] = [];
    const unchanged: string[] = [];
    for (const f of files) (await stored(f)) === f.sha256 ? unchanged.push(f.path) : changed.push(f);
    const manifestSame = (await stored(manifest)) === manifest.sha256;
    // While files change, no manifest may vouch for them: an older one (or this one, when files it lists went
    // missing) is removed first and written again at the end.
    if (changed.length) await client.send(new DeleteObjectCommand({ Bucket, Key: key(manifest) }));
    for (const f of changed) await put(client, Bucket, key(f), f);
    const writeManifest = changed.length > 0 || !manifestSame;
    if (writeManifest) await put(client, Bucket, key(manifest), manifest);
    return {
      uri: `s3://${Bucket}/${base}/`,
      uploaded: changed.map((f) => f.path),
      unchanged,
      manifestWritten: writeManifest,
    };
  } finally {
    client.destroy();
  }
}

async function put(client: S3Client, Bucket: string, Key: string, f: PublishFile): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket,
      Key,
      Body: f.bytes,
      ContentType: contentType(f.path),
      Metadata: { sha256: f.sha256 },
    }),
  );
}
