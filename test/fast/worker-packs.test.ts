/**
 * A user's domain packs, as `flywheel worker --packs FILE` loads them (workers/packs.ts): a usable pack replaces
 * the shipped one for its server; anything wrong fails naming the file, the pack and the field.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadPackFiles, PackFileError, SHIPPED_PACKS, workerPacks } from '../../workers/packs.js';
import { REPO, tempDir } from '../helpers/fixtures.js';

const USER_PACK = join(REPO, 'test', 'fixtures', 'packs', 'salesforce-pack.ts');

/** A pack module in a temp dir, from the JavaScript of its `packs` array. */
function packFile(body: string): string {
  const file = join(tempDir(), 'pack.mjs');
  writeFileSync(file, `export const packs = ${body};\n`);
  return file;
}

const goal = `{ id: 'g', tool: 't', phrasings: ['do it'], draw: () => undefined }`;
const pack = (over: string) =>
  `[{ server: 's', version: '1', goals: [${goal}], personas: [], unsatisfiable: [], probes: () => [], ${over} }]`;

describe('worker packs', () => {
  it("loads a user's pack, which replaces the shipped pack for its server and leaves the others", async () => {
    const loaded = await loadPackFiles([USER_PACK]);
    assert.deepEqual(
      loaded.map((p) => [p.server, p.version]),
      [['salesforce-sandbox', '1']],
    );
    const packs = workerPacks(loaded);
    const servers = packs.map((p) => p.server).sort();
    assert.deepEqual(servers, SHIPPED_PACKS.map((p) => p.server).sort());
    assert.equal(
      packs.find((p) => p.server === 'salesforce-sandbox'),
      loaded[0],
    );
    assert.ok(
      SHIPPED_PACKS.every((p) => p.version === undefined),
      'shipped packs change with the stage versions',
    );
  });

  it('names the file, the pack and each bad field', async () => {
    const cases: Array<[string, RegExp]> = [
      [pack(`version: undefined`), /pack s:\n {2}- version: expected a string/],
      [pack(`goals: [{ id: 'g', tool: 't', phrasings: [] }]`), /goals\[0\]\.phrasings: .*\n {2}- goals\[0\]\.draw:/],
      [pack(`personas: [{ name: 'p' }]`), /personas\[0\]: expected \{ name: string, scopes: string\[\] \}/],
      [pack(`probes: []`), /probes: expected a function/],
      [`[{ goals: 1 }]`, /pack #0:\n {2}- server: .*\n {2}- version: .*\n {2}- goals: expected an array/],
    ];
    for (const [body, message] of cases) {
      const file = packFile(body);
      await assert.rejects(loadPackFiles([file]), (err: Error) => {
        assert.ok(err instanceof PackFileError, String(err));
        assert.ok(err.message.startsWith(`${file}: `), err.message);
        assert.match(err.message, message);
        return true;
      });
    }
  });

  it('refuses a missing file, a module without packs, and two packs for one server', async () => {
    await assert.rejects(loadPackFiles(['no/such/pack.mjs']), /no\/such\/pack\.mjs: no such pack file/);
    const empty = join(tempDir(), 'empty.mjs');
    writeFileSync(empty, 'export const other = 1;\n');
    await assert.rejects(loadPackFiles([empty]), /exports no pack/);
    const broken = join(tempDir(), 'broken.mjs');
    writeFileSync(broken, 'export const packs = [;\n');
    await assert.rejects(loadPackFiles([broken]), /broken\.mjs: cannot be loaded/);
    const first = packFile(pack(''));
    const second = packFile(pack(''));
    await assert.rejects(
      loadPackFiles([first, second]),
      new RegExp(`a second pack for server s \\(the first is in ${first}\\)`),
    );
  });

  it('`flywheel worker --packs` stops at start on a bad pack file, before it connects to anything', () => {
    const bad = packFile(pack(`version: undefined`));
    const run = spawnSync('node', [join(REPO, 'bin', 'flywheel.js'), 'worker', '--packs', bad], {
      encoding: 'utf8',
      env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, // nothing listens there: it must not get that far
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /pack s:\n {2}- version: expected a string/);
  });
});
