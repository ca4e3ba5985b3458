/**
 * Row-parallel stages split their input into chunks that run as separate activities (on any worker), then merge
 * (the ranges: workflows/contract/table.ts `chunkRanges`). A chunk's rows are a contiguous range of the input, and the
 * merge concatenates the chunks' rows in range order, so the merged artifact is byte-identical to what one
 * activity would have written for the same input and seed.
 */
/** Rows `[from, to)` of a chunked stage's input. */
export interface ChunkRange {
  from: number;
  to: number;
}

/**
 * The chunks' manifest stats merged into the whole stage's: numbers are summed, objects merged key by key the
 * same way, and anything else (a teacher's name) must be the same in every chunk.
 */
export function sumStats(parts: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      const prev = out[key];
      if (prev === undefined) out[key] = isObject(value) ? sumStats([value]) : value;
      else if (typeof prev === 'number' && typeof value === 'number') out[key] = prev + value;
      else if (isObject(prev) && isObject(value)) out[key] = sumStats([prev, value]);
      else if (JSON.stringify(prev) !== JSON.stringify(value))
        throw new Error(`chunk stats disagree on ${key}: ${JSON.stringify(prev)} vs ${JSON.stringify(value)}`);
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
