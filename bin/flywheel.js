#!/usr/bin/env node
// The `flywheel` CLI. Sources are TypeScript, loaded through tsx so there is no separate build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../scripts/cli.ts');
process.exitCode = await main(process.argv.slice(2));
