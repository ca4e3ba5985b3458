import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { S3Options } from '../artifacts/index.js';
import { s3ClientFor } from '../artifacts/s3-backend.js';
import { TRACE_FILE_RE } from './types.js';
import { InputError, TransientError } from '../errors.js';

export interface RemoteTraceFile {
  /** s3://bucket/key: what rejections and lineage name. */
  uri: string;
  read(): Promise<Buffer>;
}

/** A store that did not answer (network, 5xx, throttling): worth a retry, unlike a missing bucket or a denied key. */
export class TraceSourceUnavailable extends TransientError {
  override name = 'TraceSourceUnavailable';
}

/** 4xx is the source's problem (no bucket, access denied), except 429 and, for a listed object, a 404: it went
 * away between the listing and the read (log rotation), and a retry lists again. */
function explain(uri: string, what: string, err: unknown, listed = false): Error {
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const message = `${uri}: ${what}: ${(err as Error).name} ${(err as Error).message}`;
  const transient = status === undefined || status >= 500 || status === 429 || (listed && status === 404);
  return transient ? new TraceSourceUnavailable(message) : new InputError(message);
}

/**
 * The trace objects an s3:// source names: one object (a key ending in .jsonl / .json), or every such object
 * directly under a prefix (not in "subfolders"), sorted by key so the order is stable across runs.
 */
export async function s3TraceFiles(uri: string, opts: S3Options = {}): Promise<RemoteTraceFile[]> {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!m) throw new InputError(`${uri}: not an s3://bucket/prefix URI`);
  const bucket = m[1]!;
  const key = m[2] ?? '';
  const client = s3ClientFor(opts);
  const file = (k: string, listed: boolean): RemoteTraceFile => ({
    uri: `s3://${bucket}/${k}`,
    read: async () => {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: k }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (err) {
        throw explain(`s3://${bucket}/${k}`, 'cannot read trace object', err, listed);
      }
    },
  });
  if (TRACE_FILE_RE.test(key)) return [file(key, false)];
  const prefix = key === '' || key.endsWith('/') ? key : `${key}/`;
  const keys: string[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key && TRACE_FILE_RE.test(o.Key)) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  } catch (err) {
    throw explain(uri, 'cannot list trace objects', err);
  }
  if (keys.length === 0) throw new Error(`${uri}: no *.jsonl or *.json trace objects under s3://${bucket}/${prefix}`);
  return keys.sort().map((k) => file(k, true));
}
