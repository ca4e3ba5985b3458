import { checkConfigFiles } from '../../core/config/files.js';
import { loadConfigFile } from '../../core/config/load.js';
import { workflowIdFor } from '../../core/pipeline/run-id.js';
import { parse, UsageError, type Command } from '../lib/args.js';

export const configCommand: Command = {
  name: 'config',
  summary: 'check a config file',
  usage: `flywheel config check FILE

Validate a flywheel config (YAML or JSON). Unknown keys are errors. Every problem is printed with the
file and the key path, e.g. "servers[0].stdio.comand: unknown key". Each servers[].tools file is read and
checked as ingest reads it (relative to this directory); its problems name the entry and the field.
Exit codes: 0 valid, 2 invalid or unreadable.`,
  async run(argv) {
    const { positionals } = parse(argv, {}, true);
    const [verb, file, ...rest] = positionals;
    if (verb !== 'check' || !file || rest.length > 0) throw new UsageError('expected: flywheel config check FILE');
    const config = await loadConfigFile(file);
    await checkConfigFiles(config, file);
    const files = config.servers.filter((s) => s.tools).length;
    console.log(
      `${file}: ok — project "${config.name}", ${config.servers.length - files} MCP server(s)${files ? `, ${files} tools file(s)` : ''}, store ${config.artifacts.store}`,
    );
    console.log(`workflow id: ${workflowIdFor(config)}`);
    return 0;
  },
};
