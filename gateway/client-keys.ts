/**
 * Who may call the gateway: named client keys. A key file holds `name:sha256(key)` lines (the keys
 * themselves are never stored; `flywheel gateway keys create NAME` prints a new key once), and for containers
 * FLYWHEEL_GATEWAY_KEYS holds `name=key` pairs separated by commas. Both may be used at once. The file is re-read
 * when it changes, so a key is added or revoked without a restart: two keys valid at once is a rotation.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../core/errors.js';

export const GATEWAY_KEYS_ENV = 'FLYWHEEL_GATEWAY_KEYS';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const HASH = /^[0-9a-f]{64}$/;

export class ClientKeysError extends InputError {
  override name = 'ClientKeysError';
}

export interface ClientKeys {
  /**
   * Whether requests need a key: decided once, at start (a key file is named, or the environment holds keys).
   * Emptying the file later revokes every key; it never opens the gateway.
   */
  readonly required: boolean;
  /** The name of the key in `Authorization: Bearer <key>`, or null when it is missing or unknown. */
  check(authorization: string | undefined): string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

function parseFile(path: string): Array<{ name: string; hash: Buffer }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const text = line.trim();
      if (!text || text.startsWith('#')) return [];
      const [name, hash, ...rest] = text.split(':');
      if (rest.length || !name || !NAME.test(name) || !hash || !HASH.test(hash))
        throw new ClientKeysError(
          `${path}:${i + 1}: expected NAME:SHA256 (a name of letters, digits, . _ -, and the key's sha256 in hex)`,
        );
      return [{ name, hash: Buffer.from(hash, 'hex') }];
    });
}

function parseEnv(value: string | undefined): Array<{ name: string; hash: Buffer }> {
  if (!value?.trim()) return [];
  return value.split(',').map((pair, i) => {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const key = pair.slice(at + 1).trim();
    // The message names the variable and the entry's position, never the value.
    if (at < 1 || !NAME.test(name) || !key)
      throw new ClientKeysError(`${GATEWAY_KEYS_ENV}: entry ${i + 1} is not NAME=KEY`);
    return { name, hash: sha256(key) };
  });
}

export function loadClientKeys(opts: { keysFile?: string; env?: NodeJS.ProcessEnv }): ClientKeys {
  const fromEnv = parseEnv((opts.env ?? process.env)[GATEWAY_KEYS_ENV]);
  let fromFile: Array<{ name: string; hash: Buffer }> = [];
  let seen = '';
  const current = () => {
    if (opts.keysFile) {
      // A stat per request: cheap next to a model call, and a revoked key stops working at once.
      const stamp = existsSync(opts.keysFile)
        ? `${statSync(opts.keysFile).mtimeMs}:${statSync(opts.keysFile).size}`
        : 'absent';
      if (stamp !== seen) {
        if (stamp === 'absent')
          throw new ClientKeysError(
            `gateway.keysFile: ${opts.keysFile} does not exist (create keys with flywheel gateway keys create NAME)`,
          );
        fromFile = parseFile(opts.keysFile);
        seen = stamp;
      }
    }
    return [...fromEnv, ...fromFile];
  };
  current(); // a missing or malformed file fails at start, not on the first request
  return {
    required: Boolean(opts.keysFile) || fromEnv.length > 0,
    check(authorization) {
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
      if (!token) return null;
      const hash = sha256(token);
      let found: string | null = null;
      for (const k of current()) if (timingSafeEqual(k.hash, hash) && found === null) found = k.name;
      return found;
    },
  };
}

/** A new key for NAME, its hash appended to the key file (created 0600); the key is returned to print once. */
export function createClientKey(keysFile: string, name: string): string {
  if (!NAME.test(name)) throw new ClientKeysError(`key name "${name}": letters, digits, . _ - (up to 64)`);
  if (existsSync(keysFile) && parseFile(keysFile).some((k) => k.name === name))
    throw new ClientKeysError(
      `${keysFile} already has a key named ${name}; revoke it (delete its line) or pick another name`,
    );
  const key = `fwk_${randomBytes(32).toString('base64url')}`;
  mkdirSync(dirname(keysFile), { recursive: true });
  appendFileSync(keysFile, `${name}:${sha256(key).toString('hex')}\n`, { mode: 0o600 });
  return key;
}
