import { loadConfigFile } from '../../core/config/load.js';
import type { FlywheelConfig } from '../../core/config/schema.js';
import { openStore } from '../../core/artifacts/index.js';
import { catalogHistory } from '../../core/catalog/history.js';
import type { Catalog } from '../../core/catalog/types.js';
import { toolScopes } from '../../core/scope-guard.js';
import { gatewaySchema, type GatewayConfig } from '../../core/config/schema.js';
import { startGateway } from '../../gateway/server.js';
import { parse, UsageError, type Command } from '../lib/args.js';
import { DEFAULT_GATEWAY_KEYS_FILE, DEFAULT_REGISTRY, DEFAULT_TRACES_DIR } from '../../core/defaults.js';
import { existsSync } from 'node:fs';
import { createClientKey, GATEWAY_KEYS_ENV } from '../../gateway/client-keys.js';

function portOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--port must be an integer 0-65535 (0 picks a free port), got "${value}"`);
  return n;
}

const GATEWAY_DEFAULTS = gatewaySchema.parse({});

export const gatewayCommand: Command = {
  name: 'gateway',
  summary: 'serve the deployed router aliases (OpenAI-compatible), escalate unsure decisions, log traces',
  usage: `flywheel gateway [--config FILE] [--host H] [--port N] [--registry PATH|URL] [--traces-dir DIR] [--keys-file FILE]
       flywheel gateway keys create NAME [--keys-file FILE | --config FILE]

An OpenAI-compatible server in front of the deployed router versions:
  POST /v1/chat/completions   model = an alias (its current version, looked up on every request) or a
                              pinned version alias@…; forwarded to the version's backend
  GET  /v1/models             one entry per alias, with its current version
  GET  /health
Unsure decisions (low confidence, or the rules in escalation.on) go to the escalation model when the config
has gateway.escalation. With --config, a call its caller lacks scopes for (the scopes the project's newest
catalog declares for the tool, read at start) is answered as the missing_scope violation; the caller is
gateway.render.caller, or without render the Caller: line of the prompt (rendered already, as the router read it).
Every decision is appended to DIR/gateway-YYYY-MM-DD.jsonl as an OpenAI-format
trace; a traces: source naming DIR feeds them back into the flywheel.

--config FILE      take options from the file's gateway: section (without one: defaults, and deploy.registry)
--host H           listen address (default ${GATEWAY_DEFAULTS.host})
--port N           listen port; 0 picks a free one (default ${GATEWAY_DEFAULTS.port})
--registry PATH|URL the alias table deploy writes: a SQLite file (default ${DEFAULT_REGISTRY}) or a
                   postgresql://user@host/db URL without a password (PGPASSWORD holds it)
--traces-dir DIR   where decisions are logged (default ${DEFAULT_TRACES_DIR})
--keys-file FILE   client keys, name:sha256 lines (default gateway.keysFile, else ${DEFAULT_GATEWAY_KEYS_FILE} when it
                   exists); with any key there or in ${GATEWAY_KEYS_ENV} (name=key,...) every request needs
                   Authorization: Bearer <key>, and the key's name goes into the decision log. The file is re-read
                   when it changes: add the new key, move callers over, delete the old line. A non-loopback --host
                   without keys is refused unless gateway.allowAnonymous is true.
--otel-endpoint URL export each decision as an OpenTelemetry GenAI span over OTLP/HTTP to URL/v1/traces (default
                   gateway.otel.endpoint; none: no spans)
--otel-capture-content put the messages and tool definitions on the spans (off by default, as the GenAI
                   convention asks); a collector's file exporter then writes what a traces: source reads back
keys create NAME   a new client key: its hash is appended to the keys file, the key is printed once
Flags override the config file. Ctrl-C (SIGINT) or SIGTERM stops it cleanly.`,
  async run(argv) {
    if (argv[0] === 'keys') return keysCommand(argv.slice(1));
    const { values } = parse(argv, {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      registry: { type: 'string' },
      'traces-dir': { type: 'string' },
      'keys-file': { type: 'string' },
      'otel-endpoint': { type: 'string' },
      'otel-capture-content': { type: 'boolean' },
    });
    const file = values.config ? await loadConfigFile(values.config) : undefined;
    // Without a gateway: section the config's deploy.registry is still the alias table to read.
    const base: GatewayConfig =
      file?.gateway ?? gatewaySchema.parse(file?.deploy ? { registry: file.deploy.registry } : {});
    // The router sees as many tools per request as it was trained with.
    if (base.render && base.render.sliceSize === undefined && file?.dataset)
      base.render = { ...base.render, sliceSize: file.dataset.sliceSize };
    const port = portOption(values.port);
    const cfg: GatewayConfig = {
      ...base,
      ...(values.host ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(values.registry ? { registry: values.registry } : {}),
      ...(values['traces-dir'] ? { tracesDir: values['traces-dir'] } : {}),
    };
    if (values['otel-endpoint'])
      cfg.otel = gatewaySchema.shape.otel.unwrap().parse({ ...cfg.otel, endpoint: values['otel-endpoint'] });
    if (values['otel-capture-content']) {
      if (!cfg.otel) throw new UsageError('--otel-capture-content needs --otel-endpoint or gateway.otel.endpoint');
      cfg.otel = { ...cfg.otel, captureContent: true };
    }
    const keysFile =
      values['keys-file'] ??
      cfg.keysFile ??
      (existsSync(DEFAULT_GATEWAY_KEYS_FILE) ? DEFAULT_GATEWAY_KEYS_FILE : undefined);
    if (keysFile) cfg.keysFile = keysFile;
    const toolScopes = file ? await projectToolScopes(file) : undefined;
    const gateway = await startGateway(cfg, {
      log: (line) => console.error(line),
      ...(toolScopes ? { toolScopes } : {}),
    });
    const aliases = await gateway.aliases();
    const serving = aliases.length ? aliases.map((a) => `${a.alias} (${a.version})`).join(', ') : 'no aliases yet';
    console.log(
      `flywheel gateway listening on ${gateway.url}, serving ${serving}${cfg.escalation ? `; escalating to ${cfg.escalation.model}` : ''}`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await gateway.close();
    console.error('flywheel gateway stopped');
    return 0;
  },
};

/**
 * Required scopes by tool name from the project's newest catalog (read once, at start), for the scope check;
 * undefined, with a line saying so, before any catalog was ingested.
 */
async function projectToolScopes(file: FlywheelConfig): Promise<Record<string, string[]> | undefined> {
  const store = openStore(file.artifacts.store, file.artifacts.s3);
  const head = (await catalogHistory(store, file.name)).at(-1);
  if (!head) {
    console.error(
      `scope check off: project ${file.name} has no catalog in ${file.artifacts.store} yet (run the flywheel once)`,
    );
    return undefined;
  }
  const catalog = await store.readJson<Catalog>(await store.resolve(head.sha256));
  console.error(`scope check on: the caller's scopes against ${catalog.tools.length} tools of catalog ${head.version}`);
  return toolScopes(catalog.tools);
}

/** `flywheel gateway keys create NAME`: the key is printed once, on stdout; only its hash is kept. */
async function keysCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { config: { type: 'string' }, 'keys-file': { type: 'string' } }, true);
  if (positionals[0] !== 'create' || positionals.length !== 2)
    throw new UsageError('expected: flywheel gateway keys create NAME [--keys-file FILE | --config FILE]');
  const file = values.config ? await loadConfigFile(values.config) : undefined;
  const keysFile = values['keys-file'] ?? file?.gateway?.keysFile ?? DEFAULT_GATEWAY_KEYS_FILE;
  const key = createClientKey(keysFile, positionals[1]!);
  console.error(`key ${positionals[1]} added to ${keysFile}; it is shown once, here:`);
  console.log(key);
  return 0;
}
