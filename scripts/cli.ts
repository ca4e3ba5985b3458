import { InputError } from '../core/errors.js';
import { UsageError, type Command } from './lib/args.js';
import { artifactsCommand } from './commands/artifacts.js';
import { catalogCommand } from './commands/catalog.js';
import { configCommand } from './commands/config.js';
import { demoCommand } from './commands/demo.js';
import { devServerCommand } from './commands/dev-server.js';
import { runCommand } from './commands/run.js';
import { runsCommand, statusCommand } from './commands/status.js';
import { workerCommand } from './commands/worker.js';
import { tracesCommand } from './commands/traces.js';
import { datasetCommand } from './commands/dataset.js';
import { testsetCommand } from './commands/testset.js';
import { evalCommand } from './commands/eval.js';
import { approveCommand, rejectCommand } from './commands/approve.js';
import { rollbackCommand, versionsCommand } from './commands/rollback.js';
import { serveCommand } from './commands/serve.js';
import { gatewayCommand } from './commands/gateway.js';
import { scheduleCommand } from './commands/schedule.js';
import { lineageCommand } from './commands/lineage.js';
import { gcCommand } from './commands/gc.js';
import { publishCommand } from './commands/publish.js';

export const COMMANDS: Command[] = [
  devServerCommand,
  workerCommand,
  runCommand,
  statusCommand,
  runsCommand,
  catalogCommand,
  tracesCommand,
  datasetCommand,
  testsetCommand,
  evalCommand,
  serveCommand,
  gatewayCommand,
  approveCommand,
  rejectCommand,
  rollbackCommand,
  versionsCommand,
  scheduleCommand,
  lineageCommand,
  publishCommand,
  gcCommand,
  configCommand,
  artifactsCommand,
  demoCommand,
];

export function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `flywheel — MCP tool catalog + agent traces -> small fine-tuned tool-router model

usage: flywheel COMMAND [options]    (flywheel COMMAND --help for details)

${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Exit codes: 0 success, 2 bad input (usage, config, a file, a row, an artifact: no retry can fix it), 1 runtime failure.`;
}

/** Run one CLI invocation; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`flywheel: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`flywheel ${name}: ${err.message}\n(see "flywheel ${name} --help")`);
      return 2;
    }
    // Bad input of any kind (config, file, row, artifact, job): its message names what, and exit 2 says so.
    if (err instanceof InputError) {
      console.error(err.message);
      return 2;
    }
    console.error(`flywheel ${name}: ${(err as Error).message ?? String(err)}`);
    if (process.env.FLYWHEEL_DEBUG) console.error(err);
    return 1;
  }
}
