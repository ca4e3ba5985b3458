/**
 * What probing a server found: real values to put in requests, and how each tool's probe went.
 * Stored per domain in the `entity-pools` artifact, with provenance for every harvested value.
 */

/** Rows of real records by entity type, as a domain pack's own probes return them (e.g. pools.account[]). */
export type EntityPools = Record<string, Array<Record<string, unknown>>>;

/** One real value and the call that produced it: `tool`'s `call`-th probe call, at `path` in its result. */
export interface HarvestedValue {
  value: string | number;
  tool: string;
  call: number;
  /** Times it was seen: a value seen in many records (a status, a type) describes rather than names. */
  count: number;
}

/** Harvested values by where they sat in a result: `entities[].name`, `text:path`, `account.Id`, ... */
export type HarvestedPools = Record<string, HarvestedValue[]>;

/** How a tool's probe went; the coverage table shows it. */
export interface ToolProbe {
  tool: string;
  status: 'ok' | 'failed' | 'skipped';
  calls: number;
  values: number;
  /** The arguments of each call, in order: a harvested value's `call` indexes this (1-based). */
  args?: Array<Record<string, unknown>>;
  detail?: string;
}

/** Everything probing learned about one server (config name). */
export interface DomainPools {
  /** The domain pack's pools, when a pack refines this server. */
  pack?: EntityPools;
  /** Why this server's domain pack was set aside (its tools then take the generic path). */
  packNote?: string;
  harvested: HarvestedPools;
  probes: ToolProbe[];
}
