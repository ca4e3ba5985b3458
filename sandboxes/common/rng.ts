// The seeded PRNG lives in core/ (the dataset stages use it too); the sandboxes import it from here.
export * from '../../core/rng.js';
