import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogTool } from '../../core/catalog/types.js';
import { completionText, inOfferOrder, renderRow } from '../../core/dataset/render.js';
import { parseConfig } from '../../core/config/load.js';
import {
  balanceTrain,
  capTrain,
  entityGroups,
  entityOverlap,
  splitByEntity,
  trainingRows,
} from '../../core/dataset/split.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { hashOf } from '../../core/hash.js';

function row(i: number, entities: string[], tool: string | null = 'update_account', domain = 'salesforce'): RouterRow {
  return {
    id: `r${i}`,
    domain,
    entities,
    request: `request ${i}`,
    persona: { name: 'sales-rep', scopes: ['sf.read'] },
    tools: ['update_account', 'update_contact'],
    target: tool
      ? { tool, arguments: { accountId: `a${i}`, b: 1 } }
      : { tool: null, verdict: 'abstain', code: 'no_tool', reason: 'x' },
    provenance: { source: 'generated' },
  };
}

/** A row logged by a gateway or agent: what traceShare repeats. */
function fromTrace(i: number, tool: string | null = 'update_account'): RouterRow {
  return { ...row(i, [`t${i}`], tool), provenance: { source: 'trace' } };
}

/** A config whose dataset section is the one given. */
const configWith = (dataset: Record<string, unknown>) => ({
  version: 1,
  name: 'split',
  servers: [{ name: 'x', stdio: { command: 'x' } }],
  dataset,
});

/** 600 rows over 120 accounts; some rows also touch an opportunity shared by two accounts' rows. */
function corpus(): RouterRow[] {
  const rows: RouterRow[] = [];
  for (let i = 0; i < 600; i++) {
    const acct = `salesforce:account:${i % 120}`;
    const extra = i % 50 === 0 ? [`salesforce:opportunity:${i % 7}`] : [];
    rows.push(
      row(
        i,
        [acct, ...extra],
        i % 5 === 0 ? null : i % 3 === 0 ? 'create_case' : 'update_account',
        i % 4 === 0 ? 'oracle-ebs' : 'salesforce',
      ),
    );
  }
  return rows;
}

describe('split by entity', () => {
  it('groups rows that share any entity', () => {
    const groups = entityGroups([row(1, ['a', 'b']), row(2, ['b', 'c']), row(3, ['d']), row(4, ['c'])]);
    assert.deepEqual(groups.map((g) => g.map((r) => r.id).sort()).sort(), [['r1', 'r2', 'r4'], ['r3']]);
  });

  it('has zero entity overlap, keeps every row, and is close to the ratios', () => {
    const rows = corpus();
    const s = splitByEntity(rows, { train: 0.8, val: 0.1, test: 0.1 }, 1);
    assert.deepEqual(entityOverlap(s), []);
    assert.equal(s.train.length + s.val.length + s.test.length, rows.length);
    assert.ok(Math.abs(s.test.length / rows.length - 0.1) < 0.04, `test share ${s.test.length / rows.length}`);
    for (const domain of ['salesforce', 'oracle-ebs'])
      assert.ok(
        s.test.some((r) => r.domain === domain),
        `${domain} is in test`,
      );
  });

  it('detects overlap when there is some', () => {
    assert.deepEqual(entityOverlap({ train: [row(1, ['x'])], val: [], test: [row(2, ['x'])] }), ['x']);
  });

  it('same seed same split, another seed another split', () => {
    const ids = (seed: number) =>
      hashOf(splitByEntity(corpus(), { train: 0.8, val: 0.1, test: 0.1 }, seed).test.map((r) => r.id));
    assert.equal(ids(3), ids(3));
    assert.notEqual(ids(3), ids(4));
  });

  it('a frozen test set is kept as is and its entities never reach train or val', () => {
    const rows = corpus();
    const first = splitByEntity(rows, { train: 0.8, val: 0.1, test: 0.1 }, 1);
    const more = [...rows, row(9001, ['salesforce:account:5']), row(9002, ['salesforce:account:new'])];
    const second = splitByEntity(more, { train: 0.8, val: 0.1, test: 0.1 }, 99, first.test);
    assert.deepEqual(
      second.test.map((r) => r.id),
      first.test.map((r) => r.id),
    );
    assert.deepEqual(entityOverlap(second), []);
  });

  it('oversamples rare tools and negatives in train only, with distinct ids', () => {
    const train = [row(1, ['a']), row(2, ['b']), row(3, ['c'], 'create_case'), row(4, ['d'], null)];
    const out = balanceTrain(train, { minPerTool: 3, negativeShare: 0.4 });
    assert.equal(out.filter((r) => r.target.tool === 'create_case').length, 3);
    assert.ok(out.filter((r) => r.target.tool === null).length / out.length >= 0.4);
    assert.equal(new Set(out.map((r) => r.id)).size, out.length);
  });

  it('caps train at maxPerTool calls per tool, originals before copies, no-calls at their share over every code', () => {
    const noCall = (i: number, code: string): RouterRow => ({
      ...row(i, [`n${i}`], null),
      target: { tool: null, verdict: 'abstain', code, reason: 'x' },
    });
    const train = [
      ...Array.from({ length: 30 }, (_, i) => row(i, [`a${i}`])),
      ...Array.from({ length: 4 }, (_, i) => row(100 + i, [`c${i}`], 'create_case')),
      ...Array.from({ length: 14 }, (_, i) => noCall(200 + i, 'no_tool')),
      ...Array.from({ length: 2 }, (_, i) => noCall(300 + i, 'missing_scope')),
    ];
    const balanced = balanceTrain(train, { minPerTool: 6, negativeShare: 0.3 });
    const { rows, cap } = capTrain(balanced, { maxPerTool: 8, seed: 42 });
    const count = (tool: string) => rows.filter((r) => r.target.tool === tool).length;
    assert.equal(count('update_account'), 8);
    assert.equal(count('create_case'), 6, 'a tool under the cap keeps every row, its oversampled copies too');
    assert.ok(rows.filter((r) => r.target.tool === 'update_account').every((r) => !r.id.includes('#')));
    const noCalls = rows.filter((r) => r.target.tool === null);
    const share = balanced.filter((r) => r.target.tool === null).length / balanced.length;
    assert.equal(noCalls.length, Math.round((14 * share) / (1 - share)), 'no-calls keep their share');
    assert.equal(noCalls.filter((r) => 'code' in r.target && r.target.code === 'missing_scope').length, 2);
    assert.deepEqual(cap, {
      maxPerTool: 8,
      droppedCalls: 22,
      droppedNoCalls: balanced.filter((r) => r.target.tool === null).length - noCalls.length,
    });
    // Kept rows stay in their order; the pick is the seed's.
    assert.deepEqual(
      rows.map((r) => r.id),
      balanced.filter((r) => rows.includes(r)).map((r) => r.id),
    );
    assert.deepEqual(capTrain(balanced, { maxPerTool: 8, seed: 42 }).rows, rows);
    assert.notDeepEqual(capTrain(balanced, { maxPerTool: 8, seed: 7 }).rows, rows);
    // Without a cap, the training split is the balanced one.
    assert.deepEqual(trainingRows(train, { minPerTool: 6, negativeShare: 0.3, seed: 42 }), { rows: balanced });
  });

  it('the cap keeps rows from traces first: real traffic is what a retrain is for', () => {
    const train = [...Array.from({ length: 20 }, (_, i) => row(i, [`a${i}`])), fromTrace(500), fromTrace(501)];
    for (const seed of [1, 2, 3, 42]) {
      const { rows } = capTrain(train, { maxPerTool: 3, seed });
      assert.equal(rows.length, 3);
      assert.deepEqual(
        rows.filter((r) => r.provenance.source === 'trace').map((r) => r.id),
        ['r500', 'r501'],
        `seed ${seed}`,
      );
    }
  });

  it('traceShare repeats the rows from traces until they are that share of train; nothing else changes', () => {
    const synthetic = Array.from({ length: 18 }, (_, i) => row(i, [`a${i}`]));
    const train = [...synthetic, fromTrace(500), fromTrace(501, null)];
    const settings = { minPerTool: 0, negativeShare: 0, seed: 42 };
    const { rows } = trainingRows(train, { ...settings, traceShare: 0.5 });
    const traced = rows.filter((r) => r.provenance.source === 'trace');
    // 18 synthetic rows: 18 trace rows make half, the 2 originals and 16 copies taken in turn.
    assert.equal(traced.length, 18);
    assert.equal(rows.length, 36);
    assert.deepEqual(rows.slice(0, 20), train, 'the rows before it are kept, in their order');
    assert.deepEqual(
      traced.slice(2, 6).map((r) => r.id),
      ['r500#t1', 'r501#t1', 'r500#t2', 'r501#t2'],
    );
    assert.deepEqual(traced[3]!.target, train[19]!.target, 'a copy is its row, no-calls included');
    // Already at the share, no rows from traces, or no setting: the split is as before.
    assert.deepEqual(trainingRows(train, { ...settings, traceShare: 0.1 }).rows, train);
    assert.deepEqual(trainingRows(synthetic, { ...settings, traceShare: 0.5 }).rows, synthetic);
    assert.deepEqual(trainingRows(train, settings).rows, train);
  });

  it("traceShare copies the trace rows as they came, not balance's copies of them, and says how many it added", () => {
    // minPerTool 3 makes two balance copies of the one trace row of a tool with one row (r500#1, r500#2).
    const train = [...Array.from({ length: 6 }, (_, i) => row(i, [`a${i}`])), fromTrace(500, 'update_contact')];
    const { rows, traceCopies } = trainingRows(train, { minPerTool: 3, negativeShare: 0, seed: 1, traceShare: 0.5 });
    const traced = rows.filter((r) => r.provenance.source === 'trace');
    assert.deepEqual(
      traced.map((r) => r.id),
      ['r500', 'r500#1', 'r500#2', 'r500#t1', 'r500#t2', 'r500#t3'],
    );
    assert.equal(traceCopies, 3);
    assert.equal(traced.length / rows.length, 0.5);
  });

  it('traceShare applies after the cap, so a capped retrain still trains mostly on its traffic', () => {
    const train = [...Array.from({ length: 30 }, (_, i) => row(i, [`a${i}`])), fromTrace(500)];
    const { rows, cap } = trainingRows(train, {
      minPerTool: 0,
      negativeShare: 0,
      seed: 3,
      maxPerTool: 4,
      traceShare: 0.5,
    });
    assert.equal(cap!.droppedCalls, 27);
    assert.deepEqual(
      rows.map((r) => r.id),
      // 4 kept, one from a trace: 2 copies make 3 of 6.
      [...rows.slice(0, 4).map((r) => r.id), 'r500#t1', 'r500#t2'],
    );
    assert.ok(rows.slice(0, 4).some((r) => r.id === 'r500'));
  });

  it('traceShare is a share in (0, 0.9], named when it is not', () => {
    assert.equal(parseConfig(configWith({ traceShare: 0.3 })).dataset!.traceShare, 0.3);
    assert.equal(parseConfig(configWith({})).dataset!.traceShare, undefined);
    // 0 would key a new split for the same rows; past 0.9 each step multiplies the copies.
    for (const traceShare of [0, -0.1, 0.95, 1])
      assert.throws(() => parseConfig(configWith({ traceShare })), /dataset\.traceShare/, String(traceShare));
  });

  it('a cap below minPerTool is a config error naming the field', () => {
    assert.throws(
      () => parseConfig(configWith({ minPerTool: 20, maxPerTool: 10 })),
      /dataset\.maxPerTool.*minPerTool/s,
    );
    assert.equal(parseConfig(configWith({ maxPerTool: 40 })).dataset!.maxPerTool, 40);
    assert.equal(parseConfig(configWith({})).dataset!.maxPerTool, undefined);
  });
});

describe('render', () => {
  const tools = new Map<string, CatalogTool>([
    [
      'salesforce/update_account',
      {
        id: 'salesforce/update_account',
        server: 'salesforce',
        name: 'update_account',
        description: 'Update an account',
        inputSchema: { type: 'object' },
        scopes: ['sf.account.write'],
      },
    ],
    [
      'salesforce/update_contact',
      {
        id: 'salesforce/update_contact',
        server: 'salesforce',
        name: 'update_contact',
        description: 'Update a contact',
        inputSchema: { type: 'object' },
        scopes: ['sf.contact.write'],
      },
    ],
  ]);

  it('renders TRL prompt/completion with a tools column and compact JSON targets, tool first', () => {
    const r = renderRow(row(7, ['a']), tools);
    assert.deepEqual(
      r.prompt.map((m) => m.role),
      ['system', 'user'],
    );
    assert.match(r.prompt[0]!.content ?? '', /scopes: sf\.read/);
    assert.equal(r.completion[0]!.content, '{"tool":"update_account","arguments":{"accountId":"a7","b":1}}');
    assert.deepEqual(
      r.tools.map((t) => t.function.name),
      ['update_account', 'update_contact'],
    );
    assert.equal(
      renderRow(row(8, ['a'], null), tools).completion[0]!.content,
      '{"tool":null,"verdict":"abstain","code":"no_tool"}',
    );
  });

  it('renders the Hermes <tool_call> variant for calls', () => {
    assert.equal(
      completionText({ tool: 'update_account', arguments: { z: 1, a: 2 } }, 'hermes'),
      '<tool_call>\n{"arguments":{"a":2,"z":1},"name":"update_account"}\n</tool_call>',
    );
  });

  it('lists the offered tools in name order however the slice was drawn, so alike rows begin alike', () => {
    const drawn = renderRow({ ...row(7, ['a']), tools: ['update_contact', 'update_account'] }, tools);
    const other = renderRow({ ...row(8, ['b']), tools: ['update_account', 'update_contact'] }, tools);
    assert.deepEqual(
      drawn.tools.map((t) => t.function.name),
      ['update_account', 'update_contact'],
    );
    assert.deepEqual(drawn.tools, other.tools);
    assert.deepEqual(
      inOfferOrder([
        { type: 'function', function: { name: 'b', description: '', parameters: {} } },
        { type: 'function', function: { name: 'B', description: '', parameters: {} } },
      ]).map((t) => t.function.name),
      ['B', 'b'],
    );
  });

  it('refuses a row that offers a tool the catalog lacks', () => {
    assert.throws(
      () => renderRow({ ...row(9, ['a']), tools: ['ghost'] }, tools),
      /offers ghost, which is not in the catalog/,
    );
  });
});
