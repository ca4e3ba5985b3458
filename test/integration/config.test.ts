import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfigFile, parseConfig, parseConfigText } from '../../core/config/index.js';
import { REPO, runCli, tempDir } from '../helpers/fixtures.js';

const base = {
  version: 1,
  name: 'demo',
  servers: [{ name: 'crm', stdio: { command: 'node', args: ['server.js'] } }],
};

function problems(raw: unknown): string[] {
  try {
    parseConfig(raw, 'cfg.yaml');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /^cfg\.yaml: invalid config/);
    return err.problems;
  }
  assert.fail('config was accepted');
}

describe('config', () => {
  it('fills defaults for a minimal config', () => {
    const c = parseConfig(base);
    assert.equal(c.artifacts.store, 'file:.flywheel/artifacts');
    assert.equal(c.catalog.maxPages, 100);
    assert.equal(c.servers[0]!.timeoutMs, 30_000);
    assert.deepEqual(c.servers[0]!.stdio!.env, {});
  });

  it('the embedded default example is valid', async () => {
    const c = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
    assert.equal(c.name, 'salesforce-oracle');
  });

  const cases: Array<[string, unknown, RegExp]> = [
    ['typo at the top', { ...base, catalgo: {} }, /^catalgo: unknown key$/],
    [
      'typo deep inside',
      { ...base, servers: [{ name: 'crm', stdio: { comand: 'node' } }] },
      /^servers\[0\]\.stdio\.comand: unknown key$/,
    ],
    [
      'both transports',
      { ...base, servers: [{ name: 'crm', stdio: { command: 'x' }, http: { url: 'http://h' } }] },
      /^servers\[0\]: set exactly one of "stdio", "http" or "tools"$/,
    ],
    ['no transport', { ...base, servers: [{ name: 'crm' }] }, /^servers\[0\]: set exactly one/],
    ['wrong type', { ...base, catalog: { maxPages: 'ten' } }, /^catalog\.maxPages: /],
    ['bad name', { ...base, name: 'Bad Name' }, /^name: use lowercase/],
    ['no servers', { ...base, servers: [] }, /^servers: at least one MCP server/],
    [
      'duplicate server names',
      { ...base, servers: [base.servers[0], base.servers[0]] },
      /^servers: server names must be unique$/,
    ],
    ['non-http url', { ...base, servers: [{ name: 'crm', http: { url: 'ftp://x' } }] }, /^servers\[0\]\.http\.url: /],
    [
      'token itself instead of a variable name',
      { ...base, servers: [{ name: 'crm', http: { url: 'http://h', bearerTokenEnv: 'sk-123' } }] },
      /^servers\[0\]\.http\.bearerTokenEnv: an environment variable name$/,
    ],
    ['missing version', { name: 'x', servers: base.servers }, /^version: /],
    ['a train section without a dataset', { ...base, train: {} }, /^train: train needs a dataset section/],
    [
      'a LoRA rank the study does not allow',
      { ...base, dataset: {}, train: { job: { baseModel: 'tiny:nano', lora: { rank: 12 } } } },
      /^train\.job\.lora\.rank: must be equal to one of the allowed values$/,
    ],
    [
      'a typo in the train job',
      { ...base, dataset: {}, train: { job: { baseModel: 'tiny:nano', optim: { epocs: 2 } } } },
      /^train\.job\.optim\.epocs: unknown key$/,
    ],
    [
      'a run-owned key in the train job',
      { ...base, dataset: {}, train: { job: { baseModel: 'tiny:nano', outputDir: '/x' } } },
      /^train\.job\.outputDir: is set by the run, not the config$/,
    ],
    [
      'DPO as the train job (it is the preference section)',
      {
        ...base,
        dataset: {},
        train: { job: { baseModel: 'tiny:nano', method: 'dpo', preference: { startFrom: '/adapters/sft' } } },
      },
      /^train\.job\.method: train\.job is the SFT pass \(lora, qlora or full\); preference tuning after it is the config's `preference` section$/,
    ],
    [
      'a preference section without train: DPO has no adapter to start from',
      { ...base, dataset: {}, preference: {} },
      /^preference: preference needs a train section: DPO continues its adapter$/,
    ],
    [
      'a starting adapter of its own in preference.job',
      { ...base, dataset: {}, train: {}, preference: { job: { preference: { startFrom: '/adapters/other' } } } },
      /^preference\.job\.preference: is set by the run, not the config$/,
    ],
    [
      "a typo in preference.job's optim",
      { ...base, dataset: {}, train: {}, preference: { job: { optim: { epocs: 2 } } } },
      /^preference\.job\.optim\.epocs: unknown key$/,
    ],
    ['a beta of 0', { ...base, dataset: {}, train: {}, preference: { beta: 0 } }, /^preference\.beta: /],
    [
      'DPO after a full fine-tune (it continues a LoRA adapter)',
      { ...base, dataset: {}, train: { job: { baseModel: 'tiny:nano', method: 'full' } }, preference: {} },
      /^preference: DPO continues a LoRA adapter/,
    ],
  ];
  for (const [what, raw, expected] of cases) {
    it(`rejects ${what}, naming the key path`, () => {
      const found = problems(raw);
      assert.ok(
        found.some((p) => expected.test(p)),
        `expected ${expected} in ${JSON.stringify(found)}`,
      );
    });
  }

  it('reports YAML syntax errors with line and column', () => {
    assert.throws(
      () => parseConfigText('version: 1\nname: [unclosed\n', 'bad.yaml'),
      (e: ConfigError) => /bad\.yaml/.test(e.message) && /line \d+, column \d+/.test(e.problems[0]!),
    );
  });

  it('reports duplicate keys', () => {
    assert.throws(() => parseConfigText('version: 1\nversion: 1\n', 'dup.yaml'), /dup\.yaml/);
  });

  it('names an unreadable file', async () => {
    await assert.rejects(
      loadConfigFile('/nonexistent/flywheel.yaml'),
      /\/nonexistent\/flywheel\.yaml: invalid config\n {2}- cannot read file/,
    );
  });

  it('flywheel config check: exit 0 when valid, 2 naming the key path of a typo', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.yaml');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(good, 'version: 1\nname: demo\nservers:\n  - name: crm\n    stdio: { command: node }\n');
    writeFileSync(
      bad,
      'version: 1\nname: demo\nservers:\n  - name: crm\n    stdio: { command: node }\n    timeoutMS: 5\n',
    );
    const ok = await runCli(['config', 'check', good]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /ok/);
    const ko = await runCli(['config', 'check', bad]);
    assert.equal(ko.code, 2);
    assert.match(ko.stderr, /bad\.yaml: invalid config/);
    assert.match(ko.stderr, /servers\[0\]\.timeoutMS: unknown key/);
    const usage = await runCli(['config', 'chek', good]);
    assert.equal(usage.code, 2);
  });
});
