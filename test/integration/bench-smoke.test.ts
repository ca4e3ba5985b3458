/**
 * Every benchmark still runs to completion: each script under scripts/bench/ and trainer/bench/ at its smallest
 * size (a few rows, steps and calls; the quality benchmark on tiny:nano), checked by its last line. The figures
 * mean nothing at this size; the docs quote the full runs (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { TRAINER_ROOT, trainerPython } from '../../core/train/trainer-process.js';
import { REPO, datasetOnlyDefault, tempDir } from '../helpers/fixtures.js';
import { trainTinyAdapter } from '../helpers/tiny-adapter.js';

const run = promisify(execFile);
// Hang guards, not speed checks: `make test` runs two files at a time, and a bench that shares both cores with
// another suite took up to twice its time alone (engine-parity 58 -> 115 s; this suite 12 -> 14 minutes).
const TIMEOUT = 10 * 60_000;

const esc = (s: string) => s.replace(/[()+*]/g, '\\$&');

async function bench(script: string, args: string[]): Promise<string> {
  return (await benchRun(script, args)).stdout.trim().split('\n').at(-1)!;
}

/** A node bench's whole output: stdout, and stderr where its progress goes. */
async function benchRun(script: string, args: string[]) {
  return run(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'bench', script), ...args], {
    cwd: REPO,
    timeout: TIMEOUT,
    maxBuffer: 32 << 20,
  });
}

/** A trainer bench's whole output (stdout, trimmed). */
async function pyBenchOutput(script: string, args: string[]): Promise<string> {
  const { stdout } = await run(trainerPython(), [join(TRAINER_ROOT, 'bench', script), ...args], {
    cwd: REPO,
    timeout: TIMEOUT,
    maxBuffer: 32 << 20,
    env: { ...process.env, PYTHONPATH: TRAINER_ROOT },
  });
  return stdout.trim();
}

async function pyBench(script: string, args: string[]): Promise<string> {
  return (await pyBenchOutput(script, args)).split('\n').at(-1)!;
}

describe('benchmarks, smoke-sized', { timeout: 40 * 60_000 }, () => {
  const out = join(tempDir('flywheel-bench-smoke-'), 'quality');

  it('every script under scripts/bench/ is covered here', () => {
    const scripts = readdirSync(join(REPO, 'scripts', 'bench')).filter(
      (f) => f.endsWith('.ts') && !f.startsWith('bench-'),
    );
    assert.deepEqual(scripts.sort(), [
      'bfcl.ts',
      'dataset-build.ts',
      'engine-parity.ts',
      'flywheel-turns.ts', // turned at toy size in flywheel-turns.test.ts
      'gateway-load.ts',
      'generic-intents.ts',
      'history-size.ts',
      'memo-identity.ts',
      'quality.ts',
      'retriever-recall.ts',
      'sandbox-dryrun.ts',
      'scale-out.ts',
      'stage-overhead.ts',
      'weights.ts',
    ]);
    assert.deepEqual(
      readdirSync(join(TRAINER_ROOT, 'bench'))
        .filter((f) => f.endsWith('.py'))
        .sort(),
      [
        'cpu_step.py',
        'decision_probe.py',
        'job_variants.py',
        'logprobs_latency.py',
        'lora_throughput.py',
        'prompt_tokens.py',
        'serve_latency.py',
        'shared_prefix.py',
      ],
    );
  });

  it('scale-out: chunked generate and solve on one and two worker processes', async () => {
    assert.match(
      await bench('scale-out.ts', ['--rows', '100', '--latency-ms', '20', '--workers', '1,2', '--chunks', '2']),
      /^scale-out: 1w=[\d.]+ 2w=[\d.]+ efficiency2=[\d.]+$/,
    );
  });

  it('gateway-load: requests through the gateway and straight to the backend, none lost or answered twice', async () => {
    assert.match(
      await bench('gateway-load.ts', ['--requests', '100', '--concurrency', '10']),
      /^gateway-load: requests=100 p50_overhead_ms=-?[\d.]+ p99_overhead_ms=-?[\d.]+ lost=0 duplicated=0$/,
    );
  });

  it('gateway-load --engines: serve and a real vLLM behind the gateway, each level answered in full', async () => {
    const { stdout } = await benchRun('gateway-load.ts', [
      ...['--engines', '--base', 'tiny:micro', '--levels', '1,2', '--requests', '2'],
    ]);
    const lines = stdout.split('\n').filter((l) => l.startsWith('gateway-engines: '));
    assert.deepEqual(
      lines.map((l) => /engine=(\w+) concurrency=(\d+)/.exec(l)!.slice(1).join('@')),
      ['serve@1', 'serve@2', 'vllm@1', 'vllm@2'],
    );
    for (const l of lines)
      assert.match(
        l,
        /decisions_per_s=[\d.]+ p50_ms=\d+ p95_ms=\d+ completion_tokens=[\d.]+ usd_per_1k=[\d.]+ answered=2\/2$/,
      );
    assert.match(stdout, /\| engine \| concurrency \| decisions\/s \|/);
  });

  it('engine-parity: one tiny adapter through serve and a real vLLM, both read by the router contract', async () => {
    const dir = tempDir('flywheel-bench-parity-');
    const tiny = await trainTinyAdapter(dir, 0, 30, 'tiny:micro');
    const testset = join(dir, 'val.jsonl');
    const { stdout } = await benchRun('engine-parity.ts', [
      ...['--adapter', tiny.adapter, '--testset', testset, '--test', '3', '--cases', 'none', '--bfcl-dev', '0'],
      ...['--out', join(dir, 'out')],
    ]);
    assert.match(
      stdout,
      /^engine-parity: set="synthetic test" n=3 serve_exact=[\d.]+ vllm_exact=[\d.]+ off_schema=\d+\/\d+ differing=\d+ failed=0$/m,
    );
    assert.match(stdout, /\| set \| n \| serve exact \| vLLM exact \|/);
    const parity = JSON.parse(readFileSync(join(dir, 'out', 'parity.json'), 'utf8')) as { rows: unknown[] };
    assert.equal(parity.rows.length, 1);
  });

  it('history-size: the dataset stages in chunks through Temporal, and what the history weighs', async () => {
    assert.match(
      await bench('history-size.ts', ['--rows', '600', '--chunk-size', '200']),
      /^history-size: rows=\d+ events=\d+ bytes=\d+ warn=no seconds=\d+$/,
    );
  });

  it('dataset-build: the dataset stages three ways, through Temporal to the end', async () => {
    assert.match(
      await bench('dataset-build.ts', ['--per-goal', '4']),
      /^artifact persistence .* Temporal vs in memory: [\d.]+x$/,
    );
  });

  it('memo-identity: a store one call filled is found whole by the next', async () => {
    const example = await datasetOnlyDefault();
    const config = join(tempDir('flywheel-memo-identity-'), 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        ...example,
        name: 'memo-identity',
        artifacts: { store: `file://${tempDir('flywheel-memo-identity-store-')}` },
        dataset: { ...example.dataset!, perGoal: 2 },
      }),
    );
    // The first call finds an empty store: every stage runs, and the script says so with exit 1.
    const first = await benchRun('memo-identity.ts', ['--config', config]).catch(
      (err: { code?: number; stdout?: string }) => err,
    );
    assert.equal((first as { code?: number }).code, 1);
    assert.match(
      String((first as { stdout?: string }).stdout)
        .trim()
        .split('\n')
        .at(-1)!,
      /^memo-identity: reused=0\/8$/,
    );
    // The first split pinned its test set, which keys every later split: the second call finds every stage before
    // split and runs split (and render, whose test input is now the pinned ref) once more; the third finds all.
    const second = (await benchRun('memo-identity.ts', ['--config', config]).catch(
      (err: { stdout?: string }) => err,
    )) as {
      stdout?: string;
    };
    for (const stage of ['ingest', 'intents', 'generate', 'solve', 'validate', 'corrupt'])
      assert.match(String(second.stdout), new RegExp(`^${stage} +reused`, 'm'));
    assert.equal(await bench('memo-identity.ts', ['--config', config]), 'memo-identity: reused=8/8');
  });

  it('generic-intents, sandbox-dryrun, stage-overhead, retriever-recall', async () => {
    assert.match(await bench('generic-intents.ts', ['--tools', '20']), /^covered: 20\/20 tools have valid rows/);
    assert.match(
      await bench('sandbox-dryrun.ts', ['--calls', '10']),
      /dry-runs\/s: in-process \d+, MCP stdio \d+ .* MCP HTTP \d+/,
    );
    assert.match(await bench('stage-overhead.ts', ['--runs', '2']), /^ingest .*ratio [\d.]+x$/);
    assert.match(await bench('retriever-recall.ts', []), /^retriever: recall@8 test=[\d.]+ handwritten=[\d.]+$/);
  });

  it("bfcl: a router from the scored questions' function schemas, base and router judged by BFCL (tiny:nano, 2 steps)", async () => {
    const dir = join(tempDir('flywheel-bench-smoke-'), 'bfcl');
    assert.match(
      await bench('bfcl.ts', [
        ...['--live-simple', '3', '--live-multiple', '3', '--irrelevance', '3', '--live-irrelevance', '3'],
        ...['--steps', '2', '--job', JSON.stringify({ baseModel: 'tiny:nano', lora: { topLayers: null } })],
        ...['--out', dir],
      ]),
      /^bfcl: live_simple=[\d.]+ live_multiple=[\d.]+ irrelevance=[\d.]+ live_irrelevance=[\d.]+ base_live_simple=[\d.]+ base_live_multiple=[\d.]+ base_irrelevance=[\d.]+ base_live_irrelevance=[\d.]+$/,
    );
    // The router's catalog holds the scored questions' functions and nothing of their questions.
    const functions = readFileSync(join(dir, 'functions.jsonl'), 'utf8').trim().split('\n');
    assert.ok(functions.every((l) => !('question' in (JSON.parse(l) as object))));
    assert.match(readFileSync(join(dir, 'bfcl.md'), 'utf8'), /^\| live_simple \| base \| 3 \|/m);
    // --dev: the dev split alone (live_multiple and the dev half of irrelevance).
    assert.match(
      await bench('bfcl.ts', [
        ...['--dev', '--live-multiple', '2', '--irrelevance', '2', '--steps', '1'],
        ...['--job', JSON.stringify({ baseModel: 'tiny:nano', lora: { topLayers: null } }), '--out', `${dir}-dev`],
      ]),
      /^bfcl: live_simple=- live_multiple=[\d.]+ irrelevance=[\d.]+ live_irrelevance=- base_live_simple=- /,
    );
  });

  it('weights: routers by phrasing and budget, each base and the chosen one with priors, on every set (tiny:nano)', async () => {
    const dir = join(tempDir('flywheel-bench-smoke-'), 'weights');
    const hand = (f: string) => join(REPO, 'test', 'fixtures', 'handwritten', f);
    // The catalog (and so the rows each router trains on) comes from the configs and BFCL's questions, not the
    // cases scored: a rerun that scores fewer cases trains on the same rows.
    const args = [
      ...['--router', 'short:steps=1', '--router', 'natural:phrasing=natural,minslice=1,steps=2'],
      ...['--bfcl-dev', '1', '--bfcl-report', '1', '--out', dir],
      ...['--job', JSON.stringify({ baseModel: 'tiny:nano', lora: { topLayers: null } })],
    ];
    const sets = [
      '--test',
      '4',
      '--cases',
      `sandboxes=${hand('sandboxes.jsonl')}`,
      '--cases',
      `foreign=${hand('sqlite.jsonl')}`,
    ];
    // --prepare writes each router's job and stops; one job trained outside the benchmark (as on a GPU machine)
    // is then reused by the run, which trains the other itself.
    const prepared = await benchRun('weights.ts', [...args, '--priors', 'short', ...sets, '--prepare']);
    assert.match(prepared.stderr, /prepared: train each job/);
    assert.equal(prepared.stdout.trim(), '');
    assert.ok(!existsSync(join(dir, 'short', 'adapter')), '--prepare trained nothing');
    await run(trainerPython(), ['-m', 'flywheel_trainer', 'train', '--job', join(dir, 'short.job.json')], {
      cwd: REPO,
      timeout: TIMEOUT,
      maxBuffer: 32 << 20,
      env: { ...process.env, PYTHONPATH: TRAINER_ROOT },
    });
    const first = await benchRun('weights.ts', [...args, '--priors', 'short', ...sets]);
    assert.match(first.stderr, /reusing short from/);
    assert.match(first.stderr, /training natural/);
    assert.match(
      first.stdout.trim().split('\n').at(-1)!,
      /^weights: best=(short|natural) dev=[\d.]+ synthetic=[\d.]+ sandboxes=[\d.]+ foreign=[\d.]+ bfcl_dev=[\d.]+ live_simple=[\d.]+ base_live_simple=[\d.]+$/,
    );
    const table = readFileSync(join(dir, 'weights.md'), 'utf8');
    // A row per base, per router and for the chosen router with priors; a column per set, BFCL's report split too.
    assert.match(
      table,
      /^\| model \| dev \(pooled\) \(n 96\) \| synthetic test \(n 4\) \| hand-written sandboxes \(n 66\) \| hand-written foreign \(n 28\) \| BFCL dev \(n 2\) \| live_simple \(n 1\) \| irrelevance \(report half\) \(n 1\) \| live_irrelevance \(n 1\) \| live_simple answered with no call \(n 1\) \|$/m,
    );
    const rows: Array<[string, string]> = [
      ['base tiny:nano', ''],
      ['short', ' (1 step, description'],
      ['natural', ' (2 steps, natural, 1–6 tools a row'],
      ['short + priors', ' (1 step, description, tiny:nano, serve priors on)'],
    ];
    for (const [name, detail] of rows)
      assert.match(table, new RegExp(`^\\| (\\*\\*)?${esc(name)}(\\*\\*)?${esc(detail)}`, 'm'));
    assert.match(table, /^\| BFCL live_simple ≥ base \+ 0\.20 \| floor \| [\d.]+ \| (yes|no) \|$/m);
    // Which way each errs: calls answered with no call · no-calls answered with a call, per set, a row per model.
    assert.match(
      table,
      /^\| model \| synthetic test \| hand-written sandboxes \| hand-written foreign \| BFCL dev \| BFCL report \|$/m,
    );
    const cell = '(\\d+/\\d+|—) · (\\d+/\\d+|—)';
    for (const name of ['base tiny:nano', 'short', 'natural', 'short + priors'])
      assert.match(table, new RegExp(`^\\| ${esc(name)} \\| ${cell}( \\| ${cell}){4} \\|$`, 'm'));
    // The sandboxes' cases hold both calls and no-calls: both counts, over the set's own calls and no-calls.
    assert.match(table, /^\| short \| [^|]+ \| \d+\/\d+ · \d+\/\d+ \|/m);
    // Both routers were trained on the same catalog, one dataset phrased each way; natural's (minslice=1), written
    // under its own name, offers menus of several sizes, down to one tool.
    const naturalRows = readFileSync(join(dir, 'natural-min1-train.jsonl'), 'utf8');
    assert.notEqual(naturalRows, readFileSync(join(dir, 'description-train.jsonl'), 'utf8'));
    const menus = new Set(
      naturalRows
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { tools: unknown[] }).tools.length),
    );
    assert.ok(menus.has(1) && menus.size > 2, `menu sizes ${[...menus].join(', ')}`);
    // A rerun into the same directory reuses both adapters (the same job on the same rows); with no base or priors
    // row, no synthetic set, and natural minus short paired on every set.
    const again = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO, 'scripts', 'bench', 'weights.ts'),
        ...args,
        ...['--priors', 'none', '--no-base', '--paired', 'natural,short', '--test', '0'],
        '--cases',
        `foreign=${hand('sqlite.jsonl')}`,
      ],
      { cwd: REPO, timeout: TIMEOUT, maxBuffer: 32 << 20 },
    );
    assert.match(again.stderr, /reusing short from/);
    const rerun = readFileSync(join(dir, 'weights.md'), 'utf8');
    assert.doesNotMatch(rerun, /\+ priors/);
    assert.doesNotMatch(rerun, /^\| base /m);
    // With no base scored, the floor measured against it is not checked.
    assert.match(rerun, /^\| BFCL live_simple ≥ base \+ 0\.20 \| floor \| [\d.]+ \| — \|$/m);
    assert.match(again.stdout.trim().split('\n').at(-1)!, / base_live_simple=-$/);
    assert.match(rerun, /^natural − short, paired per case/m);
    // One row of differences, each with its interval; the synthetic set (second) is empty.
    const d = String.raw`-?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]`;
    assert.match(rerun, new RegExp(String.raw`^\| ${d} \| — \| ${d} \|`, 'm'));
  });

  it('quality (on tiny:nano, 2 steps), then the trainer benches on its rows and adapter', async () => {
    const job = JSON.stringify({ baseModel: 'tiny:nano', lora: { topLayers: null } });
    assert.match(
      await bench('quality.ts', [
        '--steps',
        '2',
        '--dpo-steps',
        '2',
        '--test',
        '3',
        '--handwritten',
        '3',
        '--ablations',
        'none',
        '--job',
        job,
        '--out',
        out,
      ]),
      /^quality: exact=[\d.]+ tool=[\d.]+ abstainF1=[\d.]+ handwritten_exact=[\d.]+ base_exact=[\d.]+$/,
    );
    // SFT against SFT + DPO: the DPO row, and main vs main + DPO per operator.
    const md = readFileSync(join(out, 'quality.md'), 'utf8');
    assert.match(md, /^\| main \+ DPO \| [\d.]+ \|/m);
    assert.match(md, /^\| operator \| cases \| main exact \| main \+ DPO exact \|/m);
    const rows = join(out, 'val.jsonl');
    assert.match(
      await pyBench('prompt_tokens.py', ['--rendered', rows, '--base', join(out, 'main', 'base')]),
      /^\s*completion\s+p50\s+\d+/,
    );
    const latency = await pyBenchOutput('serve_latency.py', [
      '--adapter',
      join(out, 'main', 'adapter'),
      '--rendered',
      rows,
      '--n',
      '2',
    ]);
    assert.match(latency, /^agent +\+ prefix reuse .* 2\/2$/m, 'float32 measures answer as per-token does');
    assert.match(
      latency,
      /^agent +\+ bf16 copy .* [0-2]\/2$/m,
      'the bf16 copy is measured and its differing answers counted',
    );
    const logprobs = await pyBenchOutput('logprobs_latency.py', [
      ...['--adapter', join(out, 'main', 'adapter'), '--rendered', rows, '--n', '2', '--cpu-dtype', 'float32'],
    ]);
    const scored =
      /^logprobs: generate=[\d.]+ greedy_logprobs=[\d.]+ greedy=[\d.]+ speedup=[\d.]+ same=(\d)\/2 gap=(\S+)$/m.exec(
        logprobs,
      );
    assert.ok(scored, logprobs);
    assert.equal(scored[1], '2', 'in float32 the greedy decoder answers as generate() does');
    assert.ok(Number(scored[2]) <= 1e-3, `and scores each token alike: ${logprobs}`);
    const probe = [
      '--rendered',
      rows,
      '--adapter',
      join(out, 'main', 'adapter'),
      '--base',
      join(out, 'main', 'base'),
      '--n',
      '3',
      '--linear',
      rows,
      '--linear-n',
      '4',
      '--decode',
    ];
    const probed = await pyBenchOutput('decision_probe.py', probe);
    assert.match(
      probed.split('\n').at(-1)!,
      /^decision: n=3 acc=[\d.]+ pcall_calls=([\d.]+|nan) pcall_nocalls=([\d.]+|nan)$/,
    );
    assert.match(probed, /^exact: own decision [\d.]+, right decision [\d.]+ \(n=3\)$/m);
    const shared = await pyBenchOutput('shared_prefix.py', [
      '--rendered',
      join(out, 'train.jsonl'),
      '--base',
      join(out, 'main', 'base'),
      '--groups',
      '3',
      '--top-layers',
      '0',
      '--precision',
      'fp32',
    ]);
    assert.match(
      shared.split('\n').at(-1)!,
      /^shared-prefix: rows=\d+ groups=3 one_row_rows_per_s=[\d.]+ shared_rows_per_s=[\d.]+ ratio=[\d.]+$/,
    );
    const losses = [...shared.matchAll(/^(?:one row a pass|shared prefixes) .* ([\d.]+)$/gm)].map((m) => Number(m[1]));
    assert.equal(losses.length, 2);
    assert.ok(
      Math.abs(losses[0]! - losses[1]!) <= 1e-3 * losses[0]!,
      `each answer scores the same either way: ${losses}`,
    );
    const variants = await pyBench('job_variants.py', [
      '--job',
      join(out, 'main.job.json'),
      '--variant',
      'no-dropout={"lora":{"dropout":0}}',
      '--steps',
      '4',
      '--reps',
      '1',
    ]);
    assert.match(variants, /^job-variants: baseline=[\d.]+ no-dropout=[\d.]+ ratio_no-dropout=[\d.]+$/);
    const step = await pyBenchOutput('cpu_step.py', [
      '--job',
      join(out, 'main.job.json'),
      '--steps',
      '2',
      '--warmup',
      '1',
    ]);
    assert.match(step, /^aten::mm +[\d.]+%$/m, 'the profiler lists the ops a step spent its time in');
    const figures = Object.fromEntries(
      [
        ...step
          .split('\n')
          .at(-1)!
          .matchAll(/(\w+)=([\d.]+)/g),
      ].map((m) => [m[1]!, Number(m[2])]),
    );
    assert.ok(figures.tokens_per_s! > 0 && figures.step_gflops! > 0 && figures.peak_bf16_gflops_s! > 0, step);
    assert.ok(figures.share_of_peak! > 0 && figures.share_of_peak! < 1, `a step reaches part of the peak: ${step}`);
    assert.match(
      await pyBench('lora_throughput.py', [
        '--shape',
        'tiny',
        '--steps',
        '2',
        '--warmup',
        '1',
        '--seq',
        '256',
        '--rows',
        '32',
      ]),
      /"ratio_tokens_per_s"/,
    );
  });
});
