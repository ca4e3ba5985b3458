import { InputError } from './errors.js';

/**
 * Where a shared table lives, written as one string: a SQLite file path, or a PostgreSQL URL without a password
 * (`postgresql://user@host:5432/db`; the password comes from the worker's PGPASSWORD, or ~/.pgpass, as for psql),
 * so configs, CLI flags and workflow histories never carry a secret.
 */
export type DbLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//;

export function parseDbLocation(location: string, key: string): DbLocation {
  if (!POSTGRES_URL.test(location)) return { kind: 'sqlite', path: location };
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new InputError(`${key}: "${location}" is not a valid PostgreSQL URL`);
  }
  if (url.password)
    throw new InputError(
      `${key}: the PostgreSQL URL carries a password; leave it out and set PGPASSWORD in the worker's environment instead`,
    );
  return { kind: 'postgres', url: location };
}

/** The zod refinement message for a location with a password, so `flywheel check` catches it too. */
export function dbLocationProblem(location: string): string | undefined {
  try {
    parseDbLocation(location, 'location');
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(/^location: /, '');
  }
}
