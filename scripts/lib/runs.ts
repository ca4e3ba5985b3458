import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { RunRefs } from '../../core/artifacts/gc.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { hashOf } from '../../core/hash.js';
import { requestHash, workflowIdForRun } from '../../core/pipeline/run-id.js';
import type { FlywheelRunInput, RunProgress, StageProgress } from '../../core/pipeline/types.js';
import { DEFAULT_TEMPORAL_ADDRESS, uiLink } from '../../core/temporal-env.js';
import { connectClient } from '../../workers/connection.js';
import { CPU_TASK_QUEUE } from '../../workers/cpu.js';
import type { flywheelRun } from '../../workflows/flywheel-run.js';
import { STAGE_OF_ACTIVITY } from '../../workflows/contract/table.js';
import { UsageError } from './args.js';
import { InputError } from '../../core/errors.js';

export type RunHandle = WorkflowHandle<typeof flywheelRun>;

/** The machine-readable contract of `flywheel status --json`. */
export interface RunStatus {
  runId: string;
  workflowId: string;
  state: string;
  project: string | null;
  /** Who started it (cli, ui, schedule:<name>, …) and, when given, why. */
  trigger: string | null;
  reason: string | null;
  /** Set when the run stopped early on purpose (not enough new data since the watermark). */
  skipReason: string | null;
  startedAt: string | null;
  closedAt: string | null;
  uiLink: string;
  stages: Array<Pick<StageProgress, 'name' | 'state' | 'outputs' | 'startedAt' | 'finishedAt' | 'detail'>>;
  error?: string;
}

export async function connect(): Promise<Client> {
  let conn;
  try {
    conn = await connectClient();
  } catch (err) {
    const addr = process.env.TEMPORAL_ADDRESS || DEFAULT_TEMPORAL_ADDRESS;
    throw new Error(
      `cannot reach Temporal at ${addr}: ${(err as Error).message}\n(start one with "flywheel dev-server" or set TEMPORAL_ADDRESS)`,
    );
  }
  return new Client({ connection: conn.connection, namespace: conn.namespace });
}

export interface Started {
  handle: RunHandle;
  runId: string;
  /** False when we attached to an existing run: the same config in progress, or the same idempotency key. */
  created: boolean;
}

/** Keyed starts were refused: the key already names a run of a different request. */
export class IdempotencyConflict extends InputError {
  override name = 'IdempotencyConflict';
}

/**
 * Start flywheelRun. Without a key, a second start of the same request while one runs attaches to that run.
 * With input.idempotencyKey the workflow id is flywheel-<project>:<key>: a later start with that key returns
 * the same run while it runs or once it completed (reuse policy ALLOW_DUPLICATE_FAILED_ONLY: a failed one is
 * started again), and one with a different request is refused.
 */
export async function startRun(client: Client, config: FlywheelConfig, input: FlywheelRunInput): Promise<Started> {
  const key = input.idempotencyKey;
  const workflowId = workflowIdForRun(config, input);
  const request = requestHash(input);
  const existing = async () => (key ? keyedRun(client, workflowId, key, request) : runningRun(client, workflowId));
  const found = await existing();
  if (found) return found;
  try {
    const handle = await client.workflow.start<typeof flywheelRun>('flywheelRun', {
      taskQueue: CPU_TASK_QUEUE,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
      // A key whose run failed (or was terminated, canceled, timed out) may start again; a completed one may not.
      ...(key ? { workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' as const } : {}),
      memo: { request },
      staticSummary: runSummary(config, input.trigger ?? 'cli', input.reason),
      staticDetails: [
        `config sha256 ${hashOf(config)}`,
        input.resumeOf ? `resumes ${input.resumeOf}` : '',
        key ? `idempotency key ${key}` : '',
        input.traces?.length
          ? `traces ${input.traces.map((t) => (typeof t === 'string' ? t : t.path)).join(', ')}`
          : '',
        input.reason ? `reason: ${input.reason}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    });
    return { handle, runId: handle.firstExecutionRunId, created: true };
  } catch (err) {
    // Lost a race with another starter: follow the run it started.
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      const other = await existing();
      if (other) return other;
    }
    throw err;
  }
}

/** The one line the Temporal UI shows for a run: project, domains (its servers), trigger, and why. */
export function runSummary(config: FlywheelConfig, trigger: string, reason?: string): string {
  return `${config.name} [${config.servers.map((s) => s.name).join(', ')}] (${trigger})${reason ? `: ${reason}` : ''}`.slice(
    0,
    200,
  );
}

async function runningRun(client: Client, workflowId: string): Promise<Started | undefined> {
  try {
    const desc = await client.workflow.getHandle(workflowId).describe();
    if (desc.status.name !== 'RUNNING') return undefined;
    return { handle: client.workflow.getHandle(workflowId, desc.runId), runId: desc.runId, created: false };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * The run a key already started, if it is running or completed (a failed one gives way to a new start);
 * refused when it was started for another request.
 */
async function keyedRun(
  client: Client,
  workflowId: string,
  key: string,
  request: string,
): Promise<Started | undefined> {
  let desc;
  try {
    desc = await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  if (desc.status.name !== 'RUNNING' && desc.status.name !== 'COMPLETED') return undefined;
  if (desc.memo?.request !== request) {
    throw new IdempotencyConflict(
      `idempotency key "${key}" already started run ${desc.runId} (${desc.status.name.toLowerCase()}) with a different request; use a new key`,
    );
  }
  return { handle: client.workflow.getHandle(workflowId, desc.runId), runId: desc.runId, created: false };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RUN_ID is a Temporal run id (UUID) or a workflow id (its latest run). */
export async function findRun(client: Client, id: string): Promise<RunHandle> {
  if (UUID_RE.test(id)) {
    for await (const wf of client.workflow.list({ query: `RunId = '${id}'`, pageSize: 1 })) {
      return client.workflow.getHandle(wf.workflowId, wf.runId);
    }
    throw new UsageError(`no run with run id ${id} in namespace ${client.options.namespace}`);
  }
  if (!/^[\w.@:-]+$/.test(id)) throw new UsageError(`"${id}" is neither a run id nor a workflow id`);
  const handle = client.workflow.getHandle<typeof flywheelRun>(id);
  try {
    const desc = await handle.describe();
    return client.workflow.getHandle(id, desc.runId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new UsageError(`no run with id ${id} in namespace ${client.options.namespace}`);
    throw err;
  }
}

/** Outputs of every finished stage, read from the activity results in the run's history (no worker needed). */
export async function outputsFromHistory(handle: RunHandle): Promise<Record<string, Record<string, ArtifactRef>>> {
  return outputsFromEvents((await handle.fetchHistory()).events ?? []);
}

/** The parts of a history event (as fetchHistory or historyFromJSON gives it) that carry stage outputs. */
export interface OutputEvent {
  eventId?: unknown;
  activityTaskScheduledEventAttributes?: {
    activityType?: { name?: string | null } | null;
    input?: { payloads?: Payload[] | null } | null;
  } | null;
  activityTaskCompletedEventAttributes?: {
    scheduledEventId?: unknown;
    result?: { payloads?: Payload[] | null } | null;
  } | null;
}

/**
 * The same from history events: each completed activity the stage table (workflows/contract/table.ts) names, by stage, and
 * the memo's answer for a chunked stage it already held (`storedStage`, which names its stage in its input).
 */
export function outputsFromEvents(events: OutputEvent[]): Record<string, Record<string, ArtifactRef>> {
  const scheduled = new Map<string, string>();
  const out: Record<string, Record<string, ArtifactRef>> = {};
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'storedStage' && s.input?.payloads?.[0])
      scheduled.set(
        String(e.eventId),
        (defaultPayloadConverter.fromPayload(s.input.payloads[0]) as { stage: string }).stage,
      );
    else if (s?.activityType?.name) scheduled.set(String(e.eventId), STAGE_OF_ACTIVITY[s.activityType.name] ?? '');
    const c = e.activityTaskCompletedEventAttributes;
    if (c) {
      const stage = scheduled.get(String(c.scheduledEventId));
      const payload = c.result?.payloads?.[0];
      const result =
        stage && payload
          ? (defaultPayloadConverter.fromPayload(payload) as { outputs: Record<string, ArtifactRef> } | null)
          : null;
      if (stage && result) out[stage] = result.outputs;
    }
  }
  return out;
}

/** Status from the workflow's memo (stage states) and history (outputs): works with no worker running. */
export async function runStatus(handle: RunHandle): Promise<RunStatus> {
  const desc = await handle.describe();
  const progress = desc.memo?.progress as RunProgress | undefined;
  const outputs = await outputsFromHistory(handle);
  const status: RunStatus = {
    runId: desc.runId,
    workflowId: desc.workflowId,
    state: desc.status.name.toLowerCase(),
    project: progress?.project ?? null,
    trigger: progress?.trigger ?? null,
    reason: progress?.reason ?? null,
    skipReason: progress?.skipReason ?? null,
    startedAt: desc.startTime.toISOString(),
    closedAt: desc.closeTime?.toISOString() ?? null,
    uiLink: uiLink(desc.workflowId, desc.runId),
    stages: (progress?.stages ?? []).map((s) => ({
      name: s.name,
      state: s.state,
      outputs: outputs[s.name] ?? {},
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      detail: s.detail,
    })),
  };
  if (desc.status.name === 'FAILED') {
    try {
      await handle.result();
    } catch (err) {
      status.error = rootMessage(err);
    }
  }
  return status;
}

export async function runProgress(handle: RunHandle): Promise<RunProgress | undefined> {
  return (await handle.describe()).memo?.progress as RunProgress | undefined;
}

export interface RunListing {
  runId: string;
  workflowId: string;
  state: string;
  startedAt: string;
  closedAt: string | null;
  project: string | null;
}

/** flywheelRun executions, newest first. */
export async function listRuns(client: Client, limit: number): Promise<RunListing[]> {
  const out: RunListing[] = [];
  // SQL visibility (the dev server's) has no ORDER BY and lists running runs first: read a bounded window
  // and sort by start time here, so "newest first" holds on every backend.
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'flywheelRun'`, pageSize: 100 })) {
    const progress = wf.memo?.progress as RunProgress | undefined;
    out.push({
      runId: wf.runId,
      workflowId: wf.workflowId,
      state: wf.status.name.toLowerCase(),
      startedAt: wf.startTime.toISOString(),
      closedAt: wf.closeTime?.toISOString() ?? null,
      project: progress?.project ?? null,
    });
    if (out.length >= Math.max(limit, 1000)) break;
  }
  return out.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1)).slice(0, limit);
}

/**
 * What gc must keep for runs Temporal knows: every artifact in the history of each open flywheelRun and of
 * the newest `newest` runs (stage outputs from activity results, the stored config from the memo).
 */
export async function flywheelRunRefs(client: Client, newest: number): Promise<RunRefs[]> {
  const listed: Array<{ workflowId: string; runId: string; startedAt: string; open: boolean; configSha?: string }> = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'flywheelRun'`, pageSize: 100 })) {
    const progress = wf.memo?.progress as RunProgress | undefined;
    listed.push({
      workflowId: wf.workflowId,
      runId: wf.runId,
      startedAt: wf.startTime.toISOString(),
      open: wf.status.name === 'RUNNING',
      ...(progress?.configRef ? { configSha: progress.configRef.sha256 } : {}),
    });
  }
  listed.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
  const wanted = listed.filter((r, i) => r.open || i < newest);
  return Promise.all(
    wanted.map(async (r) => {
      const outputs = await outputsFromHistory(client.workflow.getHandle(r.workflowId, r.runId));
      const shas = Object.values(outputs).flatMap((o) => Object.values(o).map((ref) => ref.sha256));
      return {
        runId: r.runId,
        startedAt: r.startedAt,
        open: r.open,
        shas: r.configSha ? [...shas, r.configSha] : shas,
      };
    }),
  );
}

export function rootMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}
