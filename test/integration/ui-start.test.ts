/**
 * The Temporal UI's "Start Workflow" path, end to end on the demo config: `temporal workflow start --type
 * flywheelRun --task-queue flywheel --input-file temporal-config/inputs/flywheel-run.demo.json` (the CLI sends
 * the same StartWorkflowExecution request the UI does) runs examples/salesforce-oracle.yaml through every stage,
 * deploy included, on a real dev server with real CPU and GPU workers and the real local serving backend.
 * The workers run in a scratch directory that links to the repo's examples, sandboxes and packages, so the
 * config's relative paths (.flywheel/…) land there and a developer's own .flywheel is left alone.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { loadConfigFile } from '../../core/config/load.js';
import { withRegistry } from '../../core/deploy/registry.js';
import { startServe, type ServeProcess } from '../../core/train/serve-process.js';
import { REPO, TEMPORAL_BIN, TINY_OPTIM, tempDir } from '../helpers/fixtures.js';
import { runResult, startFlywheel, type Flywheel } from '../helpers/temporal.js';

const INPUT = 'temporal-config/inputs/flywheel-run.demo.json';

describe('starting flywheelRun the way the Temporal UI does', () => {
  let flywheel: Flywheel;
  let serve: ServeProcess;
  let work: string;

  before(async () => {
    work = tempDir('flywheel-ui-start-');
    for (const entry of ['sandboxes', 'node_modules', 'temporal-config', 'package.json'])
      symlinkSync(join(REPO, entry), join(work, entry));
    // The demo config as the UI input names it, with a tiny model: what is under test is the start from the UI
    // (input file, config path, every stage through deploy), not the ~10 minutes of training the real base. A
    // tiny base and a tiny candidate both score noise against each other, so the gate's margins let it through.
    mkdirSync(join(work, 'examples'));
    const demo = readFileSync(join(REPO, 'examples', 'salesforce-oracle.yaml'), 'utf8');
    const tiny = demo
      .replace(/^ {4}baseModel: .*$/m, '    baseModel: tiny:nano')
      .replace(/^ {4}lora: .*\n/m, '')
      .replace(/^ {4}optim: .*$/m, `    optim: ${JSON.stringify(TINY_OPTIM)}`)
      .replace(/^ {2}margin: .*$/m, '  margin: 1')
      .replace(/^ {2}abstentionF1Tolerance: .*$/m, '  abstentionF1Tolerance: 1');
    assert.notEqual(tiny, demo);
    assert.match(tiny, /baseModel: tiny:nano[\s\S]*margin: 1\n[\s\S]*abstentionF1Tolerance: 1\n/);
    writeFileSync(join(work, 'examples', 'salesforce-oracle.yaml'), tiny);
    process.chdir(work);
    const config = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    const port = new URL(config.deploy!.endpoint).port;
    const busy = await fetch(`${config.deploy!.endpoint}/models`, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    assert.equal(
      busy,
      false,
      `port ${port} already answers (a "make demo" serving backend?): stop it, the demo config deploys there`,
    );
    serve = await startServe(['--port', port], join(work, 'serve.log'));
    flywheel = await startFlywheel();
  });
  after(async () => {
    await flywheel?.stop();
    serve?.run.kill(1000);
    await serve?.run.done.catch(() => undefined);
    process.chdir(REPO);
  });

  it(
    'temporal workflow start --input-file … completes the demo config, deploy included',
    { timeout: 900_000 },
    async () => {
      const { env } = flywheel;
      await promisify(execFile)(
        TEMPORAL_BIN,
        [
          'workflow',
          'start',
          '--address',
          env.address,
          '--type',
          'flywheelRun',
          '--task-queue',
          'flywheel',
          '--workflow-id',
          'ui-demo',
          '--input-file',
          INPUT,
        ],
        { cwd: work },
      );
      const handle = env.client.workflow.getHandle('ui-demo');
      const result = await runResult(handle);
      assert.equal(result.state, 'completed');
      assert.equal(result.trigger, 'ui');
      assert.equal(result.project, 'salesforce-oracle');
      const stages = Object.fromEntries(result.stages.map((s) => [s.name, s.state]));
      assert.deepEqual(Object.keys(stages), [
        'ingest',
        'intents',
        'generate',
        'solve',
        'validate',
        'corrupt',
        'split',
        'render',
        'train',
        'evaluate',
        'gate',
        'deploy',
      ]);
      for (const [name, state] of Object.entries(stages))
        assert.equal(state, 'completed', `${name}: ${result.stages.find((s) => s.name === name)!.detail}`);
      // The alias moved in the registry the demo config names, under the scratch directory.
      const current = await withRegistry(
        join(work, '.flywheel', 'registry.sqlite'),
        async (r) => await r.current('router'),
      );
      assert.match(current?.name ?? '', /^router@[0-9a-f]{8}-[0-9a-f]{8}$/);
      assert.equal(current?.runId, 'ui-demo');
    },
  );
});
