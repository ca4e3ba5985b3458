/**
 * Dataset generation against the live sandboxes: intents from the default goals and personas, the template
 * teacher, and validation (schema, scopes, dry-run) through real MCP connections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import type { ServerConfig } from '../../core/config/schema.js';
import { drawIntents } from '../../core/dataset/intents.js';
import { mcpDryRunner } from '../../core/dataset/mcp-dry-run.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import type { Intent, NoCallTarget, RouterRow, Target, ToolCallTarget } from '../../core/dataset/types.js';
import { preferencePairs } from '../../core/dataset/pairs.js';
import { splitByEntity } from '../../core/dataset/split.js';
import { corruptRows, OPERATORS } from '../../core/dataset/corrupt.js';
import { candidateRow } from '../../core/dataset/rows.js';
import { Rng } from '../../core/rng.js';
import { CallValidator } from '../../core/dataset/validate.js';
import { hashOf } from '../../core/hash.js';
import { connectServer, type McpConnection } from '../../core/mcp/connect.js';
import { packPoolsAsHarvested } from '../../core/probe/harvest.js';
import { runPackProbes } from '../../core/probe/pack-probes.js';
import type { EntityPools } from '../../core/probe/types.js';
import type { Persona } from '../../core/dataset/types.js';
import { oracleEbsPack } from '../../sandboxes/oracle-ebs/pack.js';
import { salesforcePack } from '../../sandboxes/salesforce/pack.js';
import { REPO } from '../helpers/fixtures.js';
import { sandboxMain, type SandboxName } from '../helpers/sandbox.js';

const DOMAINS: SandboxName[] = ['salesforce', 'oracle-ebs'];
const PACKS = { salesforce: salesforcePack, 'oracle-ebs': oracleEbsPack };
const GOALS = { salesforce: salesforcePack.goals, 'oracle-ebs': oracleEbsPack.goals };
/** The packs' personas, on the config names these tests give the sandboxes. */
const PERSONAS: Persona[] = DOMAINS.flatMap((d) => PACKS[d].personas.map((p) => ({ ...p, domain: d })));
const persona = (name: string) => PERSONAS.find((p) => p.name === name)!;
const servers: ServerConfig[] = DOMAINS.map((d) => ({
  name: d,
  stdio: { command: process.execPath, args: ['--import', 'tsx', sandboxMain(d)], env: {}, cwd: REPO },
  timeoutMs: 20_000,
}));
const connections = new Map<string, McpConnection>();
const pools: Record<string, EntityPools> = {};
let catalog: Catalog;

async function intentsFor(domain: SandboxName, seed: number, perGoal = 4): Promise<Intent[]> {
  const toolScopes = Object.fromEntries(
    catalog.tools.filter((t) => t.server === domain).map((t) => [t.name, t.scopes]),
  );
  return (
    await drawIntents({
      domain,
      goals: GOALS[domain],
      personas: PERSONAS,
      toolScopes,
      pools: pools[domain]!,
      perGoal,
      unsatisfiableShare: 0.15,
      asks: PACKS[domain].unsatisfiable,
      seed,
    })
  ).intents;
}

describe('dataset generation against the sandboxes', () => {
  before(async () => {
    catalog = buildCatalog('test', await Promise.all(servers.map((s) => listServerTools(s, { maxPages: 10 }))));
    for (const s of servers) {
      const conn = await connectServer(s);
      connections.set(s.name, conn);
      pools[s.name] = await runPackProbes(conn.client, PACKS[s.name as SandboxName].probes(200));
    }
  });
  after(async () => {
    for (const c of connections.values()) await c.close();
  });

  it('every tool of both sandboxes has a default goal, and every phrasing fills', async () => {
    for (const d of DOMAINS) {
      const tools = new Set(catalog.tools.filter((t) => t.server === d).map((t) => t.name));
      assert.deepEqual(
        [...new Set(GOALS[d].map((g) => g.tool))].sort(),
        [...tools].sort(),
        `${d} goals cover every tool`,
      );
      const intents = await intentsFor(d, 1, 2);
      const drafts = await templateTeacher(1).generate(intents);
      assert.equal(drafts.length, intents.length);
      for (const dr of drafts) assert.doesNotMatch(dr.request, /\{\w+\}/);
    }
  });

  it('about 15% of intents are unsatisfiable and become abstentions', async () => {
    for (const d of DOMAINS) {
      const intents = await intentsFor(d, 2);
      const share = intents.filter((i) => i.tool === null).length / intents.length;
      assert.ok(share > 0.12 && share < 0.18, `${d}: unsatisfiable share ${share}`);
      const teacher = templateTeacher(2);
      const candidates = await teacher.solve(intents, await teacher.generate(intents));
      for (const c of candidates.filter((c) => intents.find((i) => i.id === c.intentId)!.tool === null)) {
        assert.deepEqual(c.target, {
          tool: null,
          verdict: 'abstain',
          code: 'no_tool',
          reason: 'no tool in the catalog can do this',
        });
      }
    }
  });

  it('same seed, same intents and requests; another seed, different ones', async () => {
    const run = async (seed: number) => {
      const intents = await intentsFor('salesforce', seed);
      return hashOf(await templateTeacher(seed).generate(intents));
    };
    assert.equal(await run(7), await run(7));
    assert.notEqual(await run(7), await run(8));
  });

  it('template calls validate against schema, scopes and a sandbox dry-run; rejections carry a reason', async () => {
    const validator = new CallValidator(catalog, mcpDryRunner(connections));
    const reasons: Record<string, number> = {};
    let valid = 0;
    let total = 0;
    for (const d of DOMAINS) {
      const intents = await intentsFor(d, 3, 6);
      const teacher = templateTeacher(3);
      const candidates = await teacher.solve(intents, await teacher.generate(intents));
      for (const c of candidates) {
        const intent = intents.find((i) => i.id === c.intentId)!;
        const v = await validator.check(c.target, intent.persona);
        total++;
        if (v.valid) valid++;
        else {
          assert.ok(v.reason, 'a rejection has a reason');
          reasons[v.reason!] = (reasons[v.reason!] ?? 0) + 1;
        }
      }
    }
    // Template calls are well-formed and scoped by construction: only the sandbox's business rules reject some
    // (e.g. posting a journal that is already posted).
    assert.ok(
      Object.keys(reasons).every((r) => r.startsWith('sandbox:')),
      JSON.stringify(reasons),
    );
    assert.ok(valid / total > 0.8, `valid share ${valid}/${total}, rejections ${JSON.stringify(reasons)}`);
  });

  it('the validator rejects a wrong-typed argument, an extra key, a missing scope and a business-rule violation', async () => {
    const validator = new CallValidator(catalog, mcpDryRunner(connections));
    const rep = persona('sales-rep');
    const acct = pools.salesforce!.account![0]!;
    assert.equal(
      (
        await validator.check(
          { tool: 'update_account', arguments: { accountId: acct.Id, numberOfEmployees: '12' } },
          rep,
        )
      ).reason,
      'schema_invalid',
    );
    assert.equal(
      (await validator.check({ tool: 'update_account', arguments: { accountId: acct.Id, colour: 'red' } }, rep)).reason,
      'schema_invalid',
    );
    assert.equal(
      (await validator.check({ tool: 'delete_record', arguments: { objectName: 'Account', recordId: acct.Id } }, rep))
        .reason,
      'missing_scope',
    );
    assert.equal(
      (
        await validator.check(
          {
            tool: 'create_opportunity',
            arguments: { accountId: acct.Id, name: 'x', closeDate: '2026-12-01', discountPercent: 60 },
          },
          rep,
        )
      ).reason,
      'sandbox:POLICY_LIMIT_EXCEEDED',
    );
    assert.equal((await validator.check({ tool: 'no_such_tool', arguments: {} }, rep)).reason, 'unknown_tool');
  });
  describe('near-miss corruption', () => {
    async function positives(domain: SandboxName, validator: CallValidator) {
      const toolScopes = Object.fromEntries(
        catalog.tools.filter((t) => t.server === domain).map((t) => [t.name, t.scopes]),
      );
      const intents = (
        await drawIntents({
          domain,
          goals: GOALS[domain],
          personas: PERSONAS,
          toolScopes,
          pools: pools[domain]!,
          perGoal: 3,
          unsatisfiableShare: 0.15,
          asks: PACKS[domain].unsatisfiable,
          seed: 5,
        })
      ).intents;
      const teacher = templateTeacher(5);
      const candidates = await teacher.solve(intents, await teacher.generate(intents));
      const rows = [];
      for (const c of candidates) {
        const intent = intents.find((i) => i.id === c.intentId)!;
        if ((await validator.check(c.target, intent.persona)).valid)
          rows.push(
            candidateRow(
              intent,
              c,
              catalog.tools.filter((t) => t.server === domain),
              8,
              5,
            ),
          );
      }
      return rows;
    }

    it('every operator yields negatives the validator rejects for the intended reason, with the right target', async () => {
      const validator = new CallValidator(catalog, mcpDryRunner(connections));
      const seenOps = new Set<string>();
      for (const domain of DOMAINS) {
        const rows = await positives(domain, validator);
        const ctx = {
          tools: catalog.tools.filter((t) => t.server === domain),
          personas: PERSONAS,
          pools: packPoolsAsHarvested(pools[domain]!),
          sliceSize: 8,
          rng: new Rng(`corrupt:${domain}`),
          callable: () => true,
        };
        for (const op of OPERATORS) {
          for (const row of rows.filter((r) => r.target.tool !== null)) {
            const neg = op.apply(row as RouterRow & { target: ToolCallTarget }, ctx);
            if (!neg) continue;
            const v = await validator.check(neg.provenance.negativeCall!, persona(neg.persona.name), neg.tools);
            if (!op.proves({ ...(v.reason ? { reason: v.reason } : {}), ...(v.detail ? { detail: v.detail } : {}) }))
              continue; // corruptRows drops these; here we look for one kept example per operator
            const kept = op.settle
              ? op.settle(neg, { reason: v.reason!, ...(v.detail ? { detail: v.detail } : {}) })
              : neg;
            assert.equal(kept.target.tool, null);
            assert.equal((kept.target as NoCallTarget).verdict, op.verdict);
            if (!op.settle) assert.equal((kept.target as NoCallTarget).code, op.code);
            else
              assert.match(
                (kept.target as NoCallTarget).code,
                /^(policy_violation|invalid_transition|rule_violation)$/,
              );
            assert.equal(neg.provenance.operator, op.name);
            assert.equal(neg.provenance.from, row.id);
            assert.notEqual(neg.id, row.id);
            seenOps.add(op.name);
            break;
          }
        }
      }
      assert.deepEqual(
        [...seenOps].sort(),
        OPERATORS.map((o) => o.name).sort(),
        'each operator produced at least one proven near-miss',
      );
    });

    it('corruptRows reaches the negative share and keeps only proven negatives', async () => {
      const validator = new CallValidator(catalog, mcpDryRunner(connections));
      const rows = await positives('salesforce', validator);
      const ctx = {
        tools: catalog.tools.filter((t) => t.server === 'salesforce'),
        personas: PERSONAS,
        pools: packPoolsAsHarvested(pools.salesforce!),
        sliceSize: 8,
        rng: new Rng('corrupt'),
        callable: () => true,
      };
      const { negatives, stats } = await corruptRows(
        rows,
        ctx,
        async (call, row) => {
          const v = await validator.check(call, persona(row.persona.name), row.tools);
          return { ...(v.reason ? { reason: v.reason } : {}), ...(v.detail ? { detail: v.detail } : {}) };
        },
        0.4,
      );
      const share = negatives.length / (negatives.length + rows.length);
      assert.ok(share > 0.35 && share <= 0.41, `negative share ${share}`);
      assert.ok(Object.keys(stats.kept).length >= 6, JSON.stringify(stats));
      assert.equal(new Set(negatives.map((n) => n.id)).size, negatives.length, 'negative ids are unique');
    });

    it('preference pairs: every rejected answer differs from the chosen one in the way its operator says, and no pair crosses the split', async () => {
      const validator = new CallValidator(catalog, mcpDryRunner(connections));
      const checked: Record<string, number> = {};
      let scopeNegatives = 0;
      const hermesAbstentions = new Set<string>();
      const entitiesOf = (rows: RouterRow[]) => new Set(rows.flatMap((r) => r.entities));
      for (const domain of DOMAINS) {
        const rows = await positives(domain, validator);
        const ctx = {
          tools: catalog.tools.filter((t) => t.server === domain),
          personas: PERSONAS,
          pools: packPoolsAsHarvested(pools[domain]!),
          sliceSize: 8,
          rng: new Rng(`pairs:${domain}`),
          callable: () => true,
        };
        const { negatives } = await corruptRows(
          rows,
          ctx,
          async (call, row) => {
            const v = await validator.check(call, persona(row.persona.name), row.tools);
            return { ...(v.reason ? { reason: v.reason } : {}), ...(v.detail ? { detail: v.detail } : {}) };
          },
          0.5,
        );
        const all = [...rows, ...negatives];
        scopeNegatives += negatives.filter((r) => r.provenance.operator === 'missing_scope').length;
        const byId = new Map(all.map((r) => [r.id, r]));
        const { pairs } = preferencePairs(all, catalog, 'router-json');
        for (const p of preferencePairs(all, catalog, 'hermes').pairs)
          if (p.kind === 'abstention') hermesAbstentions.add(p.operator);
        for (const p of pairs) {
          const negative = byId.get(p.from.negative)!;
          const op = OPERATORS.find((o) => o.name === p.operator)!;
          const chosen = JSON.parse(p.chosen[0]!.content!) as Target;
          const rejected = JSON.parse(p.rejected[0]!.content!) as ToolCallTarget;
          assert.notEqual(p.chosen[0]!.content, p.rejected[0]!.content);
          assert.deepEqual(
            rejected,
            negative.provenance.negativeCall,
            'the rejected answer is the tempting call the operator proved wrong',
          );
          if (p.kind === 'abstention') {
            assert.equal(chosen.tool, null);
            assert.equal((chosen as NoCallTarget).verdict, op.verdict);
          } else {
            const right = chosen as ToolCallTarget;
            const differs = Object.keys({ ...right.arguments, ...rejected.arguments }).filter(
              (k) => JSON.stringify(right.arguments[k]) !== JSON.stringify(rejected.arguments[k]),
            );
            if (p.operator === 'sibling_swap')
              assert.ok(rejected.tool !== right.tool && differs.length === 0, JSON.stringify(p));
            else if (p.operator === 'drop_required')
              assert.ok(
                rejected.tool === right.tool && differs.length === 1 && !(differs[0]! in rejected.arguments),
                JSON.stringify(p),
              );
            else if (p.operator === 'server_refusal' || p.operator === 'wrong_entity_type')
              assert.ok(
                rejected.tool === right.tool && differs.length === 1 && differs[0]! in rejected.arguments,
                JSON.stringify(p),
              );
            else assert.fail(`${p.operator} made a near-miss pair`);
          }
          checked[`${p.kind}:${p.operator}`] = (checked[`${p.kind}:${p.operator}`] ?? 0) + 1;
        }
        // Built per split, pairs follow the split: the rows behind train pairs share no entity with those behind test pairs.
        const splits = splitByEntity(all, { train: 0.8, val: 0.1, test: 0.1 }, 3);
        const rowsBehind = (split: RouterRow[]) =>
          preferencePairs(split, catalog, 'router-json').pairs.flatMap((p) => [
            byId.get(p.from.prompt)!,
            byId.get(p.from.negative)!,
          ]);
        const trainEntities = entitiesOf(rowsBehind(splits.train));
        assert.deepEqual(
          [...entitiesOf(rowsBehind(splits.test))].filter((e) => trainEntities.has(e)),
          [],
        );
      }
      for (const name of ['drop_required', 'prompt_injection'])
        assert.ok(checked[`abstention:${name}`], `abstention pairs for ${name}: ${JSON.stringify(checked)}`);
      // The scope check refuses those calls and the offer check answers calls to absent tools, so in router-json no
      // pair teaches the model a missing scope or a tool that is not offered (core/dataset/taught.ts); hermes,
      // decoded freely, keeps the abstention pairs for absent tools.
      assert.ok(scopeNegatives > 0, 'precondition: missing_scope negatives were made');
      for (const name of ['missing_scope', 'tool_absent', 'sibling_swap'])
        assert.equal(checked[`abstention:${name}`], undefined, name);
      for (const name of ['sibling_swap', 'tool_absent'])
        assert.ok(
          hermesAbstentions.has(name),
          `hermes abstention pairs for ${name}: ${[...hermesAbstentions].join(', ')}`,
        );
      for (const name of ['sibling_swap', 'drop_required'])
        assert.ok(checked[`near_miss:${name}`], `near-miss pairs for ${name}: ${JSON.stringify(checked)}`);
      assert.ok(
        checked['near_miss:server_refusal'] || checked['near_miss:wrong_entity_type'],
        `value near misses: ${JSON.stringify(checked)}`,
      );
    });
  });
});
