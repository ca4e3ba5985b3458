/** The flywheelRun input contract (schema file, validation) and the retrain decision, without Temporal. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ConfigError, parseConfig } from '../../core/config/load.js';
import { parseRunInput, runInputJsonSchema } from '../../core/pipeline/input.js';
import { requestHash, workflowIdForRun } from '../../core/pipeline/run-id.js';
import { decideRetrain, type Watermark } from '../../core/traces/watermark.js';
import { REPO } from '../helpers/fixtures.js';

const SCHEMA_FILE = join(REPO, 'temporal-config', 'flywheel-run-input.schema.json');

function problems(raw: unknown): string[] {
  try {
    parseRunInput(raw);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  return [];
}

describe('flywheelRun input contract', () => {
  it('the shipped JSON Schema is the one generated from the input schema', () => {
    assert.deepEqual(
      JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')),
      runInputJsonSchema(),
      'regenerate temporal-config/flywheel-run-input.schema.json',
    );
  });

  it('the example input an operator pastes into the UI passes the schema and the workflow check', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
    const demo = JSON.parse(readFileSync(join(REPO, 'temporal-config', 'inputs', 'flywheel-run.demo.json'), 'utf8'));
    assert.ok(validate(demo), JSON.stringify(validate.errors));
    assert.deepEqual(parseRunInput(demo), demo);
    const script = {
      configPath: 'examples/salesforce-oracle.yaml',
      traces: ['s3://traces/2026-11-30/'],
      reason: 'new traces',
      idempotencyKey: 'traces-2026-11-30',
      trigger: 'script:etl',
    };
    assert.ok(validate(script), JSON.stringify(validate.errors));
    assert.equal(validate({ configPath: 'a', config: {} }), false, 'two config sources');
    assert.equal(validate({ configPath: 'a', idempotencyKey: 'has space' }), false);
  });

  it('bad input names each field', () => {
    assert.deepEqual(problems({}), ['(input): set exactly one of "config", "configPath" or "configRef"']);
    const bad = problems({ configPath: 'x', idempotencyKey: 'no spaces please', traces: [7], colour: 'red' });
    assert.ok(
      bad.some((p) => p.startsWith('idempotencyKey:')),
      bad.join('\n'),
    );
    assert.ok(
      bad.some((p) => p.startsWith('traces.0:')),
      bad.join('\n'),
    );
    assert.ok(
      bad.some((p) => /colour/.test(p)),
      bad.join('\n'),
    );
  });

  it('a reused key is judged on the request, not on who started it or why', () => {
    const base = { configPath: 'c.yaml', traces: ['s3://t/a/'], idempotencyKey: 'k' };
    assert.equal(
      requestHash({ ...base, trigger: 'cli', reason: 'first try' }),
      requestHash({ ...base, trigger: 'script:etl', reason: 'retry' }),
    );
    assert.notEqual(requestHash(base), requestHash({ ...base, traces: ['s3://t/b/'] }));
    assert.notEqual(requestHash(base), requestHash({ ...base, force: true }));
  });

  it('workflow ids: by key (colon-separated, so projects never collide), by request when it adds traces or force', () => {
    const cfg = parseConfig({ version: 1, name: 'sales', servers: [{ name: 's', stdio: { command: 'x' } }] }, 'c.yaml');
    const eu = parseConfig({ ...cfg, name: 'sales-eu' }, 'c.yaml');
    assert.equal(workflowIdForRun(cfg, { idempotencyKey: 'eu-1' }), 'flywheel-sales:eu-1');
    assert.notEqual(workflowIdForRun(cfg, { idempotencyKey: 'eu-1' }), workflowIdForRun(eu, { idempotencyKey: '1' }));
    const bare = workflowIdForRun(cfg, {});
    assert.notEqual(
      workflowIdForRun(cfg, { traces: ['s3://t/a/'] }),
      bare,
      'a start with extra traces never attaches to a bare run',
    );
    assert.notEqual(workflowIdForRun(cfg, { force: true }), bare);
  });

  it('retrain needs traces and a train section', () => {
    const cfg = {
      version: 1,
      name: 'p',
      servers: [{ name: 's', stdio: { command: 'x' } }],
      dataset: {},
      retrain: { minNewTraceRows: 5 },
    };
    assert.throws(() => parseConfig(cfg, 'c.yaml'), /retrain: retrain needs traces and a train section/);
    assert.equal(parseConfig({ ...cfg, traces: ['t/'], train: {} }, 'c.yaml').retrain?.minNewTraceRows, 5);
  });
});

describe('retrain decision', () => {
  const mark: Watermark = {
    runId: 'r1',
    workflowId: 'w',
    at: '2026-11-29T02:00:00Z',
    catalogVersion: 'cat-1',
    seen: { uri: 'file:///x', sha256: 'a'.repeat(64), kind: 'trace-watermark', count: 3, bytes: 1 },
    rows: 3,
  };
  const decide = (rowIds: string[], over: Partial<Parameters<typeof decideRetrain>[0]> = {}) =>
    decideRetrain({
      rowIds,
      watermark: mark,
      watermarkIds: ['a', 'b', 'c'],
      catalogVersion: 'cat-1',
      policy: { minNewTraceRows: 2 },
      force: false,
      ...over,
    });

  it('counts distinct rows beyond the watermark against the threshold', () => {
    assert.deepEqual(decide(['a', 'b', 'c', 'd']), {
      train: false,
      newRows: 1,
      totalRows: 4,
      since: { runId: 'r1', at: mark.at, catalogVersion: 'cat-1' },
      reason: 'not enough new data: 1 new trace row of 4 since run r1 (2026-11-29T02:00:00Z), need 2',
    });
    assert.equal(decide(['a', 'd', 'd']).train, false, 'a duplicated row counts once');
    assert.equal(decide(['a', 'b', 'c', 'd', 'e']).train, true);
    assert.equal(decide(['d', 'e']).newRows, 2, 'rows no longer present do not matter');
  });

  it('trains regardless when there is no watermark, the catalog changed, or the input forces it', () => {
    assert.match(decide([], { watermark: undefined, watermarkIds: [] }).reason, /no watermark yet/);
    const changed = decide(['a'], { catalogVersion: 'cat-2' });
    assert.equal(changed.train, true);
    assert.match(changed.reason, /catalog changed cat-1 -> cat-2/);
    assert.match(decide(['a'], { force: true }).reason, /forced/);
    assert.equal(decide(['a'], { policy: { minNewTraceRows: 0 } }).train, true, 'a threshold of 0 always trains');
  });
});
