import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Options } from '../artifacts/index.js';
import { s3TraceFiles } from './s3-source.js';
import { TRACE_FILE_RE } from './types.js';

/** One trace file of a source: its name for rejections and lineage, and its bytes. */
export interface TraceFile {
  path: string;
  read(): Promise<Buffer>;
}

/**
 * The trace files a `traces:` source names: the file itself, or every *.jsonl / *.json file directly inside a
 * directory, sorted by name (so a gateway's daily logs are read in day order and the list is stable).
 */
export async function traceFilesAt(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT' ? `${path}: no such trace file or directory` : `${path}: ${(err as Error).message}`,
    );
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && TRACE_FILE_RE.test(e.name))
    .map((e) => e.name)
    .sort();
  if (files.length === 0) throw new Error(`${path}: the directory holds no *.jsonl or *.json trace files`);
  return files.map((f) => join(path, f));
}

/** Local files and directories, or s3:// objects and prefixes (with the artifact store's S3 settings). */
export async function traceFiles(source: string, s3: S3Options = {}): Promise<TraceFile[]> {
  if (source.startsWith('s3://')) return (await s3TraceFiles(source, s3)).map((f) => ({ path: f.uri, read: f.read }));
  return (await traceFilesAt(source)).map((path) => ({
    path,
    read: async () => {
      try {
        return await readFile(path);
      } catch (err) {
        throw new Error(`${path}: ${(err as Error).message}`);
      }
    },
  }));
}
