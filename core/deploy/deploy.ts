import type { ArtifactRef } from '../artifacts/types.js';
import { chatClient } from '../eval/client.js';
import type { Backend, Route } from './backend.js';
import { RegistryConflict, type AliasRegistry } from './registry.js';
import { smokeTest, type SmokeProbe, type SmokeResult } from './smoke.js';
import type { AliasAction, AliasEvent, DeployedVersion } from './types.js';
import { InputError } from '../errors.js';

/** The smoke test failed: the alias stays where it was. Retrying the same adapter cannot help. */
export class SmokeTestFailed extends InputError {
  override name = 'SmokeTestFailed';
}

export interface DeployPlan {
  alias: string;
  name: string;
  adapterVersion: string;
  adapter: ArtifactRef;
  /** The LoRA directory as the backend sees it. */
  adapterPath: string;
  runId: string | null;
  evalReport: ArtifactRef | null;
  probes: SmokeProbe[];
  /** The same probes stored as an artifact, recorded with the version for later rollbacks. */
  probesRef: ArtifactRef | null;
  /** The version the candidate was evaluated against (null: none yet); the alias moves only from it. */
  expectedCurrent: string | null;
  actor: string;
  reason: string;
  /** Idempotency key of the alias move: a retry with the same key moves nothing twice. */
  requestId: string;
}

export interface DeployResult {
  version: DeployedVersion;
  /** The alias move this request made (on a retry: the one its first attempt made); the latest one when it made none. */
  event: AliasEvent;
  /** False when the alias already served the version and nothing moved. */
  moved: boolean;
  smoke: SmokeResult;
}

/** Test hooks for crash-consistency tests: called between the steps. */
export interface DeployHooks {
  afterLoad?: () => Promise<void>;
}

/**
 * load → smoke → register → repoint. Every step is idempotent, so a retry after a crash anywhere finishes the
 * job without a second alias move; a smoke failure unloads the new version (unless the alias already serves
 * it) and leaves the alias untouched.
 */
export async function deployVersion(
  registry: AliasRegistry,
  backend: Backend,
  plan: DeployPlan,
  opts: { timeoutMs: number; apiKey?: string },
  hooks: DeployHooks = {},
): Promise<DeployResult> {
  const done = await registry.event(plan.requestId);
  if (done)
    return {
      version: (await registry.version(done.version))!,
      event: done,
      moved: true,
      smoke: { passed: true, summary: `already moved by ${plan.requestId}`, probes: [] },
    };
  const serving = await registry.current(plan.alias);
  if (serving?.name === plan.name) {
    // The candidate is what the alias serves (an unchanged dataset and job): nothing to move.
    if (serving.adapter.sha256 !== plan.adapter.sha256)
      throw new RegistryConflict(
        `${plan.name} is served with adapter ${serving.adapter.sha256.slice(0, 12)}, not ${plan.adapter.sha256.slice(0, 12)}: a version name never changes weights`,
      );
    return {
      version: serving,
      event: (await registry.history(plan.alias))[0]!,
      moved: false,
      smoke: { passed: true, summary: `alias ${plan.alias} already serves ${plan.name}`, probes: [] },
    };
  }
  // Gated against one production version, the candidate must not replace another that arrived meanwhile.
  if ((serving?.name ?? null) !== plan.expectedCurrent) {
    throw new RegistryConflict(
      `alias ${plan.alias} moved to ${serving?.name ?? 'nothing'} after this candidate was evaluated against ${plan.expectedCurrent ?? 'no version'}; run again to gate it against the new version`,
    );
  }
  const route = await backend.load(plan.name, plan.adapterPath);
  await hooks.afterLoad?.();
  const smoke = await smokeRoute(backend, route, plan.probes, opts);
  if (!smoke.passed) {
    await backend.unload(plan.name);
    throw new SmokeTestFailed(`${plan.name}: smoke test failed: ${smoke.summary}; alias ${plan.alias} unchanged`);
  }
  const version = await registry.registerVersion({
    name: plan.name,
    alias: plan.alias,
    adapterVersion: plan.adapterVersion,
    adapter: plan.adapter,
    target: backend.target,
    endpoint: backend.endpoint,
    ...route,
    runId: plan.runId,
    evalReport: plan.evalReport,
    probes: plan.probesRef,
  });
  const event = await registry.repoint(plan.alias, plan.name, {
    action: 'deploy',
    actor: plan.actor,
    reason: plan.reason,
    requestId: plan.requestId,
    expectedCurrent: plan.expectedCurrent,
  });
  return { version, event, moved: true, smoke };
}

/**
 * Point the alias at an earlier version: reload it if the backend forgot it (a restart drops runtime-loaded
 * adapters), smoke-test it, then move the alias. `to` defaults to the version the alias pointed at before
 * the current one.
 */
export async function rollbackAlias(
  registry: AliasRegistry,
  backendFor: (v: DeployedVersion) => Backend,
  args: {
    alias: string;
    to?: string;
    actor: string;
    reason: string;
    requestId: string;
    adapterPathOf: (v: DeployedVersion) => Promise<string>;
    probesOf: (v: DeployedVersion) => Promise<SmokeProbe[]>;
    action?: AliasAction;
  },
  opts: { timeoutMs: number; apiKey?: string },
): Promise<DeployResult> {
  const done = await registry.event(args.requestId);
  if (done)
    return {
      version: (await registry.version(done.version))!,
      event: done,
      moved: true,
      smoke: { passed: true, summary: `already moved by ${args.requestId}`, probes: [] },
    };
  const current = await registry.current(args.alias);
  const targetName = args.to ?? (await previousVersion(registry, args.alias));
  if (!targetName) throw new SmokeTestFailed(`alias ${args.alias} has no earlier version to roll back to`);
  const version = await registry.version(targetName);
  if (!version || version.alias !== args.alias)
    throw new SmokeTestFailed(
      `version ${targetName} is not a version of alias ${args.alias} (see flywheel versions --alias ${args.alias})`,
    );
  if (current?.name === targetName) {
    const event = (await registry.history(args.alias))[0]!;
    return {
      version,
      event,
      moved: false,
      smoke: { passed: true, summary: `alias ${args.alias} already serves ${targetName}`, probes: [] },
    };
  }
  const backend = backendFor(version);
  const route = await ensureLoaded(backend, version, args.adapterPathOf);
  const smoke = await smokeRoute(backend, route, await args.probesOf(version), opts);
  if (!smoke.passed)
    throw new SmokeTestFailed(`${version.name}: smoke test failed: ${smoke.summary}; alias ${args.alias} unchanged`);
  const event = await registry.repoint(args.alias, version.name, {
    action: args.action ?? 'rollback',
    actor: args.actor,
    reason: args.reason,
    requestId: args.requestId,
  });
  return { version, event, moved: true, smoke };
}

/** Reload a registered version its backend forgot (a restart drops runtime-loaded adapters); its route. */
export async function ensureLoaded(
  backend: Backend,
  version: DeployedVersion,
  adapterPathOf: (v: DeployedVersion) => Promise<string>,
): Promise<Route> {
  if (await backend.isLoaded(version.name))
    return { servedModel: version.servedModel, adapterId: version.adapterId, baseModel: version.baseModel };
  return backend.load(version.name, await adapterPathOf(version));
}

/**
 * The version the alias served before its current one was deployed. Rolling back twice goes further back
 * (never forward to the version just rolled away from); undefined when the current one was the first.
 */
async function previousVersion(registry: AliasRegistry, alias: string): Promise<string | undefined> {
  const current = (await registry.current(alias))?.name;
  return (
    (await registry.history(alias)).find((e) => e.action === 'deploy' && e.version === current)?.previous ?? undefined
  );
}

function smokeRoute(
  backend: Backend,
  route: Route,
  probes: SmokeProbe[],
  opts: { timeoutMs: number; apiKey?: string },
): Promise<SmokeResult> {
  // vLLM decodes inside the router answer's schema through its structured outputs, base and version alike.
  const constraint = backend.target === 'vllm' ? { constraint: 'json-schema' as const } : {};
  const common = {
    baseUrl: backend.endpoint,
    ...constraint,
    cost: { kind: 'none' as const },
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
  };
  const client = { timeoutMs: opts.timeoutMs, maxRetries: 2 };
  // The smoke test is of the weights: on the local serve the adapter's retrieval prior (its training requests'
  // votes, examples.jsonl) is turned off, or a zeroed adapter would still answer unlike its base.
  const weightsOnly = backend.target === 'local' ? { extraBody: { retrieval: false } } : {};
  const version = chatClient(
    {
      ...common,
      label: 'version',
      model: route.servedModel,
      ...(route.adapterId ? { adapterId: route.adapterId } : {}),
      ...weightsOnly,
    },
    client,
  );
  const base = chatClient({ ...common, label: 'base', model: route.baseModel }, client);
  return smokeTest(probes, version, base);
}
