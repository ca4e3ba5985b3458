/**
 * Traffic for turning the flywheel (core/flywheel/traffic.ts): requests people sent, split by a seed into a held-out
 * slice that is never sent, a validation slice (the escalation threshold), a gate slice and the turns' batches.
 * Written before the code it checks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitTraffic, type TrafficSizes } from '../../core/flywheel/traffic.js';

const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, text: `request number ${i}` }));
const SIZES: TrafficSizes = { heldOut: 10, validation: 5, gate: 5, batches: 3, batchSize: 10 };

describe('traffic split', () => {
  it('every slice has its size and no request is in two of them', () => {
    const s = splitTraffic(requests(80), SIZES, 'seed-1');
    assert.equal(s.heldOut.length, 10);
    assert.equal(s.validation.length, 5);
    assert.equal(s.gate.length, 5);
    assert.deepEqual(
      s.batches.map((b) => b.length),
      [10, 10, 10],
    );
    const all = [s.heldOut, s.validation, s.gate, ...s.batches].flat();
    assert.equal(new Set(all).size, all.length);
    assert.equal(s.unused, 80 - all.length);
  });

  it('is the same for the same seed and different for another', () => {
    assert.deepEqual(splitTraffic(requests(80), SIZES, 'a'), splitTraffic(requests(80), SIZES, 'a'));
    assert.notDeepEqual(splitTraffic(requests(80), SIZES, 'a').heldOut, splitTraffic(requests(80), SIZES, 'b').heldOut);
  });

  it('does not depend on the input order', () => {
    const shuffled = [...requests(80)].reverse();
    assert.deepEqual(splitTraffic(shuffled, SIZES, 'a'), splitTraffic(requests(80), SIZES, 'a'));
  });

  it('keeps the held-out slice when the batches change size', () => {
    const small = splitTraffic(requests(80), SIZES, 'a');
    const large = splitTraffic(requests(80), { ...SIZES, batchSize: 15 }, 'a');
    assert.deepEqual(large.heldOut, small.heldOut);
  });

  it('one text sent twice counts once: the same request can never be both sent and held out', () => {
    const twice = [
      ...requests(60),
      { id: 'dup-a', text: 'What is the weather in Lisbon?' },
      { id: 'dup-b', text: '  what is the WEATHER in lisbon? ' },
    ];
    const s = splitTraffic(twice, SIZES, 'a');
    assert.equal(s.duplicates, 1);
    const placed = [s.heldOut, s.validation, s.gate, ...s.batches].flat();
    assert.ok(!(placed.includes('dup-a') && placed.includes('dup-b')));
  });

  it('names what is missing when there are too few distinct requests', () => {
    assert.throws(
      () => splitTraffic(requests(30), SIZES, 'a'),
      /30 distinct requests; the split needs 50 \(held out 10, validation 5, gate 5, 3 batches of 10\)/,
    );
  });

  it('refuses an id given twice and a size that is not a whole number', () => {
    assert.throws(
      () =>
        splitTraffic(
          [
            { id: 'x', text: 'a' },
            { id: 'x', text: 'b' },
          ],
          SIZES,
          'a',
        ),
      /request id x is given twice/,
    );
    assert.throws(() => splitTraffic(requests(80), { ...SIZES, batches: 1.5 }, 'a'), /batches/);
  });
});
