/**
 * Hand-written eval cases: the plain format (`flywheel eval --cases`, `flywheel testset import`), checked and
 * rendered against the sandboxes' real catalog, and the set under test/fixtures/handwritten/ itself — written
 * by hand as employees type, never fed to training, and far from every phrasing the generator knows (token
 * Jaccard < 0.5 against each). The endpoint in the CLI test is a scripted stand-in for a model server; the
 * rendering, scoring and CLI are the real ones.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import { buildCatalog } from '../../core/catalog/build.js';
import { recordCatalogVersion } from '../../core/catalog/history.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import type { Catalog } from '../../core/catalog/types.js';
import { datasetSchema } from '../../core/config/schema.js';
import { deriveUnsatisfiable } from '../../core/dataset/generic/unsatisfiable.js';
import { SYSTEM_PROMPT } from '../../core/dataset/render.js';
import { frozenTestSet } from '../../core/dataset/testset.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { VERDICT_CODES } from '../../core/dataset/verdicts.js';
import { OPERATORS } from '../../core/dataset/corrupt.js';
import { EvalInputError } from '../../core/eval/cases.js';
import { handwrittenCases } from '../../core/eval/handwritten.js';
import { handwrittenRowsOf } from '../../scripts/lib/handwritten.js';
import type { EvalReport } from '../../core/eval/types.js';
import { main } from '../../scripts/cli.js';
import { TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';
import { DOMAIN_PACKS } from '../../sandboxes/packs.js';
import { startBackendStandIn, type BackendStandIn } from '../helpers/backend-stand-in.js';
import { REPO, tempDir } from '../helpers/fixtures.js';
import { sandboxMain } from '../helpers/sandbox.js';

const FILE = join(REPO, 'test', 'fixtures', 'handwritten', 'sandboxes.jsonl');
const dataset = datasetSchema.parse({});
let catalog: Catalog;

function rows(text: string, source = 'cases.jsonl'): RouterRow[] {
  return handwrittenRowsOf(text, source, catalog, dataset);
}

/** Lower-case word tokens, without the placeholders of templates. */
function tokens(text: string): Set<string> {
  return new Set(
    text
      .replace(/\{\w+\}/g, ' ')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((t) => t.length > 1),
  );
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter || 1);
}

describe('hand-written eval cases', () => {
  before(async () => {
    const servers = (['salesforce', 'oracle-ebs'] as const).map((d) => ({
      name: d,
      stdio: { command: process.execPath, args: ['--import', 'tsx', sandboxMain(d)], env: {}, cwd: REPO },
      timeoutMs: 20_000,
    }));
    catalog = buildCatalog('hw', await Promise.all(servers.map((s) => listServerTools(s, { maxPages: 10 }))));
  });

  it('the fixture set: ≥ 60 cases over both sandboxes, every one valid against the catalog and rendered', () => {
    const text = readFileSync(FILE, 'utf8');
    const parsed = rows(text, FILE);
    assert.ok(parsed.length >= 60, `${parsed.length} cases`);
    for (const d of ['salesforce', 'oracle-ebs']) assert.ok(parsed.filter((r) => r.domain === d).length >= 25, d);
    const verdicts = new Set(parsed.map((r) => (r.target.tool === null ? r.target.verdict : 'call')));
    assert.deepEqual([...verdicts].sort(), ['abstain', 'call', 'escalate', 'violation']);
    assert.ok(
      parsed.some((r) => r.messages && r.messages.length > 1),
      'multi-turn cases',
    );
    for (const r of parsed)
      if (r.target.tool !== null) assert.ok(r.tools.includes(r.target.tool), `${r.id}: the expected tool is offered`);
    const cases = handwrittenCases(parsed, catalog, 'router-json', FILE);
    assert.equal(cases.length, parsed.length);
    for (const c of cases) {
      assert.equal(c.messages[0]!.role, 'system');
      assert.ok(c.messages[0]!.content!.startsWith(SYSTEM_PROMPT), 'rendered with the current system prompt');
      assert.ok(c.tools.length > 0 && c.tools.every((t) => t.function.parameters), 'offered tools carry their schemas');
    }
  });

  it('the fixture set is far from every phrasing the generator knows (token Jaccard < 0.5)', () => {
    const phrasings = [
      ...DOMAIN_PACKS.flatMap((p) => [...p.goals.flatMap((g) => g.phrasings), ...p.unsatisfiable]),
      // Natural phrasing's asks hold the far ones and requests for tools the catalog lacks.
      ...catalog.servers.flatMap((s) =>
        deriveUnsatisfiable(
          catalog.tools.filter((t) => t.server === s.name),
          { otherTools: { seed: 42 } },
        ),
      ),
    ].map((p) => ({ p, t: tokens(p) }));
    const close: string[] = [];
    for (const r of rows(readFileSync(FILE, 'utf8'), FILE)) {
      const mine = tokens(r.request);
      for (const { p, t } of phrasings) {
        const j = jaccard(mine, t);
        if (j >= 0.5) close.push(`${r.id} ~ "${p}" (${j.toFixed(2)})`);
      }
    }
    assert.deepEqual(close, []);
  });

  it('the no-call vocabulary is one list: operators, the system prompt and the cases use it', () => {
    for (const op of OPERATORS) assert.equal(VERDICT_CODES[op.code], op.verdict, `${op.name}: ${op.code}`);
    for (const code of Object.keys(VERDICT_CODES))
      assert.ok(SYSTEM_PROMPT.includes(code), `the system prompt lists ${code}`);
    // serve's decoding constraint allows exactly these codes under their verdicts (trainer/flywheel_trainer/constrain.py)
    const py = execFileSync(
      trainerPython(),
      ['-c', 'import json; from flywheel_trainer.constrain import VERDICT_CODES; print(json.dumps(VERDICT_CODES))'],
      { env: { ...process.env, PYTHONPATH: TRAINER_ROOT } },
    ).toString();
    const byVerdict: Record<string, string[]> = {};
    for (const [code, verdict] of Object.entries(VERDICT_CODES)) (byVerdict[verdict] ??= []).push(code);
    assert.deepEqual(JSON.parse(py), byVerdict);
  });

  it('bad cases are errors naming the file, line and id', () => {
    const ok = {
      id: 'a',
      domain: 'salesforce',
      messages: [{ role: 'user', content: 'describe Case' }],
      expected: { tool: 'describe_object', arguments: { objectName: 'Case' } },
    };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...ok, domain: 'crm' }, /cases\.jsonl:2 \(a\): unknown domain "crm"/],
      [
        { ...ok, expected: { tool: 'describe_everything', arguments: {} } },
        /:2 \(a\): expected\.tool describe_everything is not a tool of salesforce/,
      ],
      [
        { ...ok, expected: { tool: 'describe_object', arguments: { objectName: 'Lead' } } },
        /:2 \(a\): expected\.arguments fail salesforce\/describe_object's schema: \/objectName must be equal to one of the allowed values/,
      ],
      [
        { ...ok, expected: { tool: null, verdict: 'abstain', code: 'nope' } },
        /expected\.code "nope" is not one the renderer lists/,
      ],
      [
        { ...ok, expected: { tool: null, verdict: 'escalate', code: 'no_tool' } },
        /expected\.code no_tool goes with verdict abstain, not escalate/,
      ],
      [{ ...ok, tools: ['get_record', 'no_such'] }, /tools: no_such is not a tool of salesforce/],
      [{ ...ok, tools: ['get_record'] }, /expected\.tool describe_object is not among the offered tools/],
      [
        {
          ...ok,
          messages: [
            { role: 'system', content: 'x' },
            { role: 'user', content: 'y' },
          ],
        },
        /messages\[0\]\.role must be user, assistant or tool/,
      ],
      [
        {
          ...ok,
          messages: [
            { role: 'user', content: 'y' },
            { role: 'assistant', content: 'z' },
          ],
        },
        /the last message must be the user turn/,
      ],
    ];
    for (const [bad, why] of cases) {
      assert.throws(
        () => rows(`${JSON.stringify({ ...ok, id: 'first' })}\n${JSON.stringify(bad)}\n`),
        (e: Error) => e instanceof EvalInputError && why.test(e.message),
        String(why),
      );
    }
    assert.throws(() => rows(`${JSON.stringify(ok)}\n${JSON.stringify(ok)}\n`), /id a is used twice/);
    assert.throws(() => rows('{"id": \n'), /cases\.jsonl:1: not JSON/);
  });

  it("scopes absent take the domain's broadest persona; given scopes are the caller's", () => {
    const [a, b] = rows(
      [
        {
          id: 'a',
          domain: 'oracle-ebs',
          messages: [{ role: 'user', content: 'post JE 40015' }],
          expected: { tool: 'post_journal', arguments: { jeHeaderId: 40015 } },
        },
        {
          id: 'b',
          domain: 'oracle-ebs',
          scopes: ['gl.read'],
          messages: [{ role: 'user', content: 'post JE 40015' }],
          expected: { tool: null, verdict: 'violation', code: 'missing_scope' },
        },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    assert.equal(a!.persona.name, 'ebs-admin');
    assert.deepEqual(b!.persona.scopes, ['gl.read']);
  });

  describe('through the CLI', () => {
    let dir: string;
    let endpoint: BackendStandIn;
    before(async () => {
      dir = tempDir('flywheel-hw-');
      writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
      // Right on the first two cases of the file, abstains on everything else.
      endpoint = await startBackendStandIn((body) => {
        const request = String(body.messages.at(-1)?.content ?? '');
        if (request.includes('0018d000000001GQAA'))
          return {
            call: 'get_record',
            arguments: { objectName: 'Account', recordId: '0018d000000001GQAA' },
            confidence: 0.9,
          };
        if (request.includes('Fourth Coffee Global SA'))
          return {
            call: 'get_related_records',
            arguments: { recordId: '0018d000000001KQAA', relationship: 'Contacts' },
            confidence: 0.9,
          };
        return { abstain: { code: 'no_tool', reason: 'nothing fits' }, confidence: 0.8 };
      });
    });
    after(async () => {
      await endpoint?.close();
    });

    it('flywheel eval --cases FILE --catalog FILE scores the set', async () => {
      const out = join(dir, 'report');
      assert.equal(
        await main([
          'eval',
          '--endpoint',
          endpoint.url,
          '--model',
          'router',
          '--cases',
          FILE,
          '--catalog',
          join(dir, 'catalog.json'),
          '--resamples',
          '200',
          '--out',
          out,
        ]),
        0,
      );
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as EvalReport;
      const m = report.results[0]!.metrics;
      const n = readFileSync(FILE, 'utf8').trim().split('\n').length;
      const abstains = rows(readFileSync(FILE, 'utf8')).filter(
        (r) => r.target.tool === null && r.target.code === 'no_tool',
      ).length;
      assert.equal(m.n, n);
      assert.equal(m.exactMatch.value, (2 + abstains) / n);
      assert.equal(report.testSet.source, FILE);
      assert.ok(
        endpoint.requests.every((r) => (r.messages[0] as { content: string }).content.startsWith(SYSTEM_PROMPT)),
      );
    });

    it('flywheel testset import takes the same format and pins it as the frozen test set', async () => {
      const store = `file://${join(dir, 'artifacts')}`;
      const ref = await openStore(store).putJson('catalog', catalog);
      await recordCatalogVersion(openStore(store), 'hw-project', ref);
      const config = join(dir, 'flywheel.yaml');
      writeFileSync(
        config,
        `version: 1\nname: hw-project\nartifacts: { store: "${store}" }\nservers: [{ name: salesforce, http: { url: "http://127.0.0.1:1/mcp" } }]\ndataset: {}\n`,
      );
      assert.equal(await main(['testset', 'import', FILE, '--config', config]), 0);
      const pinned = await frozenTestSet(openStore(store), 'hw-project', `cat-${ref.sha256.slice(0, 12)}`);
      const frozen = await openStore(store).readJsonl<RouterRow>(pinned!.ref);
      assert.equal(frozen.length, readFileSync(FILE, 'utf8').trim().split('\n').length);
      assert.ok(frozen.every((r) => r.provenance.source === 'handwritten'));
      writeFileSync(
        join(dir, 'bad.jsonl'),
        `${JSON.stringify({ id: 'x', domain: 'crm', messages: [{ role: 'user', content: 'hi' }], expected: { tool: null, verdict: 'abstain', code: 'no_tool' } })}\n`,
      );
      assert.equal(await main(['testset', 'import', join(dir, 'bad.jsonl'), '--config', config]), 2);
    });
  });
});
