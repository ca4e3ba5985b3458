/**
 * A real S3-compatible server process for tests: moto's server (pip package moto[server], installed in .venv
 * by the Makefile) on a free loopback port. It stands in for AWS S3, which cannot be reached from here; the
 * client code under test is the production @aws-sdk/client-s3 path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { REPO } from './fixtures.js';

export interface Moto {
  endpoint: string;
  /** A client on the server, for the test's own setup and checks. */
  client: S3Client;
  stop(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Start moto with dummy credentials in this process's environment and create `buckets` once it answers. */
export async function startMoto(buckets: string[]): Promise<Moto> {
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const proc: ChildProcess = spawn(join(REPO, '.venv', 'bin', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: 'ignore',
  });
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
  for (const [i, bucket] of buckets.entries()) {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
        break;
      } catch (err) {
        if (i > 0 || attempt > 100) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  return {
    endpoint,
    client,
    stop: () => {
      client.destroy();
      proc.kill('SIGTERM');
    },
  };
}
