import { Connection } from '@temporalio/client';

import { temporalEnv } from '../../core/temporal-env.js';
import { closeAllConnections } from '../../activities/connections.js';
import { connectWorker } from '../../workers/connection.js';
import { CPU_TASK_QUEUE, createCpuWorker } from '../../workers/cpu.js';
import { GPU_TASK_QUEUE } from '../../workers/gpu.js';
import { missingSearchAttributes, searchAttributeFix } from '../../workers/preflight.js';
import { parse, UsageError, type Command } from '../lib/args.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a worker for a task queue',
  usage: `flywheel worker [--queue flywheel|flywheel-gpu]

Polls a task queue until SIGINT/SIGTERM, then finishes in-flight activities (10 s grace) and exits.
  flywheel      workflows and CPU activities (default)
  flywheel-gpu  train/evaluate/serve activities; none exist in this build yet
Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* (see README).`,
  async run(argv) {
    const { values } = parse(argv, { queue: { type: 'string', default: CPU_TASK_QUEUE } });
    if (values.queue === GPU_TASK_QUEUE) {
      console.error(`the ${GPU_TASK_QUEUE} queue has no activities in this build yet (the trainer adds them); nothing to run`);
      return 2;
    }
    if (values.queue !== CPU_TASK_QUEUE) throw new UsageError(`unknown queue "${values.queue}" (expected ${CPU_TASK_QUEUE} or ${GPU_TASK_QUEUE})`);

    const env = temporalEnv();
    const client = await Connection.connect({ address: env.address, ...(env.tls ? { tls: env.tls } : {}), ...(env.apiKey ? { apiKey: env.apiKey } : {}) });
    const missing = await missingSearchAttributes(client, env.namespace);
    await client.close();
    if (missing.length > 0) {
      console.error(`namespace "${env.namespace}" lacks search attributes ${missing.join(', ')}; create them with:\n${searchAttributeFix(missing, env.namespace)}`);
      return 2;
    }
    const { connection, namespace } = await connectWorker();
    const worker = await createCpuWorker({ connection, namespace });
    console.error(`worker polling task queue "${CPU_TASK_QUEUE}" on ${env.address} (namespace ${namespace}), pid ${process.pid}`);
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
