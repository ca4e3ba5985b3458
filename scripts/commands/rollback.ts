import { userInfo } from 'node:os';
import { DEFAULT_REGISTRY } from '../../core/deploy/types.js';
import { withRegistry } from '../../core/deploy/registry.js';
import { CPU_TASK_QUEUE } from '../../workflows/contract/queues.js';
import type { rollback, RollbackInput } from '../../workflows/rollback.js';
import { intOption, parse, UsageError, type Command } from '../lib/args.js';
import { printJson, table } from '../lib/output.js';
import { connect } from '../lib/runs.js';
import { DEFAULT_ADAPTER_DIR, DEFAULT_STORE_URI } from '../../core/defaults.js';
import { deploySchema } from '../../core/config/schema.js';

/** deploy.timeoutMs's default: a rollback waits on the backend as long as a deploy does. */
const TIMEOUT_MS = deploySchema.shape.timeoutMs.parse(undefined);

export const rollbackCommand: Command = {
  name: 'rollback',
  summary: 'point an alias back at an earlier version (smoke-tested, recorded)',
  usage: `flywheel rollback --alias A --reason TEXT [--to VERSION] [--by NAME] [--registry PATH|URL] [--adapter-dir DIR] [--api-key-env VAR] [--timeout-ms N] [--store URI]

Runs the "rollback" workflow (id rollback-<alias>; one at a time per alias): reloads the version on its
backend if the backend forgot it, smoke-tests it, repoints the alias and records who and why. The gateway
serves the new version from the next request on.
  --alias A         the alias (deploy.alias)
  --to VERSION      a version of the alias (flywheel versions --alias A); default: the one before the current
  --reason TEXT     required; recorded in the alias history
  --by NAME         who (default: your user name)
  --registry PATH|URL the alias table (default ${DEFAULT_REGISTRY}, as seen by the worker)
  --adapter-dir DIR where adapters are materialised for the backend (default ${DEFAULT_ADAPTER_DIR})
  --api-key-env VAR worker environment variable with the backend's API key (deploy.apiKeyEnv)
  --admin-token-env VAR  worker environment variable with the local serve's admin token (deploy.adminTokenEnv;
                    default FLYWHEEL_SERVE_ADMIN_TOKEN)
  --timeout-ms N    per backend call (default ${TIMEOUT_MS}, as deploy.timeoutMs)
  --store URI       artifact store holding the adapters and probes (default $FLYWHEEL_ARTIFACTS or ${DEFAULT_STORE_URI})`,
  async run(argv) {
    const { values } = parse(argv, {
      alias: { type: 'string' },
      to: { type: 'string' },
      reason: { type: 'string' },
      by: { type: 'string' },
      registry: { type: 'string' },
      'adapter-dir': { type: 'string' },
      'api-key-env': { type: 'string' },
      'admin-token-env': { type: 'string' },
      'timeout-ms': { type: 'string' },
      store: { type: 'string' },
    });
    if (!values.alias) throw new UsageError('--alias is required');
    if (!values.reason?.trim()) throw new UsageError('--reason is required: the alias history records it');
    const input: RollbackInput = {
      alias: values.alias,
      ...(values.to ? { to: values.to } : {}),
      by: values.by ?? userInfo().username,
      reason: values.reason,
      registry: values.registry ?? DEFAULT_REGISTRY,
      ...(values['adapter-dir'] ? { adapterDir: values['adapter-dir'] } : {}),
      ...(values.store || process.env.FLYWHEEL_ARTIFACTS
        ? { store: { store: (values.store ?? process.env.FLYWHEEL_ARTIFACTS)!, s3: {} } }
        : {}),
      ...(values['api-key-env'] ? { apiKeyEnv: values['api-key-env'] } : {}),
      ...(values['admin-token-env'] ? { adminTokenEnv: values['admin-token-env'] } : {}),
      timeoutMs: intOption(values['timeout-ms'], 'timeout-ms', TIMEOUT_MS),
    };
    const client = await connect();
    try {
      const handle = await client.workflow.start<typeof rollback>('rollback', {
        taskQueue: CPU_TASK_QUEUE,
        workflowId: `rollback-${values.alias}`,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        staticSummary: `rollback ${values.alias}${values.to ? ` to ${values.to}` : ''} (by ${input.by})`,
      });
      const result = await handle.result();
      console.log(`${result.alias}: ${result.previous ?? 'none'} → ${result.version}\n  ${result.smoke}`);
      return 0;
    } finally {
      await client.connection.close();
    }
  },
};

export const versionsCommand: Command = {
  name: 'versions',
  summary: 'the versions of an alias and its history (who moved it, when, why)',
  usage: `flywheel versions --alias A [--registry PATH|URL] [--json]

Lists every version registered for the alias (newest first; * marks the one it serves) and every move of
the alias: deploys and rollbacks, with who, why and the previous version. Reads the registry directly.
  --registry PATH|URL default ${DEFAULT_REGISTRY}
  --json            {current, versions, history}`,
  async run(argv) {
    const { values } = parse(argv, {
      alias: { type: 'string' },
      registry: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const alias = values.alias;
    if (!alias) throw new UsageError('--alias is required');
    return withRegistry(values.registry ?? DEFAULT_REGISTRY, async (registry) => {
      const current = (await registry.current(alias))?.name ?? null;
      const versions = await registry.versions(alias);
      const history = await registry.history(alias);
      if (values.json) {
        printJson({ current, versions, history });
        return 0;
      }
      if (versions.length === 0) {
        console.log(`alias ${alias} has no versions in ${values.registry ?? DEFAULT_REGISTRY}`);
        return 0;
      }
      console.log(
        table(
          ['', 'version', 'adapter', 'target', 'endpoint', 'created'],
          versions.map((v) => [
            v.name === current ? '*' : '',
            v.name,
            v.adapterVersion,
            v.target,
            v.endpoint,
            v.createdAt,
          ]),
        ),
      );
      console.log(`\nhistory of ${alias}:`);
      console.log(
        table(
          ['at', 'action', 'version', 'previous', 'by', 'reason'],
          history.map((e) => [
            e.at,
            e.action,
            e.version,
            e.previous ?? '—',
            e.actor,
            e.reason.length > 80 ? `${e.reason.slice(0, 79)}…` : e.reason,
          ]),
        ),
      );
      return 0;
    });
  },
};
