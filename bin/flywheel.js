#!/usr/bin/env node
// The `flywheel` CLI. Sources are TypeScript, loaded through tsx so there is no separate build step.
import { register } from 'tsx/esm/api';

register();
// `flywheel … | head` closes the pipe early: that is the reader's choice, not a crash.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const { main } = await import('../scripts/cli.ts');
process.exitCode = await main(process.argv.slice(2));
