import { readToolsFile, ToolsFileError } from '../catalog/tools-file.js';
import { ConfigError } from './load.js';
import type { FlywheelConfig } from './schema.js';

/**
 * The files a config names that the CLI can check before anything starts: each `servers[].tools` file is read
 * and checked as ingest will read it (relative paths against this working directory, as on a worker started
 * here). Every problem names the key, the file, the entry and the field. With `missingOk`, a file that is not on
 * this machine is left to the worker that reads it (`flywheel run` from another host).
 */
export async function checkConfigFiles(
  config: FlywheelConfig,
  source: string,
  opts: { missingOk?: boolean } = {},
): Promise<void> {
  const problems: string[] = [];
  for (const [i, server] of config.servers.entries()) {
    if (!server.tools) continue;
    try {
      await readToolsFile(server.tools);
    } catch (err) {
      if (!(err instanceof ToolsFileError)) throw err;
      if (err.missing && opts.missingOk) continue;
      problems.push(...err.problems.map((p) => `servers[${i}].tools: ${server.tools}: ${p}`));
    }
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
}
