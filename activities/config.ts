import { loadConfigFile, parseConfig, ConfigError } from '../core/config/load.js';
import { openStore } from '../core/artifacts/index.js';
import type { FlywheelConfig } from '../core/config/schema.js';
import type { FlywheelRunInput, ResolvedConfig } from '../core/pipeline/types.js';
import { failFast } from './errors.js';
import { storeFor } from './store.js';

/** Validate the run's config (inline, path or stored) and store it, so resume can read the exact same one. */
export async function resolveConfig(input: FlywheelRunInput): Promise<ResolvedConfig> {
  return failFast(async () => {
    const given = [input.config, input.configPath, input.configRef].filter((v) => v !== undefined).length;
    if (given !== 1) {
      throw new ConfigError('workflow input', [`set exactly one of "config", "configPath" or "configRef" (got ${given})`]);
    }
    let config: FlywheelConfig;
    if (input.configPath !== undefined) config = await loadConfigFile(input.configPath);
    else if (input.configRef !== undefined) {
      const raw = await openStore(input.configStore).readJson(input.configRef);
      config = parseConfig(raw, `stored config ${input.configRef.sha256.slice(0, 12)}`);
    } else config = parseConfig(input.config, 'workflow input "config"');
    const configRef = await storeFor(config.artifacts).putJson('config', config);
    return { config, configRef };
  });
}
