import { loadConfigFile, parseConfig } from '../core/config/load.js';
import { openStore } from '../core/artifacts/index.js';
import type { FlywheelConfig } from '../core/config/schema.js';
import { parseRunInput } from '../core/pipeline/input.js';
import type { FlywheelRunInput, ResolvedConfig } from '../core/pipeline/types.js';
import { canonicalJson } from '../core/hash.js';
import { failFast } from './errors.js';
import { storeFor } from './store.js';

/** The config's trace sources plus the input's, each once (a stored config may already hold them). */
function withTraces(configured: FlywheelConfig['traces'], extra: FlywheelConfig['traces']): FlywheelConfig['traces'] {
  const seen = new Set(configured.map((t) => canonicalJson(t)));
  return [...configured, ...extra.filter((t) => !seen.has(canonicalJson(t)))];
}

/**
 * Validate the run's input and config (inline, path or stored), add the input's trace sources, and store the
 * result, so resume reads exactly the same config.
 */
export async function resolveConfig(raw: FlywheelRunInput): Promise<ResolvedConfig> {
  return failFast(async () => {
    const input = parseRunInput(raw);
    let config: FlywheelConfig;
    if (input.configPath !== undefined) config = await loadConfigFile(input.configPath);
    else if (input.configRef !== undefined) {
      const stored = await openStore(input.configStore).readJson(input.configRef);
      config = parseConfig(stored, `stored config ${input.configRef.sha256.slice(0, 12)}`);
    } else config = parseConfig(input.config, 'workflow input "config"');
    if (input.traces?.length)
      config = parseConfig(
        { ...config, traces: withTraces(config.traces, input.traces) },
        "config with the input's traces",
      );
    const configRef = await storeFor(config.artifacts).putJson('config', config);
    return { config, configRef };
  });
}
