/**
 * The scope check after the router (core/scope-guard.ts): what a caller lacks, how eval cases carry the check and
 * score a refused call, and what the model is taught for the rows a check answers, missing_scope and
 * tool_not_offered (core/dataset/taught.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Catalog } from '../../core/catalog/types.js';
import { renderRows } from '../../core/dataset/render.js';
import { absentToolCall, asTaught, refusedByScopeCheck } from '../../core/dataset/taught.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { casesFrom } from '../../core/eval/cases.js';
import { checkOffer, checkScopes as scopeCheck } from '../../core/router/checks.js';
import { aggregate } from '../../core/eval/metrics.js';
import { scoreCase } from '../../core/eval/score.js';
import type { Prediction } from '../../core/eval/types.js';
import { lackedScopes, toolScopes, type ScopeCheck } from '../../core/scope-guard.js';

// The checks as the evaluator applies them (core/router/checks.ts), to the prediction alone.
const checkScopes = (p: Prediction, s: ScopeCheck | undefined) => scopeCheck(p, s).prediction;
const checkOffered = (p: Prediction, offered: string[]) => checkOffer(p, offered).prediction;

const schema = { type: 'object', properties: { recordId: { type: 'string' } }, required: ['recordId'] };
const tool = (server: string, name: string, scopes: string[]) => ({
  id: `${server}/${name}`,
  server,
  name,
  description: name,
  inputSchema: schema,
  scopes,
});
const CATALOG: Catalog = {
  name: 'two',
  servers: [
    { name: 'crm', tools: 3, quarantined: 0 },
    { name: 'erp', tools: 1, quarantined: 0 },
  ],
  tools: [
    tool('crm', 'get_record', ['crm.read']),
    tool('crm', 'delete_record', ['crm.read', 'crm.admin']),
    tool('crm', 'ping', []),
    tool('erp', 'get_record', ['erp.read']),
  ],
  quarantined: [],
};
const reader = { name: 'reader', domain: 'crm', scopes: ['crm.read'] };
const positive: RouterRow = {
  id: 'p1',
  domain: 'crm',
  entities: ['crm:record:1'],
  request: 'delete record 1',
  persona: { ...reader, scopes: ['crm.read', 'crm.admin'] },
  tools: ['delete_record', 'get_record', 'ping'],
  target: { tool: 'delete_record', arguments: { recordId: '1' } },
  provenance: { source: 'generated' },
};
const scopeNegative: RouterRow = {
  ...positive,
  id: 'n1',
  persona: reader,
  target: { tool: null, verdict: 'violation', code: 'missing_scope', reason: 'reader lacks crm.admin' },
  provenance: {
    source: 'generated',
    operator: 'missing_scope',
    negativeCall: { tool: 'delete_record', arguments: { recordId: '1' } },
    from: 'p1',
  },
};
const MEASURE = { latencyMs: 10, promptTokens: 5, completionTokens: 5 };
const call = (name: string): Prediction => ({ kind: 'call', tool: name, arguments: { recordId: '1' }, extraCalls: 0 });

describe('scope check', () => {
  it('names what a caller lacks, in the order required; a name on two servers needs both', () => {
    assert.deepEqual(lackedScopes(['a', 'b', 'c'], ['b']), ['a', 'c']);
    assert.deepEqual(lackedScopes([], []), []);
    assert.deepEqual(toolScopes(CATALOG.tools, 'crm'), {
      get_record: ['crm.read'],
      delete_record: ['crm.read', 'crm.admin'],
      ping: [],
    });
    assert.deepEqual(toolScopes(CATALOG.tools).get_record, ['crm.read', 'erp.read']);
  });

  it("eval cases carry the caller's and the offered tools' scopes when the catalog is given, and only then", () => {
    const rendered = renderRows([positive, scopeNegative], CATALOG);
    const [withCatalog, withoutCatalog] = [
      casesFrom(rendered, [positive, scopeNegative], 'test', CATALOG),
      casesFrom(rendered, [positive, scopeNegative], 'test'),
    ];
    assert.deepEqual(withCatalog[1]!.scopes, {
      caller: ['crm.read'],
      tools: { delete_record: ['crm.read', 'crm.admin'], get_record: ['crm.read'], ping: [] },
    });
    assert.equal(withoutCatalog[1]!.scopes, undefined);
    assert.equal(
      casesFrom(rendered, [], 'test', CATALOG)[0]!.scopes,
      undefined,
      'without its router row a case does not say who asked',
    );
  });

  it('a call the caller may not make scores as the missing_scope violation; allowed calls and no-calls pass unchanged', () => {
    const [allowedCase, refusedCase] = casesFrom(
      renderRows([positive, scopeNegative], CATALOG),
      [positive, scopeNegative],
      'test',
      CATALOG,
    );
    const refused = scoreCase(refusedCase!, checkScopes(call('delete_record'), refusedCase!.scopes), MEASURE);
    assert.equal(refused.outcome, 'correct');
    assert.equal(refused.scopeRefused, 'called delete_record; the caller lacks crm.admin');
    assert.equal(refused.predictedAbstains, true);
    assert.equal(refused.schemaValid, null, 'a refused call is no call');
    const allowed = scoreCase(allowedCase!, checkScopes(call('delete_record'), allowedCase!.scopes), MEASURE);
    assert.equal(allowed.outcome, 'correct');
    assert.equal(allowed.scopeRefused, undefined);
    // The reader may call get_record, so the wrong tool stays a wrong answer, not a refusal.
    assert.equal(
      scoreCase(refusedCase!, checkScopes(call('get_record'), refusedCase!.scopes), MEASURE).outcome,
      'missed_abstention',
    );
    const noCall: Prediction = { kind: 'no-call', verdict: 'abstain', code: 'no_tool' };
    assert.deepEqual(checkScopes(noCall, refusedCase!.scopes), noCall);
    assert.deepEqual(
      checkScopes(call('delete_record'), undefined),
      call('delete_record'),
      'no scopes known: nothing refused',
    );
    assert.deepEqual(
      checkScopes(call('unknown_tool'), refusedCase!.scopes),
      call('unknown_tool'),
      'a tool the check does not know is scored as not offered, not refused',
    );
    const metrics = aggregate([refused, allowed], {
      bootstrap: { resamples: 10, seed: 1 },
      cost: { kind: 'none' },
      wallSeconds: 1,
    });
    assert.equal(metrics.scopeRefusals, 1);
  });

  it('teaches the model the recorded call of a missing_scope row; every other row as labelled', () => {
    const injection: RouterRow = {
      ...positive,
      id: 'n2',
      target: { tool: null, verdict: 'escalate', code: 'prompt_injection', reason: '' },
      provenance: {
        source: 'generated',
        operator: 'prompt_injection',
        negativeCall: { tool: 'export', arguments: {} },
      },
    };
    const untold: RouterRow = { ...scopeNegative, id: 'n3', provenance: { source: 'trace' } };
    assert.deepEqual([positive, scopeNegative, injection, untold].map(refusedByScopeCheck), [
      false,
      true,
      false,
      false,
    ]);
    const taught = asTaught([positive, scopeNegative, injection, untold], 'router-json');
    assert.deepEqual(taught[1]!.target, { tool: 'delete_record', arguments: { recordId: '1' } });
    assert.deepEqual(taught[1]!.persona, reader, "the prompt is the refused caller's, as at serving");
    assert.deepEqual(taught[2], injection);
    assert.deepEqual(taught[3], untold, "a missing_scope label without a recorded call stays the model's to learn");
  });

  it("teaches a tool_not_offered row the call its request needs, for router-json: the recorded call, or a sibling swap's positive; hermes keeps the label", () => {
    const needed = { tool: 'delete_record', arguments: { recordId: '1' } };
    const absent: RouterRow = {
      ...positive,
      id: 'n4',
      tools: ['get_record', 'ping'],
      target: {
        tool: null,
        verdict: 'abstain',
        code: 'tool_not_offered',
        reason: 'delete_record is not among the offered tools',
      },
      provenance: { source: 'generated', operator: 'tool_absent', negativeCall: needed, from: 'p1' },
    };
    // A sibling swap records the tempting sibling, which is offered: the call the request needs is its positive's.
    const swap: RouterRow = {
      ...absent,
      id: 'n7',
      provenance: {
        source: 'generated',
        operator: 'sibling_swap',
        negativeCall: { tool: 'get_record', arguments: { recordId: '1' } },
        from: 'p1',
      },
    };
    const unlabelled: RouterRow = { ...absent, id: 'n5', provenance: { source: 'trace' } };
    const byId = new Map([positive, absent, swap].map((r) => [r.id, r]));
    assert.deepEqual(
      [positive, scopeNegative, absent, swap, unlabelled].map((r) => absentToolCall(r, 'router-json', byId)),
      [undefined, undefined, needed, needed, undefined],
    );
    assert.equal(
      absentToolCall(swap, 'router-json', new Map()),
      undefined,
      'without its positive the needed call is not known',
    );
    const [, taughtAbsent, taughtSwap, kept] = asTaught([positive, absent, swap, unlabelled], 'router-json');
    assert.deepEqual([taughtAbsent!.target, taughtSwap!.target], [needed, needed]);
    assert.deepEqual(taughtAbsent!.tools, ['get_record', 'ping'], 'the prompt still lacks the tool, as at serving');
    assert.deepEqual(kept, unlabelled, 'without a known call the model must say it');
    assert.deepEqual(asTaught([swap], 'router-json')[0], swap, 'a sibling swap without its positive keeps its label');
    assert.deepEqual(
      asTaught([positive, absent, swap], 'hermes').slice(1),
      [absent, swap],
      'hermes is decoded freely: nothing answers for the model',
    );
  });

  it('a call to a tool the case did not offer scores as tool_not_offered, as serve and the gateway answer it', () => {
    const absent: RouterRow = {
      ...positive,
      id: 'n6',
      tools: ['get_record', 'ping'],
      target: { tool: null, verdict: 'abstain', code: 'tool_not_offered', reason: '' },
    };
    const [c] = casesFrom(renderRows([absent], CATALOG), [absent], 'test', CATALOG);
    const offered = c!.tools.map((t) => t.function.name);
    assert.deepEqual(offered, ['get_record', 'ping']);
    assert.equal(
      scoreCase(c!, checkScopes(checkOffered(call('delete_record'), offered), c!.scopes), MEASURE).outcome,
      'correct',
    );
    assert.equal(
      scoreCase(c!, checkOffered(call('get_record'), offered), MEASURE).outcome,
      'missed_abstention',
      "an offered tool is the model's call, right or wrong",
    );
    const noCall: Prediction = { kind: 'no-call', verdict: 'abstain', code: 'no_tool' };
    assert.deepEqual(checkOffered(noCall, offered), noCall);
  });
});
