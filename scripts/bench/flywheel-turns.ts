/**
 * The flywheel, turned and measured: does each turn make the router better, the frontier needed less, and a decision
 * cheaper? Everything runs for real (a Temporal dev server and workers, `flywheel serve` as the deploy target, the
 * router gateway with its trace log, the retrain policy) except the frontier model, which cannot be reached here:
 * a stand-in answers escalations from the held labels and is wrong at --error-rate (scripts/lib/label-frontier.ts).
 *
 *   node --import tsx scripts/bench/flywheel-turns.ts [--turns 3] [--batch-size 100] [--held-out 100]
 *        [--validation 100] [--gate 50] [--error-rate 0.05] [--steps 240] [--min-new-rows 20]
 *        [--target-precision P] [--trace-share S] [--phrasing description|natural] [--confidence tool|answer]
 *        [--seed S] [--config FILE] [--out DIR] [--keep-store]
 *
 * Traffic is BFCL's `live_simple` and `live_multiple` (requests people sent with their own functions), split by the
 * seed into a held-out slice (never sent through the gateway, so no turn can train on it), a validation slice, a gate
 * slice and one batch per turn (core/flywheel/traffic.ts). The catalog is the union of the used questions'
 * functions, read as a tool file; the dataset and train sections come from --config (default: the demo's), with
 * training capped at --steps; --trace-share sets the retrains' dataset.traceShare (the share of train the rows from
 * the gateway's traces are repeated up to; unset, they are trained on as they come); --phrasing sets every run's
 * dataset.phrasing (the synthetic requests phrased from the tool's description or from what it does); --confidence
 * what the gateway, the threshold and every eval read as a decision's confidence (gateway.confidence and
 * evaluate.calibration.confidence: the chosen tool's name tokens or the whole answer). The serve
 * behind the alias runs with its priors off, so every figure is the weights with the constraint.
 *
 * Turn 0 is a normal run: synthetic data, train, evaluate, gate, deploy. Then the escalation threshold is chosen
 * once, on the validation slice sent through the gateway (to --target-precision of the answers kept, default the
 * config's evaluate.calibration.targetPrecision), and the gate slice is pinned as the frozen test set, so later gates
 * compare candidates on requests people sent. Each turn k ≥ 1 sends batch k through the gateway (below the threshold
 * the stand-in answers), then runs the flywheel on the gateway's trace log: the retrain policy decides, the gate
 * compares, deploy promotes a winner. After every turn the held-out slice is scored on the deployed router directly.
 * The store is deleted at the end (--keep-store keeps it); its adapters never ship.
 *
 * Cost per 1K decisions at fixed prices (core/flywheel/cost.ts): the router at $2.50 per GPU-hour at the decisions/s
 * measured on the held-out slice, plus $3 per 1M input and $15 per 1M output tokens for each request the gateway's
 * rule would escalate. Writes turns.json, turns.md and turns.svg to --out; the last line is
 *   flywheel-turns: exact=E0,E1,… escalation=R0,R1,… cost_per_1k=C0,C1,… all_teacher_cost_per_1k=C
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../../core/artifacts/index.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { catalogHistory } from '../../core/catalog/history.js';
import type { Catalog } from '../../core/catalog/types.js';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import { evaluateSchema, gatewaySchema } from '../../core/config/schema.js';
import { pinTestSet } from '../../core/dataset/testset.js';
import { openRegistry } from '../../core/deploy/registry.js';
import { calibrationOf } from '../../core/eval/calibration.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import { INVALID } from '../../core/eval/types.js';
import { DEFAULT_PRICES, turnCost } from '../../core/flywheel/cost.js';
import { turnsLine, turnsPlot, turnsTable, type TurnFigures } from '../../core/flywheel/turns-report.js';
import type { RunProgress } from '../../core/pipeline/types.js';
import { startServe } from '../../core/train/serve-process.js';
import { startGateway } from '../../gateway/server.js';
import { REPO } from '../../test/helpers/fixtures.js';
import { runResult, startFlywheel } from '../../test/helpers/temporal.js';
import {
  gateRows,
  loadTraffic,
  requestText,
  trafficCases,
  usedIds,
  writeFunctionsFile,
  type TrafficCase,
} from '../lib/bfcl-traffic.js';
import { labelTokens, startLabelFrontier } from '../lib/label-frontier.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { startRun } from '../lib/runs.js';
import { sendThroughGateway } from '../lib/send-traffic.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '3' },
    'batch-size': { type: 'string', default: '100' },
    'held-out': { type: 'string', default: '100' },
    validation: { type: 'string', default: '100' },
    gate: { type: 'string', default: '50' },
    'error-rate': { type: 'string', default: '0.05' },
    steps: { type: 'string', default: '240' },
    'min-new-rows': { type: 'string', default: '20' },
    'target-precision': { type: 'string' },
    'trace-share': { type: 'string' },
    phrasing: { type: 'string' },
    confidence: { type: 'string' },
    seed: { type: 'string', default: 'flywheel-turns' },
    config: { type: 'string', default: join(REPO, DEFAULT_CONFIG) },
    out: {
      type: 'string',
      default: join('.flywheel', 'bench', `flywheel-turns-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    },
    'keep-store': { type: 'boolean', default: false },
  },
});
const whole = (flag: keyof typeof values, min = 0) => {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${flag}: expected a whole number ≥ ${min}, got ${String(values[flag])}`);
  return n;
};
const turns = whole('turns', 1);
const sizes = {
  heldOut: whole('held-out', 1),
  validation: whole('validation', 1),
  gate: whole('gate', 1),
  batches: turns,
  batchSize: whole('batch-size', 1),
};
const errorRate = Number(values['error-rate']);
const out = resolve(values.out);
await mkdir(out, { recursive: true });
const t0 = performance.now();
const say = (line: string) => console.error(`[${((performance.now() - t0) / 60_000).toFixed(1)} min] ${line}`);

// ---- traffic and the catalog it implies ----
const traffic = await loadTraffic(sizes, values.seed);
const functionsFile = join(out, 'functions.jsonl');
const functions = await writeFunctionsFile(traffic, usedIds(traffic.split), functionsFile);
say(
  `traffic: BFCL live_simple + live_multiple, ${usedIds(traffic.split).length} requests (held out ${sizes.heldOut}, validation ${sizes.validation}, gate ${sizes.gate}, ${turns} batches of ${sizes.batchSize}); catalog: ${functions} functions`,
);

const loaded = await loadConfigFile(values.config);
if (!loaded.dataset || !loaded.train)
  throw new Error(`${values.config}: the benchmark needs dataset and train sections`);
const ev = loaded.evaluate ?? evaluateSchema.parse({});
const targetPrecision = Number(values['target-precision'] ?? ev.calibration.targetPrecision);
const DOMAIN = 'bfcl';
const tracesDir = join(out, 'gateway-traces');
await mkdir(tracesDir, { recursive: true });
const registry = join(out, 'registry.sqlite');
const storeDir = join(out, 'store');

// The alias's backend: serve with its priors off, so the router answers from its weights and the constraint.
const serve = await startServe(
  ['--retrieval-weight', '0', '--copy-weight', '0', '--fill-weight', '0'],
  join(out, 'serve.log'),
);
const flywheel = await startFlywheel();
// Stopped from outside (kill, Ctrl-C): the dev server, serve and the store go as at the end (the trainer watches its
// parent). Not the workers' graceful stop: it waits on a training step.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.once(signal, () => {
    serve.run.kill();
    void flywheel.env
      .teardown()
      .catch(() => undefined)
      .then(() => (values['keep-store'] ? undefined : rm(storeDir, { recursive: true, force: true })))
      .finally(() => process.exit(code));
  });
const { gateway: _gateway, schedules: _schedules, ...base } = loaded as typeof loaded & { schedules?: unknown };
const job = structuredClone(loaded.train.job) as Record<string, unknown> & { optim?: Record<string, unknown> };
job.optim = { ...(job.optim ?? {}), maxSteps: whole('steps', 1) };
// Turn 0 has no traces yet; later turns read the gateway's log under the retrain policy.
const traceShare = values['trace-share'] === undefined ? undefined : Number(values['trace-share']);
const configFor = (k: number) =>
  parseConfig({
    ...config,
    ...(k > 0
      ? {
          traces: [tracesDir],
          retrain: { minNewTraceRows: whole('min-new-rows') },
          ...(traceShare === undefined ? {} : { dataset: { ...config.dataset, traceShare } }),
        }
      : {}),
  });
const phrasing = values.phrasing;
const config = parseConfig({
  ...base,
  name: 'flywheel-turns',
  ...(phrasing === undefined ? {} : { dataset: { ...base.dataset, phrasing } }),
  servers: [{ name: DOMAIN, tools: functionsFile, timeoutMs: 30_000 }],
  artifacts: { store: `file://${storeDir}` },
  traces: [],
  retrain: undefined,
  train: { ...loaded.train, job },
  // Every gate-slice request, once it is the test set; turn 0 samples as many from the synthetic test set.
  evaluate: {
    ...ev,
    limit: sizes.gate,
    cost: { kind: 'gpu-hour', dollarsPerHour: DEFAULT_PRICES.gpuHour },
    calibration: { ...ev.calibration, ...(values.confidence === undefined ? {} : { confidence: values.confidence }) },
  },
  deploy: {
    ...(loaded.deploy ?? {}),
    alias: 'router',
    target: 'local',
    endpoint: serve.url,
    registry,
    adapterDir: join(out, 'served'),
  },
});
// The retrains' config checked now (--trace-share among it), not after turn 0's twenty minutes.
configFor(1);
// What the gateway, the threshold and the held-out scoring read as confidence (checked by the config schema above).
const confidence = config.evaluate!.calibration.confidence;
const store = openStore(config.artifacts.store);

const figures: TurnFigures[] = [];
/** Each run's dataset artifacts, for checking what a turn trained on (with --keep-store). */
const runs: Array<{ turn: number; runId: string; outputs: Record<string, ArtifactRef> }> = [];
let frontierClose: (() => Promise<void>) | undefined;
try {
  // ---- turn 0: a normal run ----
  say('turn 0: catalog, synthetic dataset, train, evaluate, gate, deploy');
  const run0 = await runTurn(0);
  const catalogRef = stageOf(run0.progress, 'ingest').outputs.catalog!;
  const catalog = await store.readJson<Catalog>(catalogRef);
  const cases = (ids: readonly string[]) => trafficCases(traffic, ids, catalog);
  const heldOut = cases(traffic.split.heldOut);
  const batches = traffic.split.batches.map(cases);
  if (!(await deployedVersion()))
    throw new Error(`turn 0 deployed nothing (gate: ${run0.gate}); the wheel cannot turn`);

  // ---- the escalation threshold, once, on validation traffic through the gateway (nothing escalates yet) ----
  const validation = await withGateway(join(out, 'validation-traces'), undefined, (url) =>
    sendThroughGateway(cases(traffic.split.validation), url, gatewayOpts('validation')),
  );
  const calibration = calibrationOf(validation, { targetPrecision, bins: ev.calibration.bins, confidence })!;
  const threshold = calibration.setting ?? 1;
  say(
    `threshold ${threshold} (${calibration.setting === null ? `no threshold reaches precision ${targetPrecision}: only decisions of confidence 1 are kept` : `precision ${targetPrecision} on ${calibration.cases} validation decisions`}; ECE ${calibration.expectedCalibrationError?.toFixed(3) ?? '-'})`,
  );

  // ---- the gate slice, pinned as the frozen test set: later gates compare candidates on real requests ----
  const version = (await catalogHistory(store, config.name)).at(-1)!.version;
  const gate = gateRows(cases(traffic.split.gate), catalog, config.dataset!, DOMAIN);
  const gateRef = await store.putJsonl('test', gate.rows, {
    stats: { rows: gate.rows.length, handwritten: true, importedFrom: 'BFCL gate slice', refused: gate.refused.length },
  });
  await pinTestSet(store, config.name, version, gateRef, 'import');
  say(
    `gate slice: ${gate.rows.length} requests pinned as the test set (${gate.refused.length} whose label the schemas refuse left out)`,
  );

  // The report so far, rewritten after every turn: a run stopped early keeps the turns it measured.
  const writeReport = async () => {
    const report = {
      createdAt: new Date().toISOString(),
      sizes,
      seed: values.seed,
      errorRate,
      threshold,
      targetPrecision,
      calibration,
      prices: DEFAULT_PRICES,
      catalog: { functions, ref: catalogRef },
      store: values['keep-store'] ? config.artifacts.store : null,
      slices: traffic.split,
      requests: Object.fromEntries(
        usedIds(traffic.split).map((id) => [id, requestText(traffic.questions.get(id)!.question)]),
      ),
      /** What the frontier stand-in held, by request text. */
      labels: Object.fromEntries(batches.flat().map((c) => [c.text, c.label])),
      runs,
      turns: figures,
    };
    await writeFile(join(out, 'turns.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(out, 'turns.svg'), `${turnsPlot(figures)}\n`);
    await writeFile(
      join(out, 'turns.md'),
      `${turnsTable(figures)}\n\nHeld-out: ${sizes.heldOut} BFCL requests never sent through the gateway, scored on the deployed router with serve's priors off. Threshold ${threshold} (target precision ${targetPrecision} on ${sizes.validation} validation requests). Frontier stand-in error rate ${errorRate}. ${functions} functions; ${whole('steps', 1)} training steps per run${traceShare === undefined ? '' : `; trace rows repeated to ${traceShare} of train`}${phrasing === undefined ? '' : `; synthetic requests phrased by ${phrasing}`}; confidence: ${confidence === 'answer' ? 'the whole answer' : "the tool name's tokens"}. ${figures.length - 1} of ${turns} turns in ${((performance.now() - t0) / 60_000).toFixed(1)} min.\n`,
    );
    say(`turn ${figures.length - 1} measured: ${turnsLine(figures)}`);
  };

  figures.push(await measure(0, run0, heldOut, threshold, null));
  await writeReport();

  // ---- the stand-in frontier, holding every batch request's label ----
  const frontier = await startLabelFrontier({
    labels: new Map(batches.flat().map((c) => [c.text, c.label])),
    errorRate,
    seed: values.seed,
  });
  frontierClose = frontier.close;
  const escalation = { baseUrl: frontier.url, model: 'label-frontier', minConfidence: threshold };

  for (let k = 1; k <= turns; k++) {
    say(`turn ${k}: ${batches[k - 1]!.length} requests through the gateway`);
    const sent = await withGateway(tracesDir, escalation, (url) =>
      sendThroughGateway(batches[k - 1]!, url, gatewayOpts(`turn ${k}`)),
    );
    const runK = await runTurn(k);
    figures.push(
      await measure(k, runK, heldOut, threshold, {
        n: sent.length,
        escalated: sent.filter((s) => s.escalated).length,
        exact: sent.filter((s) => s.exact).length,
      }),
    );
    await writeReport();
  }
  say(`frontier stand-in: ${JSON.stringify(frontier.stats())}`);
  console.log(turnsTable(figures));
  say(`report: ${join(out, 'turns.md')}`);
  console.log(turnsLine(figures));
} catch (err) {
  // Said before the clean-up below, which could fail too and hide it.
  console.error(`flywheel-turns failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  await frontierClose?.();
  await flywheel.stop().catch((err: unknown) => console.error(`stopping the workers: ${(err as Error).message}`));
  serve.run.kill();
  if (!values['keep-store']) await rm(storeDir, { recursive: true, force: true });
}

// ---- helpers ----

function stageOf(p: RunProgress, name: string) {
  const s = p.stages.find((x) => x.name === name);
  if (!s) throw new Error(`the run has no ${name} stage`);
  return s;
}

/** Run the flywheel once on the config and say what its gate did. */
async function runTurn(k: number): Promise<{ runId: string; progress: RunProgress; gate: string }> {
  const cfg = configFor(k);
  const { handle, runId } = await startRun(flywheel.env.client, cfg, {
    config: cfg,
    trigger: 'bench',
    reason: `flywheel-turns turn ${k}`,
  });
  const progress = await runResult(handle);
  // The gate stage's line: promote or hold, and the rule that decided.
  const gate = progress.skipReason ? `skipped: ${progress.skipReason}` : stageOf(progress, 'gate').detail;
  const outputs: Record<string, ArtifactRef> = {};
  for (const name of ['traces', 'split'])
    Object.assign(outputs, progress.stages.find((x) => x.name === name)?.outputs ?? {});
  runs.push({ turn: k, runId, outputs });
  say(`turn ${k}: run ${runId}: ${gate}`);
  return { runId, progress, gate };
}

async function deployedVersion() {
  const r = await openRegistry(registry);
  try {
    return await r.current('router');
  } finally {
    await r.close();
  }
}

function gatewayOpts(what: string) {
  return {
    domain: DOMAIN,
    model: 'router',
    timeoutMs: 300_000,
    onProgress: (done: number, total: number) => {
      if (done % 25 === 0 || done === total) say(`  ${what}: ${done}/${total}`);
    },
  };
}

/** A gateway over the alias for one batch: rendering as training did, escalating below the threshold. */
async function withGateway<T>(
  traces: string,
  escalation: { baseUrl: string; model: string; minConfidence: number } | undefined,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  const KEY = 'FLYWHEEL_TURNS_FRONTIER_KEY';
  const gateway = await startGateway(
    gatewaySchema.parse({
      port: 0,
      registry,
      tracesDir: traces,
      timeoutMs: 300_000,
      confidence,
      render: { sliceSize: config.dataset!.sliceSize, caller: { name: `${DOMAIN}-user`, scopes: [] } },
      ...(escalation ? { escalation: { ...escalation, apiKeyEnv: KEY } } : {}),
    }),
    { env: { ...process.env, [KEY]: 'stand-in' } },
  );
  try {
    return await fn(gateway.url);
  } finally {
    await gateway.close();
  }
}

/** The held-out slice on the router deployed now, directly (never through the gateway), priced at the threshold. */
async function measure(
  k: number,
  run: { runId: string; progress: RunProgress; gate: string },
  heldOut: TrafficCase[],
  threshold: number,
  sent: TurnFigures['traffic'],
): Promise<TurnFigures> {
  const deployed = (await deployedVersion())!;
  say(`turn ${k}: scoring ${heldOut.length} held-out requests on ${deployed.name}`);
  const result = await evaluateEndpoint(
    heldOut.map((c) => c.rendered),
    {
      label: `turn ${k}`,
      baseUrl: deployed.endpoint,
      model: deployed.servedModel,
      logprobs: true,
      confidence,
      extraBody: { retrieval: false, copy: false, fill: false },
      cost: { kind: 'gpu-hour', dollarsPerHour: DEFAULT_PRICES.gpuHour },
    },
    { concurrency: 1, timeoutMs: 300_000, maxRetries: 1, maxTokens: ev.maxTokens, bootstrap: ev.bootstrap },
  );
  const escalated = (i: number) => {
    const r = result.cases[i]!;
    // The gateway's rules (escalation.on: invalid, rewritten), then its threshold.
    return (
      r.predictedTool === INVALID ||
      r.rewritten === true ||
      (typeof r.confidence === 'number' && r.confidence < threshold)
    );
  };
  const cost = turnCost(
    heldOut.map((c, i) => ({ escalated: escalated(i), frontierTokens: labelTokens(c.request, c.label) })),
    result.metrics.throughputPerSecond ?? 1,
  );
  const traces = run.progress.stages.find((s) => s.name === 'traces');
  const traceRows = traces?.outputs.traceRows?.count;
  return {
    turn: k,
    runId: run.runId,
    deployed: deployed.name,
    heldOut: {
      n: heldOut.length,
      exact: result.metrics.exactMatch,
      abstentionF1: result.metrics.abstention.f1,
      escalation: cost.escalationRate,
      costPer1k: cost.per1k,
      allFrontierPer1k: cost.allFrontierPer1k,
      p50Ms: result.metrics.latencyMs.p50,
      decisionsPerSecond: result.metrics.throughputPerSecond,
    },
    traffic: sent,
    traceRows: typeof traceRows === 'number' ? traceRows : null,
    gate: run.gate,
  };
}
