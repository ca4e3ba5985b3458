import type { ArtifactRef } from '../core/artifacts/types.js';

/**
 * Parsed stage inputs by sha256, shared by the chunks one worker runs at once. Every chunk of a stage reads the
 * stage's whole input as context, and a hundred parsed copies of a 100K-row file do not fit in a worker's heap
 * (measured: scripts/bench/history-size.ts ran a worker out of its 4 GB). Artifacts are immutable, so one parsed
 * copy serves them all; callers treat it as read-only. An entry goes when nobody has asked for it for a minute,
 * or when more than KEEP inputs are held.
 */
const KEEP = 6;
const IDLE_MS = 60_000;
const cache = new Map<string, { value: Promise<unknown>; timer: NodeJS.Timeout }>();

export function readShared<T>(ref: ArtifactRef, read: (ref: ArtifactRef) => Promise<T>): Promise<T> {
  const key = ref.sha256;
  const hit = cache.get(key);
  if (hit) clearTimeout(hit.timer);
  const value =
    hit?.value ??
    read(ref).catch((err: unknown) => {
      drop(key);
      throw err;
    });
  cache.delete(key); // re-inserted last: the map's order is least recently used first
  cache.set(key, { value, timer: setTimeout(() => drop(key), IDLE_MS).unref() });
  while (cache.size > KEEP) drop(cache.keys().next().value!);
  return value as Promise<T>;
}

function drop(key: string): void {
  const entry = cache.get(key);
  if (entry) clearTimeout(entry.timer);
  cache.delete(key);
}
