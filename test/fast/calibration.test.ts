/**
 * Calibration of the router's confidence (core/eval/calibration.ts): reliability bins, the expected calibration
 * error, and the threshold that keeps a target precision. Every figure below is worked by hand from the ten points.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  calibrationOf,
  expectedCalibrationError,
  reliabilityBins,
  thresholdForPrecision,
} from '../../core/eval/calibration.js';

const T = true;
const F = false;
const TEN = [
  [0.95, T],
  [0.9, T],
  [0.85, F],
  [0.8, T],
  [0.6, T],
  [0.55, F],
  [0.3, F],
  [0.2, T],
  [0.1, F],
  [0.05, F],
].map(([confidence, correct]) => ({ confidence: confidence as number, correct: correct as boolean }));

const near = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

describe('calibration', () => {
  it('bins confidences in equal-width bins, 1.0 in the last', () => {
    const bins = reliabilityBins([...TEN, { confidence: 1, correct: true }], 5);
    assert.deepEqual(
      bins.map((b) => [b.lo, b.hi, b.count]),
      [
        [0, 0.2, 2],
        [0.2, 0.4, 2],
        [0.4, 0.6, 1],
        [0.6, 0.8, 1],
        [0.8, 1, 5],
      ],
    );
    near(bins[0]!.meanConfidence, 0.075);
    near(bins[0]!.accuracy, 0);
    near(bins[1]!.accuracy, 0.5);
    near(bins[4]!.accuracy, 0.8);
  });

  it('leaves an empty bin without a mean or an accuracy', () => {
    const bins = reliabilityBins([{ confidence: 0.9, correct: true }], 2);
    assert.deepEqual(bins[0], { lo: 0, hi: 0.5, count: 0, meanConfidence: null, accuracy: null });
  });

  it('expected calibration error: the count-weighted gap between accuracy and confidence', () => {
    near(expectedCalibrationError(reliabilityBins(TEN, 5)), 0.21);
    assert.equal(expectedCalibrationError(reliabilityBins([], 5)), null);
  });

  it('the threshold keeps the most answers whose precision reaches the target', () => {
    assert.deepEqual(thresholdForPrecision(TEN, 0.75), { threshold: 0.6, precision: 0.8, kept: 5, coverage: 0.5 });
    assert.deepEqual(thresholdForPrecision(TEN, 0.9), { threshold: 0.9, precision: 1, kept: 2, coverage: 0.2 });
    assert.deepEqual(thresholdForPrecision(TEN, 0.5), { threshold: 0.05, precision: 0.5, kept: 10, coverage: 1 });
  });

  it('ties are kept or escalated together', () => {
    const tied = [
      { confidence: 0.7, correct: true },
      { confidence: 0.7, correct: false },
      { confidence: 0.9, correct: true },
    ];
    assert.equal(thresholdForPrecision(tied, 0.8)?.threshold, 0.9);
    assert.equal(thresholdForPrecision(tied, 0.6)?.threshold, 0.7);
  });

  it('no threshold when none reaches the target, or there is nothing to keep', () => {
    assert.equal(
      thresholdForPrecision(
        TEN.filter((p) => p.confidence < 0.9),
        0.95,
      ),
      null,
    );
    assert.equal(thresholdForPrecision([], 0.5), null);
    assert.equal(thresholdForPrecision([{ confidence: 0.9, correct: false }], 0.5), null);
  });

  it('rejects a confidence outside [0, 1] and a bin count below 1', () => {
    assert.throws(() => reliabilityBins([{ confidence: 1.2, correct: true }], 5), /confidence 1\.2/);
    assert.throws(() => reliabilityBins(TEN, 0), /bins/);
    assert.throws(() => thresholdForPrecision(TEN, Number.NaN), /target/);
    assert.throws(() => thresholdForPrecision(TEN, 1.01), /target/);
  });
});

describe('calibration of scored cases', () => {
  it('counts cases without a confidence apart and scores exact match', () => {
    const cases = [
      ...TEN.map((p) => ({ confidence: p.confidence, exact: p.correct })),
      { confidence: null, exact: false },
    ];
    const c = calibrationOf(cases, { targetPrecision: 0.75, bins: 5 })!;
    assert.equal(c.cases, 10);
    assert.equal(c.withoutConfidence, 1);
    near(c.expectedCalibrationError, 0.21);
    assert.equal(c.threshold?.threshold, 0.6);
  });

  it('the setting is the shortest decimal that keeps the same decisions', () => {
    const near1 = [
      { confidence: 0.9999993, exact: true },
      { confidence: 0.99, exact: false },
      { confidence: 0.5, exact: false },
    ];
    const c = calibrationOf(near1, { targetPrecision: 0.9, bins: 10 })!;
    assert.equal(c.threshold?.threshold, 0.9999993);
    assert.equal(c.setting, 0.999, 'not 1.000, which would escalate it too; not 0.99, which would keep the wrong one');
    assert.equal(
      calibrationOf(
        TEN.map((p) => ({ confidence: p.confidence, exact: p.correct })),
        { targetPrecision: 0.75, bins: 5 },
      )!.setting,
      0.6,
    );
  });

  it('is absent when the cases were scored without logprobs', () => {
    assert.equal(calibrationOf([{ exact: true }], { targetPrecision: 0.9, bins: 10 }), undefined);
  });
});
