/** The licence a published adapter's card names: the one given, else its base's where those terms bind derivatives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardLicense, DEFAULT_LICENSE } from '../../core/publish/collect.js';

describe('card licence', () => {
  it("a Gemma adapter is published under Gemma's terms; others under the given licence or 'other'", () => {
    assert.equal(cardLicense('gemma3-270m'), 'gemma');
    assert.equal(cardLicense('smollm2-135m-instruct'), DEFAULT_LICENSE, 'Apache 2.0 does not bind the adapter');
    assert.equal(cardLicense('tiny:nano'), DEFAULT_LICENSE);
    assert.equal(cardLicense('gemma3-270m', 'gemma'), 'gemma');
    assert.equal(cardLicense('Qwen/Qwen3-0.6B', 'apache-2.0'), 'apache-2.0');
  });
});
