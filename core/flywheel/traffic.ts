/**
 * Traffic for turning the flywheel: requests people sent, split by a seed into the slices a measurement needs. The
 * held-out slice is never sent through the gateway, so no turn can train on it; validation picks the escalation
 * threshold once; the gate slice compares candidates on real requests; the batches are each turn's traffic.
 */
import { InputError } from '../errors.js';
import { Rng } from '../rng.js';

export interface TrafficRequest {
  id: string;
  /** What the user asked: requests with the same text, up to case, spacing and end punctuation, are one request. */
  text: string;
}

export interface TrafficSizes {
  heldOut: number;
  validation: number;
  gate: number;
  batches: number;
  batchSize: number;
}

export interface TrafficSplit {
  heldOut: string[];
  validation: string[];
  gate: string[];
  batches: string[][];
  /** Distinct requests left over. */
  unused: number;
  /** Requests dropped for repeating an earlier one's text. */
  duplicates: number;
}

/** A request's text as its identity: case, spacing and end punctuation do not make another request. */
export const normaliseRequest = (text: string): string =>
  text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s"'.,!?;:]+|[\s"'.,!?;:]+$/g, '');

/**
 * The split for `seed`: the same requests and seed always split the same way, whatever their order. The held-out
 * slice is drawn first, so it stays the same when the other sizes change.
 */
export function splitTraffic(requests: readonly TrafficRequest[], sizes: TrafficSizes, seed: string): TrafficSplit {
  for (const [key, n] of Object.entries(sizes))
    if (!Number.isInteger(n) || n < 0) throw new InputError(`traffic: ${key} must be a whole number ≥ 0, not ${n}`);
  const ids = new Set<string>();
  for (const r of requests) {
    if (ids.has(r.id)) throw new InputError(`traffic: request id ${r.id} is given twice`);
    ids.add(r.id);
  }
  // One request per text, the smallest id kept, so the input's order cannot change which survives.
  const byText = new Map<string, string>();
  for (const r of [...requests].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const key = normaliseRequest(r.text);
    if (!byText.has(key)) byText.set(key, r.id);
  }
  const distinct = [...byText.values()].sort();
  const need = sizes.heldOut + sizes.validation + sizes.gate + sizes.batches * sizes.batchSize;
  if (distinct.length < need)
    throw new InputError(
      `traffic: ${distinct.length} distinct requests; the split needs ${need} (held out ${sizes.heldOut}, validation ${sizes.validation}, gate ${sizes.gate}, ${sizes.batches} batches of ${sizes.batchSize}): lower the sizes or add requests`,
    );
  const order = new Rng(`traffic:${seed}`).shuffle(distinct);
  let at = 0;
  const take = (n: number): string[] => order.slice(at, (at += n));
  const heldOut = take(sizes.heldOut);
  const validation = take(sizes.validation);
  const gate = take(sizes.gate);
  const batches = Array.from({ length: sizes.batches }, () => take(sizes.batchSize));
  return {
    heldOut,
    validation,
    gate,
    batches,
    unused: order.length - at,
    duplicates: requests.length - distinct.length,
  };
}
