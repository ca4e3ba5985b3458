/**
 * What the alias table is and the rules both of its backends (registry-sqlite.ts, registry-postgres.ts) apply:
 * the interface, the row shapes, and the checks on rows each reads inside its own transaction. Opening a registry
 * (registry.ts) picks a backend; the backends import this file, never registry.ts, so the three form no circle.
 */
import type { ArtifactRef } from '../artifacts/types.js';
import { InputError } from '../errors.js';
import type { AliasAction, AliasEvent, DeployedVersion, DeployTarget } from './types.js';

export interface RepointOptions {
  action: AliasAction;
  actor: string;
  reason: string;
  /** Idempotency key: a second repoint with the same key returns the first event and changes nothing. */
  requestId: string;
  /** Compare-and-swap: move only if the alias serves exactly this version now (null: no version yet). */
  expectedCurrent?: string | null;
}

/** A move or registration that contradicts the registry (a reused name, a moved alias): retrying cannot help. */
export class RegistryConflict extends InputError {
  override name = 'RegistryConflict';
}

export type NewVersion = Omit<DeployedVersion, 'createdAt'> & { createdAt?: string };

export interface AliasRegistry {
  /** Where it is: the path or URL it was opened with. */
  readonly location: string;
  /** Record a version. Registering the same name with the same adapter again is a no-op; names are never reused. */
  registerVersion(v: NewVersion): Promise<DeployedVersion>;
  version(name: string): Promise<DeployedVersion | undefined>;
  /** Every version of an alias, newest first. */
  versions(alias: string): Promise<DeployedVersion[]>;
  /** Every version of every alias (what gc keeps). */
  allVersions(): Promise<DeployedVersion[]>;
  /** The version the alias points at now (its latest event), or undefined if it was never pointed. */
  current(alias: string): Promise<DeployedVersion | undefined>;
  /** Point the alias at a version of its own, appending an event. Retried with the same requestId: returns the first event. */
  repoint(alias: string, versionName: string, opts: RepointOptions): Promise<AliasEvent>;
  /** The move made under an idempotency key, if any. */
  event(requestId: string): Promise<AliasEvent | undefined>;
  /** Every move of the alias, newest first. */
  history(alias: string): Promise<AliasEvent[]>;
  /** Every alias that points somewhere, with its current version. */
  aliases(): Promise<Array<{ alias: string; version: string }>>;
  close(): Promise<void>;
}

// ---- The rules both backends apply, on rows they read inside their own transaction. ----

/** The columns both backends store, JSON-encoded refs as text. */
export interface VersionRow {
  name: string;
  alias: string;
  adapter_version: string;
  adapter: string;
  adapter_sha: string;
  target: DeployTarget;
  endpoint: string;
  served_model: string;
  adapter_id: string | null;
  base_model: string;
  run_id: string | null;
  eval_report: string | null;
  probes: string | null;
  created_at: string;
}

export interface EventRow {
  id: number | string;
  alias: string;
  version: string;
  previous: string | null;
  action: AliasAction;
  actor: string;
  reason: string;
  request_id: string;
  at: string;
}

export function toVersion(r: VersionRow): DeployedVersion {
  return {
    name: r.name,
    alias: r.alias,
    adapterVersion: r.adapter_version,
    adapter: JSON.parse(r.adapter) as ArtifactRef,
    target: r.target,
    endpoint: r.endpoint,
    servedModel: r.served_model,
    adapterId: r.adapter_id,
    baseModel: r.base_model,
    runId: r.run_id,
    evalReport: r.eval_report === null ? null : (JSON.parse(r.eval_report) as ArtifactRef),
    probes: r.probes === null ? null : (JSON.parse(r.probes) as ArtifactRef),
    createdAt: r.created_at,
  };
}

export function toEvent(r: EventRow): AliasEvent {
  return {
    id: Number(r.id),
    alias: r.alias,
    version: r.version,
    previous: r.previous,
    action: r.action,
    actor: r.actor,
    reason: r.reason,
    requestId: r.request_id,
    at: r.at,
  };
}

/** The row a new version is stored as; throws on a name that is not `<alias>@<suffix>`. */
export function versionRow(v: NewVersion): VersionRow {
  if (!v.name.startsWith(`${v.alias}@`) || v.name.length === v.alias.length + 1) {
    throw new RegistryConflict(
      `version name ${v.name} must be "${v.alias}@<suffix>" (the gateway resolves pinned names by that prefix)`,
    );
  }
  return {
    name: v.name,
    alias: v.alias,
    adapter_version: v.adapterVersion,
    adapter: JSON.stringify(v.adapter),
    adapter_sha: v.adapter.sha256,
    target: v.target,
    endpoint: v.endpoint,
    served_model: v.servedModel,
    adapter_id: v.adapterId,
    base_model: v.baseModel,
    run_id: v.runId,
    eval_report: v.evalReport === null ? null : JSON.stringify(v.evalReport),
    probes: v.probes === null ? null : JSON.stringify(v.probes),
    created_at: v.createdAt ?? new Date().toISOString(),
  };
}

/** Registering over an existing row: the same alias and adapter is a no-op, anything else reuses a name. */
export function checkReregistration(existing: VersionRow, v: NewVersion): void {
  if (existing.adapter_sha !== v.adapter.sha256 || existing.alias !== v.alias) {
    throw new RegistryConflict(
      `version ${v.name} is already registered for alias ${existing.alias} with adapter ${existing.adapter_sha.slice(0, 12)}; names are never reused (got alias ${v.alias}, adapter ${v.adapter.sha256.slice(0, 12)})`,
    );
  }
}

/**
 * Whether a repoint may go ahead, given what the transaction read: the event already made under its requestId
 * (then that event is the answer), the target version's row, and the alias's current version.
 */
export function checkRepoint(
  alias: string,
  versionName: string,
  opts: RepointOptions,
  read: { done?: EventRow; target?: VersionRow; previous: string | null },
): EventRow | undefined {
  const { done, target, previous } = read;
  if (done) {
    if (done.alias !== alias || done.version !== versionName) {
      throw new RegistryConflict(
        `requestId ${opts.requestId} already moved ${done.alias} to ${done.version}; it cannot also move ${alias} to ${versionName}`,
      );
    }
    return done;
  }
  if (!target) throw new RegistryConflict(`cannot point ${alias} at ${versionName}: no such version is registered`);
  if (target.alias !== alias)
    throw new RegistryConflict(
      `cannot point ${alias} at ${versionName}: that version belongs to alias ${target.alias}`,
    );
  if (opts.expectedCurrent !== undefined && opts.expectedCurrent !== previous) {
    throw new RegistryConflict(
      `alias ${alias} now serves ${previous ?? 'nothing'}, not ${opts.expectedCurrent ?? 'nothing'} as expected: it moved meanwhile; nothing changed`,
    );
  }
  return undefined;
}

/** A registry written by a newer flywheel: refuse rather than misread it. */
export function checkSchemaVersion(found: number, known: number, location: string): void {
  if (found > known)
    throw new Error(
      `registry ${location} has schema version ${found}; this flywheel knows version ${known} (upgrade it)`,
    );
}
