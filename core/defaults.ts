/**
 * Where things live unless the config or a flag says otherwise, all under `.flywheel/` in the working directory.
 * Written here only: the config schema, the CLI's usage texts and the rollback workflow read them from this file
 * (which imports nothing, so workflow code may import it).
 */
export const DEFAULT_STORE_URI = 'file:.flywheel/artifacts';
/** The alias table deploy writes and the gateway reads. */
export const DEFAULT_REGISTRY = '.flywheel/registry.sqlite';
/** The worker environment variable holding the serving backend's admin token (load/unload), unless deploy.adminTokenEnv names another. */
export const DEFAULT_SERVE_ADMIN_TOKEN_ENV = 'FLYWHEEL_SERVE_ADMIN_TOKEN';
/** Gateway client keys (`name:sha256` lines) that `flywheel gateway keys create` writes and the gateway reads. */
export const DEFAULT_GATEWAY_KEYS_FILE = '.flywheel/gateway-keys';
/** The teacher's shared rate-limit buckets when `dataset.teacher.rateLimit.store` names no other store. */
export const DEFAULT_RATE_LIMIT_DB = '.flywheel/rate-limits.sqlite';
/** Where the local serving backend reads deployed adapters from. */
export const DEFAULT_ADAPTER_DIR = '.flywheel/served';
/** The gateway's decision log, one JSONL file per UTC day. */
export const DEFAULT_TRACES_DIR = '.flywheel/traces/gateway';
/** GPU workers' scratch space (datasets, checkpoints, evaluation servers' files) unless $FLYWHEEL_GPU_WORKDIR says. */
export const DEFAULT_GPU_WORKDIR = '.flywheel/gpu';
/** Where `flywheel serve` (the local serving backend) listens, and so deploy.endpoint's default. */
export const DEFAULT_SERVE_HOST = '127.0.0.1';
export const DEFAULT_SERVE_PORT = 8100;
export const DEFAULT_SERVE_ENDPOINT = `http://${DEFAULT_SERVE_HOST}:${DEFAULT_SERVE_PORT}/v1`;
