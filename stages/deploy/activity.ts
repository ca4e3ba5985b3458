import type { RenderedRow } from '../../core/dataset/render.js';
import { Backend } from '../../core/deploy/backend.js';
import { deployVersion } from '../../core/deploy/deploy.js';
import { withRegistry } from '../../core/deploy/registry.js';
import { casesFrom, firstCases } from '../../core/eval/cases.js';
import { InputError } from '../../core/errors.js';
import { adapterPathIn, adminToken } from '../../activities/deploy.js';
import { failFast } from '../../activities/errors.js';
import { whileBeating } from '../../activities/heartbeat.js';
import { storeFor } from '../../activities/store.js';
import type { DeployArgs, DeployOutcome } from './spec.js';

/**
 * Materialise the adapter where the backend can read it, load it under its unique name, smoke-test it, and
 * move the alias. Safe to retry from any point (see core/deploy/deploy.ts).
 */
export async function deploy(a: DeployArgs): Promise<DeployOutcome> {
  return failFast(() =>
    whileBeating(async () => {
      const store = storeFor(a.store);
      if (!a.adapterTag)
        throw new InputError(
          'deploy: this run trained its candidate before candidates carried their deploy tag; start the run again (its stages are reused from the memo) to deploy it',
        );
      const name = `${a.deploy.alias}@${a.adapterTag}`;
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
