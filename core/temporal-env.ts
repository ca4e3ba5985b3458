import { readFileSync } from 'node:fs';

/**
 * Temporal connection settings from the environment, so the same code runs against the dev server,
 * a self-hosted cluster or Temporal Cloud. Secrets stay in the environment, never in workflow input.
 */
export interface TemporalEnv {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
}

/** The dev server's frontend and UI (temporal-config/dev-server.json's ports) and Temporal's own default namespace. */
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';
export const DEFAULT_TEMPORAL_UI_URL = 'http://localhost:8233';
export const DEFAULT_NAMESPACE = 'default';

export const TEMPORAL_ENV_VARS = {
  TEMPORAL_ADDRESS: `host:port of the frontend (default ${DEFAULT_TEMPORAL_ADDRESS})`,
  TEMPORAL_NAMESPACE: `namespace (default "${DEFAULT_NAMESPACE}")`,
  TEMPORAL_API_KEY: 'API key (Temporal Cloud); turns TLS on',
  TEMPORAL_TLS: '"true" to use TLS without client certificates',
  TEMPORAL_TLS_CLIENT_CERT_PATH: 'mTLS client certificate (PEM)',
  TEMPORAL_TLS_CLIENT_KEY_PATH: 'mTLS client key (PEM)',
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: 'CA certificate for the server (PEM)',
  TEMPORAL_TLS_SERVER_NAME: 'TLS server name override',
} as const;

export function temporalEnv(env: NodeJS.ProcessEnv = process.env): TemporalEnv {
  const out: TemporalEnv = {
    address: env.TEMPORAL_ADDRESS || DEFAULT_TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || DEFAULT_NAMESPACE,
  };
  if (env.TEMPORAL_API_KEY) out.apiKey = env.TEMPORAL_API_KEY;
  const certPath = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw new Error('set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, or neither');
  }
  const wantsTls =
    env.TEMPORAL_TLS === 'true' ||
    Boolean(out.apiKey) ||
    Boolean(certPath) ||
    Boolean(env.TEMPORAL_TLS_SERVER_CA_CERT_PATH);
  if (wantsTls) {
    out.tls = {
      ...(env.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME } : {}),
      ...(env.TEMPORAL_TLS_SERVER_CA_CERT_PATH
        ? { serverRootCACertificate: readFileSync(env.TEMPORAL_TLS_SERVER_CA_CERT_PATH) }
        : {}),
      ...(certPath && keyPath ? { clientCertPair: { crt: readFileSync(certPath), key: readFileSync(keyPath) } } : {}),
    };
  }
  return out;
}

/** Link to a run in the Temporal UI (dev server UI by default). */
export function uiLink(workflowId: string, runId: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = (env.TEMPORAL_UI_URL || DEFAULT_TEMPORAL_UI_URL).replace(/\/$/, '');
  const ns = encodeURIComponent(env.TEMPORAL_NAMESPACE || DEFAULT_NAMESPACE);
  return `${base}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
}
