import { Connection } from '@temporalio/client';

import { temporalEnv } from '../../core/temporal-env.js';
import { DEFAULT_GPU_WORKDIR } from '../../core/defaults.js';
import { closeAllConnections } from '../../activities/connections.js';
import { connectWorker } from '../../workers/connection.js';
import { CPU_TASK_QUEUE, createCpuWorker } from '../../workers/cpu.js';
import { createGpuWorker, GPU_TASK_QUEUE } from '../../workers/gpu.js';
import { visibleGpus } from '../../core/train/gpus.js';
import { loadPackFiles, workerPacks } from '../../workers/packs.js';
import { missingSearchAttributes, searchAttributeFix } from '../../workers/preflight.js';
import { intOption, parse, UsageError, type Command } from '../lib/args.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a worker for a task queue',
  usage: `flywheel worker [--queue flywheel|flywheel-gpu] [--max-activities N] [--packs FILE]...

Polls a task queue until SIGINT/SIGTERM, then finishes in-flight activities and exits (grace: 10 s on
flywheel; 30 s on flywheel-gpu, where a training is cancelled and its retry resumes from the last checkpoint).
  flywheel      workflows and CPU activities (default)
  flywheel-gpu  the train activity (spawns the Python trainer from .venv or $FLYWHEEL_PYTHON); runs one
                training at a time; scratch space in $FLYWHEEL_GPU_WORKDIR (default ${DEFAULT_GPU_WORKDIR});
                says how many GPUs it has ($FLYWHEEL_GPUS, else CUDA_VISIBLE_DEVICES, else nvidia-smi) in its
                identity and start line; a job with resources.gpus > 1 trains data-parallel on them
  --max-activities N  (flywheel) activities this worker runs at once, e.g. chunks of a row-parallel stage; each
                chunk makes up to dataset.teacher.concurrency teacher calls at a time (default: the SDK's)
  --packs FILE  (flywheel) a module (.ts or .js) exporting domain packs for your own MCP servers (\`packs\`, an
                array, or a default export), repeatable; a pack for a server replaces the shipped one. Every
                CPU worker on the queue needs the same packs (docs/your-own-mcp-servers.md).
More workers on more machines share the same queue: see docs/operating.md, Many workers.
Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* (see docs/cli.md).`,
  async run(argv) {
    const { values } = parse(argv, {
      queue: { type: 'string', default: CPU_TASK_QUEUE },
      'max-activities': { type: 'string' },
      packs: { type: 'string', multiple: true },
    });
    const maxActivities =
      values['max-activities'] === undefined ? undefined : intOption(values['max-activities'], 'max-activities', 1);
    if (values.queue !== CPU_TASK_QUEUE && values.queue !== GPU_TASK_QUEUE)
      throw new UsageError(`unknown queue "${values.queue}" (expected ${CPU_TASK_QUEUE} or ${GPU_TASK_QUEUE})`);

    const packFiles = values.packs ?? [];
    if (packFiles.length && values.queue !== CPU_TASK_QUEUE)
      throw new UsageError(`--packs is for the ${CPU_TASK_QUEUE} queue, whose dataset stages read packs`);
    const packs = workerPacks(await loadPackFiles(packFiles));

    const env = temporalEnv();
    const client = await Connection.connect({
      address: env.address,
      ...(env.tls ? { tls: env.tls } : {}),
      ...(env.apiKey ? { apiKey: env.apiKey } : {}),
    });
    const missing = await missingSearchAttributes(client, env.namespace);
    await client.close();
    if (missing.length > 0) {
      console.error(
        `namespace "${env.namespace}" lacks search attributes ${missing.join(', ')}; create them with:\n${searchAttributeFix(missing, env.namespace)}`,
      );
      return 2;
    }
    const { connection, namespace } = await connectWorker();
    const gpus = values.queue === GPU_TASK_QUEUE ? visibleGpus() : undefined;
    const worker =
      gpus !== undefined
        ? await createGpuWorker({ connection, namespace, gpus })
        : await createCpuWorker({ connection, namespace, packs, ...(maxActivities ? { maxActivities } : {}) });
    console.error(
      `worker polling task queue "${values.queue}" on ${env.address} (namespace ${namespace}), pid ${process.pid}${gpus !== undefined ? `, ${gpus} GPU(s)` : ''}${packFiles.length ? `, packs for ${packs.map((p) => p.server).join(', ')}` : ''}`,
    );
    try {
      await worker.run();
    } finally {
      await closeAllConnections();
      await connection.close();
    }
    console.error('worker stopped');
    return 0;
  },
};
