import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { temporalEnv } from '../core/temporal-env.js';

function options() {
  const env = temporalEnv();
  return {
    env,
    opts: {
      address: env.address,
      ...(env.tls ? { tls: env.tls } : {}),
      ...(env.apiKey ? { apiKey: env.apiKey } : {}),
    },
  };
}

/** Worker-side connection (Rust core), configured from TEMPORAL_* environment variables. */
export async function connectWorker(): Promise<{ connection: NativeConnection; namespace: string }> {
  const { env, opts } = options();
  return { connection: await NativeConnection.connect(opts), namespace: env.namespace };
}

/** Client-side connection, configured the same way. `connectTimeout` bounds the first contact. */
export async function connectClient(connectTimeoutMs = 10_000): Promise<{ connection: Connection; namespace: string }> {
  const { env, opts } = options();
  return {
    connection: await Connection.connect({ ...opts, connectTimeout: connectTimeoutMs }),
    namespace: env.namespace,
  };
}
