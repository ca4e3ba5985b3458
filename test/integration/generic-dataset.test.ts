/**
 * The generic dataset path, the pure parts: personas derived from scopes, unsatisfiable asks derived from a
 * catalog, packs matched by server identity (not config name), generic goals (entity keys from real values,
 * trial feedback), teacher agreement, the coverage table and the rule codes of server refusals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import type { CatalogTool } from '../../core/catalog/types.js';
import { parseConfig } from '../../core/config/load.js';
import { toolCoverage } from '../../core/dataset/coverage.js';
import { OPERATORS, ruleCode } from '../../core/dataset/corrupt.js';
import { genericGoal } from '../../core/dataset/generic/goals.js';
import { derivePersonas } from '../../core/dataset/generic/personas.js';
import { deriveUnsatisfiable } from '../../core/dataset/generic/unsatisfiable.js';
import { buildIntents, disagreement } from '../../core/dataset/pipeline.js';
import { domainPersonas } from '../../core/dataset/personas.js';
import type { Goal, Intent } from '../../core/dataset/types.js';
import { harvestResult } from '../../core/probe/harvest.js';
import type { HarvestedPools } from '../../core/probe/types.js';
import { Rng } from '../../core/rng.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';

const t = (name: string, extra: Partial<CatalogTool> = {}): CatalogTool => ({
  id: `crm/${name}`,
  server: 'crm',
  name,
  inputSchema: { type: 'object' },
  scopes: [],
  ...extra,
});
const dataset = parseConfig({
  version: 1,
  name: 't',
  servers: [{ name: 'x', http: { url: 'http://127.0.0.1:1/mcp' } }],
  dataset: { seed: 1, perGoal: 4, minPerTool: 8 },
}).dataset!;

describe('personas from scopes', () => {
  it('one user when no tool declares scopes', () => {
    assert.deepEqual(derivePersonas('wiki', [t('search'), t('edit')]), [
      { name: 'wiki-user', domain: 'wiki', scopes: [] },
    ]);
  });
  it('admin, viewer and one per write scope', () => {
    const tools = [
      t('get', { scopes: ['r'], annotations: { readOnlyHint: true } }),
      t('put', { scopes: ['w'] }),
      t('drop', { scopes: ['admin'] }),
    ];
    const ps = derivePersonas('crm', tools);
    assert.deepEqual(
      ps.map((p) => [p.name, p.scopes]),
      [
        ['crm-admin', ['admin', 'r', 'w']],
        ['crm-viewer', ['r']],
        ['crm-admin-user', ['admin', 'r']],
        ['crm-w-user', ['r', 'w']],
      ],
    );
    assert.equal(new Set(ps.map((p) => p.name)).size, ps.length, 'names are unique');
  });
});

describe('unsatisfiable asks from the catalog', () => {
  it("names the catalog's objects, and drops asks the catalog may serve", () => {
    const asks = deriveUnsatisfiable([
      t('get_invoice'),
      t('list_invoices'),
      t('send_email', { description: 'Send an email to a customer' }),
    ]);
    assert.ok(
      asks.some((a) => /invoice/.test(a)),
      asks.join(' | '),
    );
    assert.ok(!asks.some((a) => /^Email /.test(a)), 'the catalog can email: no email asks');
    assert.ok(asks.some((a) => /flight/.test(a)));
  });
});

describe("requests for tools the catalog lacks (natural phrasing's asks)", () => {
  const tools = [
    t('get_exchange_rate', { description: 'Retrieve the current exchange rate between two currencies.' }),
    t('calculate_projectile_range', { description: 'Calculate the range of a projectile launched at an angle.' }),
    t('get_player_stats', { description: "Fetch a basketball player's season statistics." }),
  ];
  const plain = deriveUnsatisfiable(tools);
  const natural = deriveUnsatisfiable(tools, { otherTools: { seed: 7 } });
  const others = natural.filter((a) => !plain.includes(a));

  it('reads like requests to everyday tools, values filled in, only when asked for', () => {
    assert.deepEqual(deriveUnsatisfiable(tools), plain, 'described phrasing keeps its asks as they were');
    assert.ok(others.length >= 10, others.join(' | '));
    assert.ok(
      others.some((a) => /weather|forecast/i.test(a)),
      `a weather request beside tools that know nothing of weather: ${others.join(' | ')}`,
    );
    for (const a of others) assert.doesNotMatch(a, /[{}]/, `every slot filled: ${a}`);
    assert.ok(
      plain.every((a) => natural.includes(a)),
      'every far and near ask is still there',
    );
  });

  it('drops a request whose tool the catalog may be (its key words in any tool)', () => {
    // The catalog converts currencies and knows sports statistics: no such request is an unsatisfiable ask here.
    assert.ok(!others.some((a) => /currenc|exchange|\bscores?\b|\bteam\b/i.test(a)), others.join(' | '));
  });

  it('never outnumbers the far and near asks, and mixes both kinds from the start', () => {
    assert.ok(others.length <= plain.length, `${others.length} requests against ${plain.length} asks`);
    const head = natural.slice(0, 6);
    assert.ok(head.some((a) => plain.includes(a)) && head.some((a) => others.includes(a)), head.join(' | '));
  });

  it('is deterministic for the seed, and another seed draws other values', () => {
    assert.deepEqual(deriveUnsatisfiable(tools, { otherTools: { seed: 7 } }), natural);
    assert.notDeepEqual(deriveUnsatisfiable(tools, { otherTools: { seed: 8 } }), natural);
  });

  it('joins the unsatisfiable intents of a natural-phrasing dataset only', async () => {
    const catalog = buildCatalog('c', [
      { server: 'fx', pages: 1, tools: tools.map(({ id: _i, server: _s, scopes: _c, ...raw }) => raw) },
    ]);
    const asked = async (phrasing: 'description' | 'natural') =>
      (await buildIntents(catalog, { ...dataset, perGoal: 24, phrasing }, {})).intents
        .filter((i) => i.tool === null)
        .map((i) => i.phrasings[0]!);
    const isOther = (a: string) => !plain.includes(a) && /weather|email|calendar|remind/i.test(a);
    assert.ok(!(await asked('description')).some(isOther));
    assert.ok((await asked('natural')).some(isOther), (await asked('natural')).join(' | '));
  });
});

describe('domain packs are matched by server identity', () => {
  it('a sandbox configured as "crm" gets the Salesforce pack\'s personas on the crm domain', () => {
    const catalog = buildCatalog('c', [
      { server: 'crm', serverInfo: { name: 'salesforce-sandbox', version: '1' }, pages: 1, tools: [] },
      { server: 'wiki', serverInfo: { name: 'some-wiki', version: '1' }, pages: 1, tools: [] },
    ]);
    const ps = domainPersonas(catalog, dataset, DOMAIN_PACKS);
    assert.ok(ps.some((p) => p.name === 'sales-rep' && p.domain === 'crm'));
    assert.deepEqual(
      ps.filter((p) => p.domain === 'wiki').map((p) => p.name),
      ['wiki-user'],
    );
  });
});

describe('generic goals', () => {
  const tool = t('open_nodes', {
    inputSchema: {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1 } },
      required: ['names'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  });
  const pools: HarvestedPools = {};
  harvestResult(
    pools,
    {
      content: [
        { type: 'text', text: JSON.stringify({ entities: ['Ada', 'Bo', 'Cy', 'Di'].map((name) => ({ name })) }) },
      ],
    },
    'read_graph',
    1,
  );

  it('draws real values, keys entities by them, and phrases the request with every value', () => {
    const goal = genericGoal('crm', tool, pools, 1) as Goal;
    const rng = new Rng(1);
    const draws = Array.from({ length: 20 }, () => goal.draw({}, rng)!);
    const real = draws.filter((d) => ['Ada', 'Bo', 'Cy', 'Di'].includes((d.arguments.names as string[])[0]!));
    assert.ok(real.length >= 12, `${real.length} of 20 draws used a harvested name`);
    for (const d of real) assert.deepEqual(d.entities, [`crm:entities[].name:${(d.arguments.names as string[])[0]}`]);
    for (const d of draws)
      assert.ok(d.phrasings!.length >= 6 && d.phrasings!.every((p) => p.includes('{')), 'phrasings carry slots');
  });

  it('stops offering values a trial call refused', () => {
    const goal = genericGoal('crm', tool, pools, 1) as Goal;
    goal.feedback!({ names: ['Ada'] }, false);
    goal.feedback!({ names: ['Bo'] }, false);
    const rng = new Rng(2);
    const used = new Set(Array.from({ length: 40 }, () => (goal.draw({}, rng)!.arguments.names as string[])[0]));
    assert.ok(!used.has('Ada') && !used.has('Bo'), [...used].join(', '));
  });

  it('an unsampleable schema is a skip with the reason, and buildIntents goes on with the other tools', async () => {
    const bad = t('lookup', {
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 1 } }, required: ['n'] },
    });
    const skip = genericGoal('crm', bad, {}, 1);
    assert.ok('skip' in skip && /cannot sample arguments: .*n/.test(skip.skip), JSON.stringify(skip));
    const catalog = buildCatalog('c', [
      { server: 'crm', pages: 1, tools: [bad, tool].map(({ id: _i, server: _s, scopes: _c, ...raw }) => raw) },
    ]);
    const { intents, stats } = await buildIntents(catalog, dataset, {});
    assert.match(stats.tools['crm/lookup']!.skipped!, /cannot sample arguments/);
    assert.ok(intents.some((i) => i.tool === 'open_nodes'));
    assert.ok(
      intents.some((i) => i.tool === null),
      'derived unsatisfiable asks join',
    );
  });
});

describe('teacher agreement', () => {
  const intent = { id: 'i', domain: 'crm', tool: 'get', arguments: { id: 'a' } } as unknown as Intent;
  const cases: Array<[string, Intent, unknown, boolean]> = [
    ['same call', intent, { tool: 'get', arguments: { id: 'a' } }, true],
    ['other tool', intent, { tool: 'put', arguments: { id: 'a' } }, false],
    ['other arguments', intent, { tool: 'get', arguments: { id: 'b' } }, false],
    ['abstains where a call is meant', intent, { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' }, false],
    ['calls where no tool fits', { ...intent, tool: null }, { tool: 'get', arguments: {} }, false],
    [
      'abstains where no tool fits',
      { ...intent, tool: null },
      { tool: null, verdict: 'abstain', code: 'no_tool', reason: '' },
      true,
    ],
  ];
  for (const [name, i, target, agrees] of cases)
    it(name, () =>
      assert.equal(
        disagreement(i, { intentId: 'i', request: 'r', teacher: 'x', target } as never) === undefined,
        agrees,
      ),
    );
});

describe('coverage and rule codes', () => {
  it('counts per tool and says why a tool has no data', () => {
    const catalog = buildCatalog('c', [
      {
        server: 'crm',
        pages: 1,
        tools: [
          { name: 'a', inputSchema: { type: 'object' } },
          { name: 'b', inputSchema: { type: 'object' } },
          { name: 'c', inputSchema: { type: 'object' } },
          { name: 'bad', inputSchema: { type: 'string' } },
        ],
      },
    ]);
    const intents = [
      { id: 'i1', domain: 'crm', tool: 'a' },
      { id: 'i2', domain: 'crm', tool: 'b' },
    ] as Intent[];
    const rows = [
      { domain: 'crm', target: { tool: 'a', arguments: {} }, provenance: { checkedBy: 'execute' } },
    ] as never;
    const rejections = [
      { intentId: 'i2', reason: 'call_failed', detail: 'boom', request: '', target: { tool: 'b', arguments: {} } },
    ] as never;
    const cov = toolCoverage(
      catalog,
      { 'crm/c': { source: 'generic', intents: 0, skipped: 'cannot sample arguments: x' } },
      intents,
      rows,
      rejections,
    );
    const by = Object.fromEntries(cov.map((c) => [c.tool, c]));
    assert.deepEqual([by['crm/a']!.valid, by['crm/a']!.checkedBy], [1, { execute: 1 }]);
    assert.equal(by['crm/b']!.noData, 'every candidate rejected (call_failed 1)');
    assert.equal(by['crm/c']!.noData, 'cannot sample arguments: x');
    assert.match(by['crm/bad']!.noData!, /quarantined at ingest/);
  });
  it('server_refusal leaves a value alone that names what another offered tool does', () => {
    const stage = t('change_opportunity_stage', {
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, stageName: { type: 'string', enum: ['Proposal', 'Closed Won'] } },
        required: ['id', 'stageName'],
      },
    });
    const close = t('close_opportunity');
    const op = OPERATORS.find((o) => o.name === 'server_refusal')!;
    const row = {
      id: 'r',
      domain: 'crm',
      entities: ['crm:x'],
      request: 'Move 006A to Proposal',
      persona: { name: 'p', scopes: [] },
      tools: ['change_opportunity_stage', 'close_opportunity'],
      target: { tool: 'change_opportunity_stage', arguments: { id: '006A', stageName: 'Proposal' } },
      provenance: { source: 'generated' as const },
    };
    const ctx = { tools: [stage, close], personas: [], pools: {}, sliceSize: 8, rng: new Rng(1), callable: () => true };
    assert.equal(
      op.apply(row, ctx),
      undefined,
      '"Closed Won" beside close_opportunity is that tool\'s job, not a violation',
    );
    const alone = op.apply({ ...row, tools: ['change_opportunity_stage'] }, ctx);
    assert.equal((alone!.provenance.negativeCall!.arguments as { stageName: string }).stageName, 'Closed Won');
    assert.equal(alone!.request, 'Move 006A to Closed Won');
  });
  it('maps server codes to router codes by their words', () => {
    assert.equal(ruleCode('POLICY_LIMIT_EXCEEDED'), 'policy_violation');
    assert.equal(ruleCode('INVALID_STATUS_TRANSITION'), 'invalid_transition');
    assert.equal(ruleCode('PERIOD_CLOSED'), 'rule_violation');
  });
});
