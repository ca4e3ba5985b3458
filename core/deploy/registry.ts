/**
 * The alias table: every deployed version and every move of every alias. Deploy activities write it; the gateway
 * reads it on every request. Two backends with one schema and one set of rules (registry-rules.ts): a SQLite file (one
 * host, or a shared disk) and PostgreSQL (workers and gateways on many hosts). Which one is the location string:
 * a path, or a password-free `postgresql://` URL (core/db-location.ts).
 */
import { existsSync } from 'node:fs';
import { parseDbLocation } from '../db-location.js';
import { PostgresRegistry } from './registry-postgres.js';
import { SqliteRegistry } from './registry-sqlite.js';
import type { AliasRegistry } from './registry-rules.js';

export * from './registry-rules.js';

/** Open the registry at `location` (creating the SQLite file or the PostgreSQL tables, and upgrading either). */
export async function openRegistry(location: string): Promise<AliasRegistry> {
  const where = parseDbLocation(location, 'registry');
  return where.kind === 'sqlite' ? SqliteRegistry.open(where.path) : PostgresRegistry.open(where.url);
}

/** Open, run fn, close: for callers that need the table for one operation. */
export async function withRegistry<T>(location: string, fn: (r: AliasRegistry) => Promise<T> | T): Promise<T> {
  const registry = await openRegistry(location);
  try {
    return await fn(registry);
  } finally {
    await registry.close();
  }
}

/** Whether there is a registry to read: a SQLite file that exists, or any PostgreSQL URL (the server says the rest). */
export function registryExists(location: string): boolean {
  return parseDbLocation(location, 'registry').kind === 'postgres' || existsSync(location);
}
