/**
 * No secret where it does not belong (docs/operating.md, Security beyond localhost). One whole flywheel run with
 * every credential set to a unique marker (the teacher's API key, the serve admin token and inference key), then
 * the gateway with client keys and escalation, then the adapter published to S3 and to the Hub with their
 * credentials. Afterwards no marker may appear in the workflow histories (`temporal workflow show --output
 * json`), any file of the project (the artifact store, reports, traces, the registry, the workers', serve's and
 * the gateway's logs, GPU scratch under `.flywheel/`), the published objects, or the commands' output. The scan
 * itself is shown to find a marker planted in an artifact, plainly or base64-encoded.
 *
 * Stand-ins for what cannot run here: the teacher (helpers/openai-stand-in.ts) and the frontier model
 * (helpers/backend-stand-in.ts) for OpenAI-compatible APIs, moto for AWS S3, helpers/hub-stand-in.ts for
 * huggingface.co. The dev server, both workers (as `flywheel worker` processes), the sandbox, the trainer,
 * serve, the gateway and publish are the real ones.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { stringify } from 'yaml';
import { openStore } from '../../core/artifacts/index.js';
import { loadConfigFile } from '../../core/config/load.js';
import { startServe, type ServeProcess } from '../../core/train/serve-process.js';
import { runStatus } from '../../scripts/lib/runs.js';
import { startFrontierStandIn, type FrontierStandIn } from '../helpers/backend-stand-in.js';
import { REPO, TEMPORAL_BIN, runCli, tempDir } from '../helpers/fixtures.js';
import { startHubStandIn, type HubStandIn } from '../helpers/hub-stand-in.js';
import { startMoto, type Moto } from '../helpers/moto.js';
import { startStandIn, type StandIn } from '../helpers/openai-stand-in.js';
import { filesUnder, scanContent, scanTree, type SecretHit } from '../helpers/secret-scan.js';
import { startTemporal } from '../helpers/temporal.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);
const marker = (what: string) => `mk-${what}-${randomBytes(12).toString('hex')}`;

/** Every credential of the run, each a value that appears nowhere else. */
const SECRETS = {
  'teacher key': marker('teacher'),
  'serve admin token': marker('admin'),
  'serve inference key': marker('serve'),
  'gateway client key (env)': marker('client'),
  'gateway wrong key': marker('wrong'),
  'frontier key': marker('frontier'),
  'aws secret key': marker('aws'),
  'hub token': `hf_${marker('hub')}`, // the Hub client checks the prefix
  'revoked hub token': `hf_${marker('revoked')}`,
};
/** Where each lives: the worker's, serve's, gateway's and publish's environment, never a config value. */
const ENV = {
  ACME_TEACHER_KEY: SECRETS['teacher key'],
  ACME_SERVE_ADMIN_TOKEN: SECRETS['serve admin token'],
  ACME_SERVE_KEY: SECRETS['serve inference key'],
  FLYWHEEL_GATEWAY_KEYS: `agents=${SECRETS['gateway client key (env)']}`,
  ACME_FRONTIER_KEY: SECRETS['frontier key'],
  AWS_SECRET_ACCESS_KEY: SECRETS['aws secret key'],
  ACME_HF_TOKEN: SECRETS['hub token'],
  ACME_HF_TOKEN_REVOKED: SECRETS['revoked hub token'],
};

describe('secrets hygiene: a whole run, the gateway and publish leave no credential behind', () => {
  let env: TestWorkflowEnvironment;
  let project: string;
  let teacher: StandIn;
  let frontier: FrontierStandIn;
  let moto: Moto;
  let hub: HubStandIn;
  let serve: ServeProcess;
  const children: ChildProcess[] = [];
  /** Everything the commands printed, scanned with the files. */
  const outputs: Array<{ where: string; text: string }> = [];
  let markers: Record<string, string> = { ...SECRETS };

  /** `flywheel ARGS` as a long-running process in the project, its output appended to .flywheel/logs/NAME.log. */
  async function spawnFlywheel(
    name: string,
    args: string[],
    ready: RegExp,
    extraEnv: Record<string, string> = {},
  ): Promise<string> {
    const log = join(project, '.flywheel', 'logs', `${name}.log`);
    const fd = openSync(log, 'a');
    const p = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), ...args], {
      cwd: project,
      env: { ...process.env, ...ENV, ...extraEnv, TEMPORAL_ADDRESS: env.address },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    children.push(p);
    let match: RegExpExecArray | null = null;
    await until(
      `${name} to start`,
      () => p.exitCode === null && (match = ready.exec(readFileSync(log, 'utf8'))) !== null,
      { timeoutMs: 120_000, intervalMs: 200, diagnose: () => readFileSync(log, 'utf8').slice(-3000) },
    );
    return match![1] ?? '';
  }

  /** `flywheel ARGS` to completion in the project; its output is kept for the scan. */
  async function flywheel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = await runCli(args, { ...ENV, TEMPORAL_ADDRESS: env.address }, project);
    outputs.push({ where: `flywheel ${args.join(' ')}`, text: out.stdout + out.stderr });
    return out;
  }

  before(async () => {
    project = tempDir('flywheel-secrets-');
    mkdirSync(join(project, '.flywheel', 'logs'), { recursive: true });
    process.env.AWS_ACCESS_KEY_ID = 'AKIAFLYWHEELTEST';
    process.env.AWS_SECRET_ACCESS_KEY = ENV.AWS_SECRET_ACCESS_KEY; // moto's own client uses it too
    [env, teacher, moto, hub] = await Promise.all([
      startTemporal(),
      startStandIn(undefined, undefined, 0, SECRETS['teacher key']),
      startMoto(['models']),
      startHubStandIn(SECRETS['hub token']),
    ]);
    frontier = await startFrontierStandIn(SECRETS['frontier key'], () => ({
      content: JSON.stringify({ tool: null, verdict: 'abstain', code: 'no_tool', reason: 'nothing fits' }),
    }));
    serve = await startServe(
      [
        '--adapter-dir',
        join(project, '.flywheel', 'served'),
        '--admin-token-env',
        'ACME_SERVE_ADMIN_TOKEN',
        '--api-key-env',
        'ACME_SERVE_KEY',
      ],
      join(project, '.flywheel', 'logs', 'serve.log'),
      ENV,
    );
    await spawnFlywheel('worker', ['worker'], /worker polling task queue "flywheel"()/);
    await spawnFlywheel(
      'gpu-worker',
      ['worker', '--queue', 'flywheel-gpu'],
      /worker polling task queue "flywheel-gpu"()/,
      { FLYWHEEL_GPU_WORKDIR: join(project, '.flywheel', 'gpu') },
    );
  });
  after(async () => {
    for (const p of children) if (p.exitCode === null) process.kill(-p.pid!, 'SIGKILL');
    serve?.run.kill(1000);
    await serve?.run.done.catch(() => undefined);
    await Promise.all([teacher?.close(), frontier?.close(), hub?.close()]);
    moto?.stop();
    await env?.teardown();
  });

  it('no marker in histories, files, published objects or output; a planted one is found', async () => {
    // The operator's config names variables, never values.
    const example = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    const sandbox = {
      ...example.servers[0]!,
      stdio: {
        ...example.servers[0]!.stdio!,
        args: ['--import', 'tsx', join(REPO, 'sandboxes', 'salesforce', 'main.ts'), '--seed', '42'],
        cwd: REPO,
      },
    };
    const config = {
      version: 1,
      name: 'secrets',
      servers: [sandbox],
      artifacts: { store: 'file:.flywheel/artifacts' },
      dataset: {
        perGoal: 3,
        split: { train: 0.7, val: 0.1, test: 0.2 },
        teacher: {
          kind: 'openai',
          baseUrl: teacher.url,
          model: 'teacher-model',
          apiKeyEnv: 'ACME_TEACHER_KEY',
          concurrency: 4,
          timeoutMs: 10_000,
        },
      },
      train: {
        job: {
          baseModel: 'tiny:nano',
          optim: { epochs: 1, maxSteps: 8, effectiveBatchSize: 4, microBatchSize: 4, learningRate: 0.005 },
          checkpointEvery: 4,
          logEvery: 2,
        },
      },
      evaluate: { limit: 4, concurrency: 2 },
      gate: { margin: 1, abstentionF1Tolerance: 1 },
      deploy: {
        alias: 'router',
        endpoint: serve.url,
        registry: '.flywheel/registry.sqlite',
        adapterDir: '.flywheel/served',
        apiKeyEnv: 'ACME_SERVE_KEY',
        adminTokenEnv: 'ACME_SERVE_ADMIN_TOKEN',
      },
      gateway: {
        port: 0,
        registry: '.flywheel/registry.sqlite',
        tracesDir: '.flywheel/traces/gateway',
        keysFile: '.flywheel/gateway-keys',
        backendApiKeyEnv: 'ACME_SERVE_KEY',
        escalation: {
          baseUrl: frontier.url,
          model: 'frontier-x',
          apiKeyEnv: 'ACME_FRONTIER_KEY',
          minConfidence: 1,
          on: ['invalid', 'abstain'],
          budget: { requestsPerMinute: 100, perKey: { requestsPerMinute: 50 } },
        },
      },
    };
    const configFile = join(project, 'flywheel.yaml');
    writeFileSync(configFile, stringify(config));

    // The run, started as an operator's script would: through the CLI, on the dev server and the two workers.
    const started = await flywheel(['run', '--config', configFile, '--json']);
    assert.equal(started.code, 0, started.stderr);
    const workflowId = (JSON.parse(started.stdout) as { workflowId: string }).workflowId;
    const handle = env.client.workflow.getHandle(workflowId);
    await until('the run to finish', async () => (await handle.describe()).status.name !== 'RUNNING', {
      timeoutMs: 900_000,
      intervalMs: 1000,
      diagnose: () => readFileSync(join(project, '.flywheel', 'logs', 'worker.log'), 'utf8').slice(-3000),
    });
    const status = await runStatus(handle);
    assert.equal(
      status.stages.find((s) => s.name === 'deploy')?.state,
      'completed',
      JSON.stringify(status.stages.map((s) => `${s.name} ${s.state} ${s.detail}`)),
    );
    assert.ok(teacher.answered > 0, 'the teacher was called, with its key');

    // The gateway: a client key from `keys create` (printed once) and one from the environment.
    const created = await flywheel(['gateway', 'keys', 'create', 'ci', '--config', configFile]);
    assert.equal(created.code, 0, created.stderr);
    const printedKey = /^(\S{20,})$/m.exec(created.stdout)?.[1];
    assert.ok(printedKey, created.stdout);
    outputs.pop(); // printing the new key once is that command's job
    markers = { ...markers, 'gateway client key (created)': printedKey };
    const url = await spawnFlywheel('gateway', ['gateway', '--config', configFile], /listening on (http:\S+?),/);
    const store = openStore(`file:${join(project, '.flywheel', 'artifacts')}`);
    const split = status.stages.find((s) => s.name === 'split')!.outputs.test!;
    const requests = (await store.readJsonl<{ request: string; tools: string[] }>(split)).slice(0, 3);
    const ask = (key: string, request: string) =>
      fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          model: 'router',
          messages: [{ role: 'user', content: request }],
          metadata: { domain: 'salesforce' },
        }),
      });
    for (const [i, r] of requests.entries()) {
      const res = await ask(i % 2 ? printedKey : SECRETS['gateway client key (env)'], r.request);
      assert.equal(res.status, 200, await res.text());
    }
    const refused = await ask(SECRETS['gateway wrong key'], requests[0]!.request);
    assert.equal(refused.status, 401);
    outputs.push({ where: "the gateway's 401 answer", text: await refused.text() });
    assert.ok(
      frontier.authorizations.includes(`Bearer ${SECRETS['frontier key']}`),
      'the gateway escalated, with the frontier key',
    );

    // Publish the deployed adapter to S3 and to the Hub, credentials from the environment.
    const version = status.stages.find((s) => s.name === 'train')!.outputs.adapter!.sha256;
    const common = [
      '--config',
      configFile,
      '--store',
      'file:.flywheel/artifacts',
      '--registry',
      '.flywheel/registry.sqlite',
    ];
    const s3 = await flywheel([
      'publish',
      'adapter',
      version,
      '--to',
      's3://models/team',
      '--s3-endpoint',
      moto.endpoint,
      ...common.slice(2),
    ]);
    assert.equal(s3.code, 0, s3.stderr);
    const hf = await flywheel([
      'publish',
      'adapter',
      version,
      '--to',
      'hf://acme/router',
      '--hub-url',
      hub.url,
      '--token-env',
      'ACME_HF_TOKEN',
      ...common.slice(2),
    ]);
    assert.equal(hf.code, 0, hf.stderr);
    assert.ok(
      hub.requests.some((r) => r.auth === `Bearer ${SECRETS['hub token']}`),
      'the Hub saw the token',
    );
    // A refused token (the stand-in echoes it back): the error names the variable, and the output is scanned below.
    const revoked = await flywheel([
      'publish',
      'adapter',
      version,
      '--to',
      'hf://acme/router',
      '--hub-url',
      hub.url,
      '--token-env',
      'ACME_HF_TOKEN_REVOKED',
      ...common.slice(2),
    ]);
    assert.equal(revoked.code, 2, revoked.stdout + revoked.stderr);
    assert.match(revoked.stderr, /the Hub refused the token in ACME_HF_TOKEN_REVOKED \(401\)/);
    const report = await flywheel(['status', workflowId]);
    assert.equal(report.code, 0, report.stderr);

    // The scan.
    const hits: SecretHit[] = [];
    const listed: string[] = [];
    for await (const w of env.client.workflow.list()) {
      const { stdout } = await run(
        TEMPORAL_BIN,
        [
          'workflow',
          'show',
          '--workflow-id',
          w.workflowId,
          '--run-id',
          w.runId,
          '--output',
          'json',
          '--address',
          env.address,
        ],
        { maxBuffer: 256 * 1024 * 1024 },
      );
      listed.push(w.workflowId);
      hits.push(...scanContent(`history of ${w.workflowId}`, stdout, markers));
    }
    assert.ok(listed.includes(workflowId), "the run's own history was scanned");
    const files = filesUnder(project);
    for (const expected of [
      'flywheel.yaml',
      '.flywheel/registry.sqlite',
      '.flywheel/gateway-keys',
      '.flywheel/logs/worker.log',
      '.flywheel/logs/gpu-worker.log',
      '.flywheel/logs/serve.log',
      '.flywheel/logs/gateway.log',
    ])
      assert.ok(files.includes(expected), `${expected} was scanned (files: ${files.slice(0, 40).join(', ')})`);
    // (GPU scratch under .flywheel/gpu is scanned too when a trainer left any; a finished one removes it.)
    for (const prefix of ['.flywheel/artifacts/', '.flywheel/traces/gateway/', '.flywheel/served/'])
      assert.ok(
        files.some((f) => f.startsWith(prefix)),
        `something under ${prefix} was scanned`,
      );
    hits.push(...scanTree(project, markers));
    const objects = (await moto.client.send(new ListObjectsV2Command({ Bucket: 'models' }))).Contents ?? [];
    assert.ok(objects.length > 0, 'the S3 publication was scanned');
    for (const o of objects) {
      const body = await (
        await moto.client.send(new GetObjectCommand({ Bucket: 'models', Key: o.Key! }))
      ).Body!.transformToByteArray();
      hits.push(...scanContent(`s3://models/${o.Key}`, Buffer.from(body), markers));
    }
    for (const [repo, tree] of hub.trees)
      for (const [path, bytes] of tree) hits.push(...scanContent(`hub ${repo}/${path}`, bytes, markers));
    for (const o of outputs) hits.push(...scanContent(o.where, o.text, markers));
    assert.deepEqual(hits, [], 'no credential anywhere it does not belong');

    // The scan finds what is there: a marker planted in an artifact, as written and base64-encoded.
    const planted = await store.putJson('notes', { note: `the token is ${SECRETS['hub token']}` });
    const encoded = await store.putJson('notes', {
      payload: Buffer.from(`x${SECRETS['teacher key']}`).toString('base64'),
    });
    const found = scanTree(project, markers).map((h) => [
      h.secret,
      h.encoding,
      h.where.includes(planted.sha256) ? 'planted' : h.where.includes(encoded.sha256) ? 'encoded' : h.where,
    ]);
    assert.deepEqual(found.sort(), [
      ['hub token', 'plain', 'planted'],
      ['teacher key', 'base64', 'encoded'],
    ]);
  });
});
