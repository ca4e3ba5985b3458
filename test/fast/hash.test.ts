import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, hashOf } from '../../core/hash.js';
import { stageKey } from '../../core/pipeline/memo.js';

describe('canonical JSON and stage keys', () => {
  it('sorts keys at every depth and drops undefined', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } }),
      '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });
  it('rejects numbers JSON cannot hold', () => {
    assert.throws(() => canonicalJson({ x: Number.NaN }), /not representable/);
  });
  it('hashes equal values equally', () => {
    assert.equal(hashOf({ a: 1, b: 2 }), hashOf({ b: 2, a: 1 }));
    assert.notEqual(hashOf({ a: 1 }), hashOf({ a: 2 }));
  });
  it('a stage key changes with inputs, config section and stage version, and only those', () => {
    const ref = { uri: 'u', sha256: 'a'.repeat(64), kind: 'k', count: 1, bytes: 1 };
    const k = stageKey({ stage: 's', version: '1', inputs: [ref], config: { x: 1 } });
    assert.equal(k, stageKey({ stage: 's', version: '1', inputs: [{ ...ref, uri: 'elsewhere' }], config: { x: 1 } }));
    assert.notEqual(k, stageKey({ stage: 's', version: '2', inputs: [ref], config: { x: 1 } }));
    assert.notEqual(
      k,
      stageKey({ stage: 's', version: '1', inputs: [{ ...ref, sha256: 'b'.repeat(64) }], config: { x: 1 } }),
    );
    assert.notEqual(k, stageKey({ stage: 's', version: '1', inputs: [ref], config: { x: 2 } }));
  });
});

describe('canonical JSON fast path', () => {
  it('gives the same bytes for sorted input, unsorted input, and values needing the slow path', () => {
    const sorted = { a: [1, { b: 'x', c: null }], d: true };
    assert.equal(canonicalJson(sorted), '{"a":[1,{"b":"x","c":null}],"d":true}');
    assert.equal(canonicalJson({ d: true, a: [1, { c: null, b: 'x' }] }), canonicalJson(sorted));
    assert.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
    assert.equal(canonicalJson([undefined, 1]), '[null,1]');
    assert.equal(canonicalJson({ when: new Date(0) }), '{"when":"1970-01-01T00:00:00.000Z"}');
    assert.equal(canonicalJson({ '10': 1, '9': 2, b: 3 }), '{"10":1,"9":2,"b":3}');
    assert.throws(() => canonicalJson({ a: [Infinity] }), /not representable/);
  });
});
