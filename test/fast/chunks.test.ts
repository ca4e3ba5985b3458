/** Chunk ranges of row-parallel stages and how their stats merge (core/pipeline/chunks.ts, workflows/contract/table.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sumStats } from '../../core/pipeline/chunks.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import type { Intent } from '../../core/dataset/types.js';
import { chunkRanges } from '../../workflows/contract/table.js';

describe('chunks', () => {
  it('cover every row once, in order, the last one shorter', () => {
    assert.deepEqual(chunkRanges(7, 3), [
      { from: 0, to: 3 },
      { from: 3, to: 6 },
      { from: 6, to: 7 },
    ]);
    assert.deepEqual(chunkRanges(6, 3), [
      { from: 0, to: 3 },
      { from: 3, to: 6 },
    ]);
    assert.deepEqual(chunkRanges(0, 3), []);
    assert.throws(() => chunkRanges(5, 0), /positive integer/);
  });

  it('sum their stats: numbers add up, objects merge, names must agree', () => {
    const a = { requests: 3, teacher: 'template', byTool: { x: 1, y: 2 } };
    const b = { requests: 2, teacher: 'template', byTool: { y: 1, z: 4 } };
    assert.deepEqual(sumStats([a, b]), { requests: 5, teacher: 'template', byTool: { x: 1, y: 3, z: 4 } });
    assert.throws(() => sumStats([a, { teacher: 'openai:m' }]), /disagree on teacher/);
  });

  it('a chunk of the template teacher drafts exactly what the whole run drafts for its rows', async () => {
    const intent = (i: number, domain: string): Intent =>
      ({
        id: `i${i}`,
        domain,
        tool: `${domain}/t`,
        arguments: { n: i },
        slots: { n: String(i) },
        phrasings: ['do {n}', 'please do {n} now'],
        persona: { name: 'clerk', scopes: [] },
      }) as unknown as Intent;
    const intents = Array.from({ length: 40 }, (_, i) => intent(i, i % 2 ? 'crm' : 'erp'));
    const teacher = templateTeacher(7);
    const whole = await teacher.generate(intents);
    const chunked = (await Promise.all(chunkRanges(intents.length, 6).map((r) => teacher.generate(intents, r)))).flat();
    assert.deepEqual(chunked, whole);
    // Multi-turn drafts take earlier turns from other intents, which a chunk still sees.
    assert.ok(
      whole.some((d) => d.context),
      'some drafts are multi-turn',
    );
  });
});
