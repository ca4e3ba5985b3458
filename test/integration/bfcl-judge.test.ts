/**
 * BFCL's own checker (bfcl-eval in .venv-bfcl) judging answers converted to its call form: every live_simple
 * question's first acceptable answer passes (but the two whose answers accept no value for a required argument,
 * which nothing passes), and one mutation of each kind fails (wrong function, wrong value,
 * a required argument dropped); irrelevance passes an abstention and fails a call; a router's catalog with
 * renamed duplicates maps back to BFCL's names; a missing judge is a named error with the install hint.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildCatalog } from '../../core/catalog/build.js';
import { listServerTools } from '../../core/catalog/list-tools.js';
import { toBfclCalls } from '../../core/eval/bfcl/calls.js';
import { FAR_ASKS } from '../../core/dataset/generic/far-asks.js';
import { deriveUnsatisfiable } from '../../core/dataset/generic/unsatisfiable.js';
import { bfclCases, type BfclCase } from '../../core/eval/bfcl/cases.js';
import { BFCL_CATEGORIES } from '../../core/eval/bfcl/categories.js';
import { loadBfclSet, parseCategories, type BfclSet } from '../../core/eval/bfcl/data.js';
import { BfclJudgeMissing, judgeBfcl, locateBfcl, type JudgeItem } from '../../core/eval/bfcl/judge.js';
import type { BfclReport } from '../../core/eval/bfcl/report.js';
import { sampleQuestions } from '../../core/eval/bfcl/sample.js';
import type { Prediction } from '../../core/eval/types.js';
import { Rng } from '../../core/rng.js';
import { checkAnswer } from '../../core/router/checks.js';
import { sampleArguments } from '../../core/schema/sample.js';
import { main } from '../../scripts/cli.js';
import { startBackendStandIn } from '../helpers/backend-stand-in.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * What a model answers when it gives the case's expected decision as a native tool call, its arguments written
 * as BFCL's answer file writes them: a whole number where the function declares a float keeps its `.0` (JSON
 * text read in JavaScript would lose it, and BFCL's checker tells 133 from 133.0 inside a list of floats).
 */
function answered(c: BfclCase): Prediction {
  const t = c.case.target;
  if (t.tool === null) return { kind: 'no-call', verdict: t.verdict, code: t.code };
  const fn = c.functions.find((f) => f.name === c.names.get(t.tool))!;
  const rawArguments = typed(t.arguments, fn.parameters);
  return { kind: 'call', tool: t.tool, arguments: t.arguments, extraCalls: 0, rawArguments };
}

/** The same call with other arguments (written afresh, not as the original text). */
function withArguments(p: Extract<Prediction, { kind: 'call' }>, args: Record<string, unknown>): Prediction {
  const { rawArguments: _raw, ...call } = p;
  return { ...call, arguments: args };
}

function typed(v: unknown, schema: Record<string, unknown> | undefined): string {
  if (typeof v === 'number' && schema?.type === 'float' && Number.isInteger(v)) return `${v}.0`;
  if (Array.isArray(v)) return `[${v.map((x) => typed(x, schema?.items as Record<string, unknown>)).join(',')}]`;
  if (v && typeof v === 'object') {
    const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${typed(x, props[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function item(c: BfclCase, p: Prediction): JudgeItem {
  return { id: c.case.id, category: c.category, output: toBfclCalls(p, c.names) };
}

/** BFCL's data gives a few answers a required argument with no accepted value ([]): no answer passes those. */
function acceptsNothing(c: BfclCase): boolean {
  const [fn, params] = Object.entries(c.answer![0]!)[0]!;
  const required = (c.functions.find((f) => f.name === fn)!.parameters?.required as string[] | undefined) ?? [];
  return required.some((k) => Array.isArray(params[k]) && params[k].length === 0);
}

/** A value of the same kind that no acceptable answer holds. */
function wrongValue(v: unknown): unknown {
  if (typeof v === 'string') return `${v} (not this one)`;
  if (typeof v === 'number') return v + 12345;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return [...v, ...(v.length ? [v[0]] : ['extra'])];
  return { ...(v as object), not_a_key: 1 };
}

describe("BFCL's own checker on answers in its call form", () => {
  let data: string;
  let simple: BfclSet;
  before(async () => {
    data = (await locateBfcl()).dataDir;
    simple = await loadBfclSet(data, 'live_simple');
  });

  it('passes every live_simple first acceptable answer BFCL can pass, and fails each kind of mutation', async () => {
    const cases = bfclCases(simple);
    assert.equal(cases.length, 258);
    const unpassable = cases.filter(acceptsNothing).map((c) => c.case.id);
    assert.ok(unpassable.length <= 2, `unpassable: ${unpassable.join(', ')}`);
    const right = await judgeBfcl(cases.map((c) => item(c, answered(c))));
    assert.deepEqual(
      right.filter((v) => !v.valid).map((v) => v.id),
      unpassable,
      "every first acceptable answer passes BFCL's checker but where no value is accepted",
    );
    assert.equal(right.filter((v) => v.valid).length, 258 - unpassable.length);
    // BFCL judges the answer after the router's checks: they stand every first acceptable answer but those that
    // break their own function's schema (the unpassable two, and one whose value is outside its enum).
    const refused = cases
      .filter((c) => {
        const offered = c.case.tools.map((t) => t.function.name);
        const checked = checkAnswer(answered(c), { offered, tools: c.case.tools, messages: c.case.messages });
        return checked.prediction.kind !== 'call';
      })
      .map((c) => c.case.id);
    assert.deepEqual(refused.sort(), ['live_simple_71-35-0', ...unpassable].sort());

    const passable = cases.filter((c) => !acceptsNothing(c));
    const calls = passable.map((c) => answered(c) as Extract<Prediction, { kind: 'call' }>);
    const wrongFunction = passable.map((c, i) => item(c, { ...calls[i]!, tool: `${calls[i]!.tool}_other` }));
    const wrongValues = passable.flatMap((c, i) => {
      const args = calls[i]!.arguments as Record<string, unknown>;
      const key = Object.keys(args)[0];
      return key === undefined ? [] : [item(c, withArguments(calls[i]!, { ...args, [key]: wrongValue(args[key]) }))];
    });
    const dropped = passable.flatMap((c, i) => {
      const args = calls[i]!.arguments as Record<string, unknown>;
      const required = (c.functions[0]!.parameters?.required as string[] | undefined) ?? [];
      const key = required.find((k) => k in args);
      if (key === undefined) return [];
      const { [key]: _gone, ...rest } = args;
      return [item(c, withArguments(calls[i]!, rest))];
    });
    // Most questions have an argument to change and a required one to drop; all of them are tried.
    assert.ok(wrongValues.length > 200 && dropped.length > 200, `${wrongValues.length} and ${dropped.length}`);
    for (const [kind, items, errorType] of [
      ['wrong function', wrongFunction, /wrong_func_name/],
      ['wrong value', wrongValues, /value_error|type_error|wrong|invalid/],
      ['dropped required argument', dropped, /missing_required/],
    ] as const) {
      const verdicts = await judgeBfcl(items);
      const passed = verdicts.filter((v) => v.valid).map((v) => v.id);
      assert.deepEqual(passed, [], `${kind}: BFCL's checker must fail every one`);
      for (const v of verdicts) assert.match(v.error_type, errorType, `${kind} ${v.id}: ${v.error_type}`);
    }
  });

  it('irrelevance: an abstention passes, a call fails, output it cannot decode passes', async () => {
    const [c] = bfclCases(await loadBfclSet(data, 'irrelevance'));
    const fn = c!.functions[0]!.name;
    const verdicts = await judgeBfcl([
      item(c!, { kind: 'no-call', verdict: 'abstain', code: 'no_tool' }),
      item(c!, { kind: 'call', tool: fn, arguments: {}, extraCalls: 0 }),
      item(c!, { kind: 'invalid', raw: 'I cannot help with that.', problem: 'not JSON' }),
    ]);
    assert.deepEqual(
      verdicts.map((v) => v.valid),
      [true, false, true],
    );
  });

  it("a router's catalog with renamed duplicates: offered as NAME__2, judged under BFCL's own name", async () => {
    const file = join(data, 'BFCL_v4_live_simple.json');
    const catalog = buildCatalog('bfcl', [
      await listServerTools({ name: 'bfcl', tools: file, timeoutMs: 10_000 }, { maxPages: 1 }),
    ]);
    const cases = bfclCases(simple, { catalog });
    const renamed = cases.filter((c) => c.case.tools.some((t) => /__\d+$/.test(t.function.name)));
    assert.ok(renamed.length > 10, `live_simple repeats function names with other schemas (${renamed.length})`);
    const c = renamed[0]!;
    const offered = c.case.tools[0]!.function.name;
    assert.equal(c.names.get(offered), c.functions[0]!.name);
    assert.equal(c.case.domain, 'bfcl');
    const verdicts = await judgeBfcl(renamed.filter((r) => !acceptsNothing(r)).map((r) => item(r, answered(r))));
    assert.deepEqual(
      verdicts.filter((v) => !v.valid).map((v) => v.id),
      [],
    );
  });

  it('a question keeps its system message after the router prompt', () => {
    const withSystem = simple.questions.find((q) => q.question[0]!.some((m) => m.role === 'system'))!;
    const [c] = bfclCases({ ...simple, questions: [withSystem] });
    const system = withSystem.question[0]!.find((m) => m.role === 'system')!.content;
    assert.equal(c!.case.messages.filter((m) => m.role === 'system').length, 1);
    assert.ok(c!.case.messages[0]!.content!.endsWith(system));
    assert.ok(c!.case.messages[0]!.content!.startsWith('Pick the offered tool'));
  });

  it('no unsatisfiable ask the generator knows is a near-copy of a BFCL question (token Jaccard < 0.45)', async () => {
    // The far asks and the requests for tools a catalog lacks teach "nothing offered fits"; one that BFCL also asks
    // would score the router on its own data. Those requests are drawn per seed: a few seeds, beside no catalog (so
    // every one of them is kept).
    const words = (text: string) =>
      new Set(
        text
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter((w) => w.length > 1),
      );
    const questions: Array<Set<string>> = [];
    for (const category of BFCL_CATEGORIES)
      for (const q of (await loadBfclSet(data, category)).questions)
        questions.push(
          words(
            q.question
              .flat()
              .filter((m) => m.role === 'user')
              .map((m) => m.content)
              .join(' '),
          ),
        );
    const asks = new Set([
      ...FAR_ASKS.map(([, ask]) => ask),
      ...[42, 1, 2, 3].flatMap((seed) => deriveUnsatisfiable([], { otherTools: { seed } })),
    ]);
    assert.ok(asks.size > FAR_ASKS.length + 100, `${asks.size} asks`);
    const close = [...asks].flatMap((ask) => {
      const mine = words(ask);
      const nearest = Math.max(
        ...questions.map((q) => {
          const shared = [...mine].filter((w) => q.has(w)).length;
          return shared / (mine.size + q.size - shared);
        }),
      );
      return nearest >= 0.45 ? [`${ask} (${nearest.toFixed(2)})`] : [];
    });
    assert.ok(questions.length > 2000, `${questions.length} questions`);
    assert.deepEqual(close, []);
  });

  it('refuses the categories a single decision cannot answer, saying why', () => {
    assert.throws(() => parseCategories('live_parallel'), /several calls in one answer/);
    assert.throws(() => parseCategories('multi_turn_base'), /agent loop/);
    assert.throws(() => parseCategories('live_simpel'), /not a BFCL category; the scored ones are live_simple/);
    assert.deepEqual(parseCategories('live_simple, irrelevance'), ['live_simple', 'irrelevance']);
  });

  it('a missing judge is a named error with the install hint, before anything is scored', async () => {
    const saved = process.env.FLYWHEEL_BFCL_PYTHON;
    try {
      process.env.FLYWHEEL_BFCL_PYTHON = '/nonexistent/python';
      await assert.rejects(locateBfcl(), (err: Error) => {
        assert.ok(err instanceof BfclJudgeMissing);
        assert.match(err.message, /\/nonexistent\/python does not exist; install it with `make install`/);
        return true;
      });
      // A Python that runs but lacks bfcl-eval (the system one).
      process.env.FLYWHEEL_BFCL_PYTHON = 'python3';
      await assert.rejects(locateBfcl(), (err: Error) => {
        assert.ok(err instanceof BfclJudgeMissing, err.message);
        assert.match(err.message, /cannot be imported with python3: ModuleNotFoundError: No module named 'bfcl_eval'/);
        assert.match(err.message, /requirements-bfcl\.txt/);
        return true;
      });
    } finally {
      if (saved === undefined) delete process.env.FLYWHEEL_BFCL_PYTHON;
      else process.env.FLYWHEEL_BFCL_PYTHON = saved;
    }
  });

  it('flywheel eval --bfcl scores an OpenAI-compatible endpoint per category with BFCL verdicts in bfcl.json', async () => {
    // A stand-in for a served model (vLLM, a frontier API): it gives the expected call on the first three
    // live_simple questions it is asked and calls a function that is not offered on the rest; on irrelevance it
    // calls the offered function once, a function that is not offered once, and abstains on the rest. BFCL judges
    // the answer after the router's checks: the offer check makes a call to a function not offered an abstention.
    const expected = new Map(bfclCases(simple).map((c) => [c.case.messages.at(-1)!.content, c.case.target]));
    let simpleAsked = 0;
    let irrelevantAsked = 0;
    const endpoint = await startBackendStandIn((body) => {
      const target = expected.get(body.messages.at(-1)?.content ?? '');
      if (target && target.tool !== null)
        return ++simpleAsked <= 3
          ? { call: target.tool, arguments: target.arguments, confidence: 0.9 }
          : { call: 'not_offered_anywhere', arguments: {}, confidence: 0.9 };
      // The one call on irrelevance fits its tool's schema: the router contract answers a call its schema rejects
      // as missing_argument, which would make it an abstention.
      const offered = body.tools![0]!.function as { name: string; parameters?: unknown };
      ++irrelevantAsked;
      if (irrelevantAsked === 1)
        return {
          call: offered.name,
          arguments: sampleArguments((offered.parameters ?? { type: 'object' }) as Record<string, unknown>, {
            rng: new Rng(1),
          }),
          confidence: 0.9,
        };
      return irrelevantAsked === 2
        ? { call: 'not_offered_anywhere', arguments: {}, confidence: 0.9 }
        : { abstain: { code: 'no_tool', reason: 'nothing fits' }, confidence: 0.9 };
    });
    const out = join(tempDir('flywheel-bfcl-eval-'), 'report');
    try {
      const code = await main([
        'eval',
        '--endpoint',
        endpoint.url,
        '--model',
        'stand-in',
        '--bfcl',
        'live_simple,irrelevance',
        '--limit',
        '5',
        '--concurrency',
        '1',
        '--resamples',
        '200',
        '--out',
        out,
      ]);
      assert.equal(code, 0);
    } finally {
      await endpoint.close();
    }
    const report = JSON.parse(readFileSync(join(out, 'bfcl.json'), 'utf8')) as BfclReport;
    const [live, irrelevance] = report.endpoints[0]!.categories;
    assert.equal(live!.category, 'live_simple');
    assert.equal(live!.n, 5);
    // The sample is the seeded one the CLI draws (default sample seed 7) and none of it is unanswerable.
    assert.deepEqual(
      live!.cases.map((c) => c.id),
      sampleQuestions(simple.questions, 5, '7:live_simple').map((q) => q.id),
    );
    assert.equal(live!.accuracy.value, 3 / 5);
    assert.ok(live!.accuracy.low! <= 0.6 && live!.accuracy.high! >= 0.6);
    assert.equal(live!.ours.exactMatch.value, live!.cases.filter((c) => c.exact).length / 5);
    // The two calls to a function not offered reach BFCL as the abstention the offer check made of them.
    assert.deepEqual(live!.cases.at(-1)!.bfcl.output, []);
    assert.equal(live!.cases.at(-1)!.outcome, 'spurious_abstention');
    assert.equal(
      Object.values(live!.errorTypes).reduce((a, b) => a + b, 0),
      2,
    );
    assert.equal(irrelevance!.accuracy.value, 4 / 5);
    assert.deepEqual(irrelevance!.cases[1]!.bfcl, { output: [], valid: true, errorType: '', error: '' });
    assert.equal(irrelevance!.ours.abstention.recall.value, 4 / 5);
    assert.match(readFileSync(join(out, 'bfcl.md'), 'utf8'), /\| live_simple \| stand-in \| 5 \| 0\.600 \[/);
  });

  it('flywheel eval --bfcl with a parallel category exits 2 saying why, before asking anything', async () => {
    const code = await main(['eval', '--endpoint', 'http://127.0.0.1:9/v1', '--model', 'm', '--bfcl', 'live_parallel']);
    assert.equal(code, 2);
  });
});
