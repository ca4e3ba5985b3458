/**
 * The fast tier stays fast: no test under test/fast may start a Temporal dev server, a sandbox or MCP server
 * process, the trainer or `serve`, or the S3 stand-in. Those belong in test/integration (docs/tests.md).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/fixtures.js';

/** What starts one of those processes, as the tests import or call it. */
const SLOW = [
  /helpers\/(temporal|sandbox|moto|tiny-adapter)\.js/,
  /core\/train\/(serve|trainer)-process\.js/,
  /TestWorkflowEnvironment|Worker\.create\(|StdioClientTransport|startFlywheel|runCli\(/,
];

describe('test tiers', () => {
  it('test/fast holds no test that starts a dev server, sandbox, trainer or S3 stand-in', () => {
    const dir = join(REPO, 'test', 'fast');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts') && f !== 'tiers.test.ts') // its patterns would match themselves
      .flatMap((f) =>
        SLOW.filter((re) => re.test(readFileSync(join(dir, f), 'utf8'))).map((re) => `${f}: ${re.source}`),
      );
    assert.deepEqual(offenders, [], 'move these to test/integration');
  });

  it('every test file is in a tier folder', () => {
    const loose = readdirSync(join(REPO, 'test')).filter((f) => f.endsWith('.test.ts'));
    assert.deepEqual(loose, [], 'put them in test/fast or test/integration');
  });
});
