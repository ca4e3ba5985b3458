import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const TRACE_FILE = /\.(jsonl|json)$/i;

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
    throw new Error(code === 'ENOENT' ? `${path}: no such trace file or directory` : `${path}: ${(err as Error).message}`);
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && TRACE_FILE.test(e.name)).map((e) => e.name).sort();
  if (files.length === 0) throw new Error(`${path}: the directory holds no *.jsonl or *.json trace files`);
  return files.map((f) => join(path, f));
}
