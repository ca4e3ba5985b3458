import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ArtifactStore } from '../core/artifacts/store.js';
import type { ArtifactRef } from '../core/artifacts/types.js';
import type { DeployConfig, GateSettings, PreferenceConfig, TrainConfig } from '../core/config/schema.js';
import type { RenderedRow } from '../core/dataset/render.js';
import { Backend } from '../core/deploy/backend.js';
import { deployVersion, ensureLoaded, rollbackAlias, SmokeTestFailed } from '../core/deploy/deploy.js';
import { versionName } from '../core/deploy/names.js';
import { withRegistry } from '../core/deploy/registry.js';
import type { SmokeProbe } from '../core/deploy/smoke.js';
import type { DeployedVersion } from '../core/deploy/types.js';
import { casesFrom, EvalInputError, firstCases } from '../core/eval/cases.js';
import { decideGate } from '../core/eval/gate.js';
import { putReport } from '../core/eval/report-store.js';
import type { EvalReport, GateDecision } from '../core/eval/types.js';
import type { StageOutcome } from '../core/pipeline/types.js';
import { jobIdentity, preferenceIdentity } from '../core/train/job.js';
import type { ServedVersion } from './evaluate.js';
import { failFast } from './errors.js';
import { whileBeating } from './heartbeat.js';
import { stageVersion } from '../workflows/contract/table.js';
import type { StageArgs } from './stage.js';
import { storeFor, type StoreSpec } from './store.js';
import {
  DEFAULT_ADAPTER_DIR,
  DEFAULT_REGISTRY,
  DEFAULT_SERVE_ADMIN_TOKEN_ENV,
  DEFAULT_STORE_URI,
} from '../core/defaults.js';

/**
 * The version an alias serves now (null before its first deploy), made sure to be loaded on its backend so
 * the evaluation can score it: a restarted backend has forgotten its runtime-loaded adapters.
 */
export async function currentVersion(a: { store: StoreSpec; deploy: DeployConfig }): Promise<ServedVersion | null> {
  return failFast(() =>
    whileBeating(() =>
      withRegistry(a.deploy.registry, async (r) => {
        const v = await r.current(a.deploy.alias);
        if (!v) return null;
        const apiKey = a.deploy.apiKeyEnv ? process.env[a.deploy.apiKeyEnv] : undefined;
        const route = await ensureLoaded(
          new Backend(v.target, v.endpoint, apiKey, a.deploy.timeoutMs, adminToken(a.deploy.adminTokenEnv)),
          v,
          adapterPathIn(a.deploy.adapterDir, storeFor(a.store)),
        );
        return { name: v.name, endpoint: v.endpoint, servedModel: route.servedModel, adapterId: route.adapterId };
      }),
    ),
  );
}

/** Where a version's adapter sits for its backend: materialised from the store on first use. */
function adapterPathIn(
  adapterDir: string,
  store: ArtifactStore,
): (v: Pick<DeployedVersion, 'name' | 'adapter'>) => Promise<string> {
  return async (v) => {
    const dir = resolve(adapterDir, v.name);
    if (!existsSync(dir)) await store.materializeDir(v.adapter, dir);
    return join(dir, 'adapter');
  };
}

/** The gate's decision on the eval results (the workflow may add an operator's approval before recording it). */
export async function gateStage(
  a: StageArgs & { evalResults: ArtifactRef; gate: GateSettings },
): Promise<{ decision: GateDecision }> {
  return failFast(async () => {
    const results = await storeFor(a.store).readJson<EvalReport>(a.evalResults);
    const candidate = results.results.find((r) => r.label === 'candidate');
    if (!candidate) throw new EvalInputError(`eval results ${a.evalResults.sha256.slice(0, 12)} have no candidate`);
    const production = results.results.find((r) => r.label === 'production') ?? null;
    return { decision: decideGate(candidate, production, a.gate, results.bootstrap) };
  });
}

/** Store the full report (json, md, html) with the final decision in it. */
export async function recordGate(
  a: StageArgs & { evalResults: ArtifactRef; decision: GateDecision },
): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(a.store);
    const report: EvalReport = { ...(await store.readJson<EvalReport>(a.evalResults)), gate: a.decision };
    const ref = await putReport(store, report, [a.evalResults], {
      promote: a.decision.promote,
      candidate: a.decision.candidate,
      production: a.decision.production,
    });
    // The line that decided: an operator's answer, else the first failed rule, else the last rule checked.
    const why =
      a.decision.reasons.find((r) => /^(approved|rejected) by |^no approval|: fail$/.test(r)) ??
      a.decision.reasons.at(-1) ??
      '';
    return {
      outputs: { evalReport: ref },
      reused: false,
      summary: `${a.decision.promote ? 'promote' : 'hold'}: ${why}`,
    };
  });
}

export interface DeployArgs extends StageArgs {
  workflowId: string;
  deploy: DeployConfig;
  adapter: ArtifactRef;
  adapterVersion: string;
  train: ArtifactRef;
  val: ArtifactRef;
  settings: TrainConfig;
  /** Present when the run tuned the candidate with DPO after SFT. */
  preference?: PreferenceConfig;
  format: 'router-json' | 'hermes';
  renderedTest: ArtifactRef;
  evalReport: ArtifactRef;
  actor: string;
  reason: string;
  /** The production version the candidate was gated against (null: none); the alias moves only from it. */
  expectedCurrent: string | null;
}

export type DeployOutcome = StageOutcome & { version: string; previous: string | null };

/**
 * Materialise the adapter where the backend can read it, load it under its unique name, smoke-test it, and
 * move the alias. Safe to retry from any point (see core/deploy/deploy.ts).
 */
export async function deployStage(a: DeployArgs): Promise<DeployOutcome> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store);
      // An SFT candidate is named by its job on its data. A DPO one also by its adapter's sha: its weights depend on
      // the pairs and the SFT adapter too, and a version name never changes weights.
      const identity = a.preference
        ? {
            ...preferenceIdentity(a.settings.job, a.preference, a.format),
            stageVersion: stageVersion('preference'),
            adapter: a.adapter.sha256,
          }
        : { ...jobIdentity(a.settings.job, a.format), stageVersion: stageVersion('train') };
      const name = versionName(a.deploy.alias, { trainSha: a.train.sha256, valSha: a.val.sha256 }, identity);
      const adapterPath = await adapterPathIn(a.deploy.adapterDir, store)({ name, adapter: a.adapter });
      const probes = firstCases(
        casesFrom(await store.readJsonl<RenderedRow>(a.renderedTest)),
        a.deploy.smokeProbes,
      ).map(({ id, messages, tools }) => ({ id, messages, tools }));
      const probesRef = await store.putJson('smoke-probes', probes, { parents: [a.renderedTest] });
      const apiKey = a.deploy.apiKeyEnv ? process.env[a.deploy.apiKeyEnv] : undefined;
      const backend = new Backend(
        a.deploy.target,
        a.deploy.endpoint,
        apiKey,
        a.deploy.timeoutMs,
        adminToken(a.deploy.adminTokenEnv),
      );
      const result = await withRegistry(a.deploy.registry, (registry) =>
        deployVersion(
          registry,
          backend,
          {
            alias: a.deploy.alias,
            name,
            adapterVersion: a.adapterVersion,
            adapter: a.adapter,
            adapterPath,
            runId: a.workflowId,
            evalReport: a.evalReport,
            probes,
            probesRef,
            expectedCurrent: a.expectedCurrent,
            actor: a.actor,
            reason: a.reason,
            requestId: `${a.workflowId}/${a.runId}/deploy`,
          },
          { timeoutMs: a.deploy.timeoutMs, ...(apiKey ? { apiKey } : {}) },
        ),
      );
      // The store records its own deployed versions too, so gc keeps them wherever the registry lives.
      await store.putPointer(`deployed/${name.replace('@', '/')}`, {
        version: name,
        adapter: a.adapter,
        evalReport: a.evalReport,
        probes: probesRef,
      });
      const deployment = await store.putJson(
        'deployment',
        { version: result.version, event: result.event, smoke: result.smoke },
        { parents: [a.adapter, a.evalReport] },
      );
      const what = !result.moved
        ? `${name} already served, nothing moved`
        : result.event.previous
          ? `${result.event.previous} → ${name}`
          : `${name} (first version)`;
      return {
        outputs: { deployment },
        reused: false,
        summary: `${a.deploy.alias}: ${what}; ${result.smoke.summary}`,
        version: name,
        previous: result.moved ? result.event.previous : name,
      };
    }),
  );
}

export interface RollbackArgs {
  /** Absent (a rollback started from the UI with just alias, by and reason): core/defaults.ts's. */
  registry?: string;
  adapterDir?: string;
  store?: StoreSpec;
  alias: string;
  to?: string;
  actor: string;
  reason: string;
  requestId: string;
  timeoutMs: number;
  apiKeyEnv?: string;
  adminTokenEnv?: string;
}

/**
 * The serving backend's admin token, from this worker's environment only: never from workflow input or config
 * values, so no history or artifact ever holds it.
 */
function adminToken(envName = DEFAULT_SERVE_ADMIN_TOKEN_ENV): string | undefined {
  return process.env[envName] || undefined;
}

/** Repoint an alias to an earlier version after reloading (if needed) and smoke-testing it. */
export async function rollbackStage(
  a: RollbackArgs,
): Promise<{ version: string; previous: string | null; smoke: string }> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store ?? { store: DEFAULT_STORE_URI, s3: {} });
      const apiKey = a.apiKeyEnv ? process.env[a.apiKeyEnv] : undefined;
      const result = await withRegistry(a.registry ?? DEFAULT_REGISTRY, (registry) =>
        rollbackAlias(
          registry,
          (v) => new Backend(v.target, v.endpoint, apiKey, a.timeoutMs, adminToken(a.adminTokenEnv)),
          {
            alias: a.alias,
            ...(a.to ? { to: a.to } : {}),
            actor: a.actor,
            reason: a.reason,
            requestId: a.requestId,
            adapterPathOf: adapterPathIn(a.adapterDir ?? DEFAULT_ADAPTER_DIR, store),
            probesOf: async (v: DeployedVersion) => {
              if (!v.probes) throw new SmokeTestFailed(`version ${v.name} has no recorded smoke probes`);
              return store.readJson<SmokeProbe[]>(v.probes);
            },
          },
          { timeoutMs: a.timeoutMs, ...(apiKey ? { apiKey } : {}) },
        ),
      );
      return { version: result.version.name, previous: result.event.previous, smoke: result.smoke.summary };
    }),
  );
}
