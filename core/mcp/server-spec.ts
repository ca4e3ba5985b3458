import type { ServerConfig } from '../config/schema.js';
import { InputError } from '../errors.js';

/** Thrown for a server spec the user typed wrong. */
export class ServerSpecError extends InputError {
  override name = 'ServerSpecError';
}

/**
 * Parse a command-line server SPEC: `stdio:<command line>`, an `http(s)://` URL or `tools:<file>` (tool
 * definitions from a file, core/catalog/tools-file.ts).
 * The command line is split like a POSIX shell would (quotes and backslashes), without expansion.
 */
export function parseServerSpec(spec: string, name = 'server', timeoutMs = 30_000): ServerConfig {
  if (spec.startsWith('stdio:')) {
    const [command, ...args] = splitCommandLine(spec.slice('stdio:'.length));
    if (!command) throw new ServerSpecError(`server spec "${spec}" has no command after "stdio:"`);
    return { name, stdio: { command, args, env: {} }, timeoutMs };
  }
  if (spec.startsWith('tools:')) {
    const file = spec.slice('tools:'.length);
    if (!file) throw new ServerSpecError(`server spec "${spec}" has no file after "tools:"`);
    return { name, tools: file, timeoutMs };
  }
  if (/^https?:\/\//.test(spec)) {
    try {
      new URL(spec);
    } catch {
      throw new ServerSpecError(`server spec "${spec}" is not a valid URL`);
    }
    return { name, http: { url: spec, headers: {} }, timeoutMs };
  }
  throw new ServerSpecError(
    `server spec "${spec}" must be stdio:<command line>, an http(s):// URL or tools:<file of tool definitions>`,
  );
}

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new ServerSpecError(`unterminated ${quote} quote in command line: ${line}`);
  if (inWord) words.push(cur);
  return words;
}

/** A one-line description of where a server lives, for messages. */
export function describeServer(server: ServerConfig): string {
  if (server.stdio) return `stdio: ${[server.stdio.command, ...server.stdio.args].join(' ')}`;
  if (server.tools) return `tools file ${server.tools}`;
  return server.http!.url;
}
