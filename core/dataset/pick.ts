import type { Rng } from '../rng.js';
import type { EntityPools } from '../probe/types.js';

export type Row = Record<string, any>;

/** A random row of a pool that passes `where`, or undefined when none does. */
export function pick(
  pools: EntityPools,
  pool: string,
  rng: Rng,
  where: (r: Row) => boolean = () => true,
): Row | undefined {
  const rows = (pools[pool] ?? []).filter(where);
  return rows.length ? rng.pick(rows) : undefined;
}

export function entity(domain: string, type: string, id: unknown): string {
  return `${domain}:${type}:${String(id)}`;
}
