/** The generated reference docs match the code they are generated from (scripts/docs/reference.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REFERENCE_FILES } from '../../scripts/docs/reference.js';
import { REPO } from '../helpers/fixtures.js';

describe('generated reference docs', () => {
  for (const [file, make] of Object.entries(REFERENCE_FILES)) {
    it(`${file} is current`, () => {
      assert.equal(
        readFileSync(join(REPO, file), 'utf8'),
        make(),
        `${file} is stale: run node --import tsx scripts/docs/reference.ts`,
      );
    });
  }
});
