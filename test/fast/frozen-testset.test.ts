/**
 * The demo's frozen test set, kept under test/fixtures/testsets/ as `flywheel testset export` wrote it: it reads
 * as an audited export does. It holds 5 identical repeats (the corrupt stage made those negatives twice), which an
 * import keeps once; two different rows under one id stay an error.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importTestset, TestsetError } from '../../core/dataset/testset-io.js';
import { REPO } from '../helpers/fixtures.js';

const FILE = join(REPO, 'test', 'fixtures', 'testsets', 'salesforce-oracle.jsonl');
const approvedAll = (text: string) => text.replaceAll('"approved":null', '"approved":true');

describe("the demo's frozen test set", () => {
  it('137 lines over both sandboxes; approved, they import as 132 rows, the 5 identical repeats kept once', () => {
    const text = readFileSync(FILE, 'utf8');
    assert.equal(text.trim().split('\n').length, 137);
    const { approved, repeated } = importTestset(approvedAll(text), 'jsonl', FILE);
    assert.equal(approved.length, 132);
    assert.equal(repeated, 5);
    assert.deepEqual([...new Set(approved.map((r) => r.domain))].sort(), ['oracle-ebs', 'salesforce']);
    assert.ok(approved.some((r) => r.target.tool === null) && approved.some((r) => r.target.tool !== null));
  });

  it('two different rows under one id are refused, naming the id', () => {
    const [first] = readFileSync(FILE, 'utf8').split('\n');
    const other = { ...(JSON.parse(first!) as Record<string, unknown>), request: 'something else' };
    assert.throws(
      () => importTestset(approvedAll(`${first}\n${JSON.stringify(other)}\n`), 'jsonl', FILE),
      (e: Error) => e instanceof TestsetError && /row row-\w+ appears twice, with different contents/.test(e.message),
    );
  });
});
