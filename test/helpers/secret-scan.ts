/**
 * Looks for secret values where they must not be: in text and files, as written or base64-encoded at any
 * byte alignment (Temporal payloads, basic-auth headers and binary stores carry base64).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretHit {
  /** The marker's name (e.g. "teacher key"), never its value. */
  secret: string;
  where: string;
  encoding: 'plain' | 'base64';
}

/** The marker as bytes, and its base64 forms at the three byte alignments (only the characters every encoding shares). */
function needles(value: string): Array<{ encoding: SecretHit['encoding']; bytes: Buffer }> {
  const out: Array<{ encoding: SecretHit['encoding']; bytes: Buffer }> = [
    { encoding: 'plain', bytes: Buffer.from(value) },
  ];
  for (const pad of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(pad), Buffer.from(value)]);
    const b64 = padded.toString('base64');
    const start = pad === 0 ? 0 : pad === 1 ? 2 : 3; // characters that mix in the padding bytes
    const end = Math.floor(padded.length / 3) * 4; // the last group mixes in what follows the marker
    out.push({ encoding: 'base64', bytes: Buffer.from(b64.slice(start, end)) });
  }
  return out;
}

/** Every marker found in `content`, labelled `where`. */
export function scanContent(where: string, content: Buffer | string, secrets: Record<string, string>): SecretHit[] {
  const buf = typeof content === 'string' ? Buffer.from(content) : content;
  const hits: SecretHit[] = [];
  for (const [secret, value] of Object.entries(secrets)) {
    const found = needles(value).find((n) => buf.includes(n.bytes));
    if (found) hits.push({ secret, where, encoding: found.encoding });
  }
  return hits;
}

/** Every regular file under `dir` (symlinks not followed), relative paths sorted. */
export function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : e.isFile() ? [join(prefix, e.name)] : [],
    )
    .sort();
}

/** Every marker found in any file under `dir`. */
export function scanTree(dir: string, secrets: Record<string, string>): SecretHit[] {
  return filesUnder(dir).flatMap((f) => scanContent(join(dir, f), readFileSync(join(dir, f)), secrets));
}
