import { existsSync } from 'node:fs';
import { storeUriFrom } from '../lib/paths.js';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { openStore } from '../../core/artifacts/index.js';
import { evaluateSchema } from '../../core/config/schema.js';
import type { RenderedRow } from '../../core/dataset/render.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { casesFrom, sampleCases } from '../../core/eval/cases.js';
import { handwrittenCases } from '../../core/eval/handwritten.js';
import { handwrittenRowsOf } from '../lib/handwritten.js';
import type { Catalog } from '../../core/catalog/types.js';
import { loadConfigFile } from '../../core/config/load.js';
import { datasetSchema } from '../../core/config/schema.js';
import { evaluateEndpoint } from '../../core/eval/evaluate-endpoint.js';
import { summaryTable } from '../../core/eval/report-markdown.js';
import { writeReport } from '../../core/eval/report-store.js';
import type { CostModel, EvalCase, EvalReport } from '../../core/eval/types.js';
import { sha256Hex } from '../../core/hash.js';
import { traceCases } from '../../core/eval/trace-cases.js';
import { traceFiles } from '../../core/traces/files.js';
import { parseTraceFile, type ParsedTrace } from '../../core/traces/ingest.js';
import { createHash } from 'node:crypto';
import { intOption, parse, UsageError, wholeNumber, type Command } from '../lib/args.js';
import { DEFAULT_STORE_URI } from '../../core/defaults.js';
import { runBfclEval } from './eval-bfcl.js';
import type { EndpointSpec } from '../../core/eval/client.js';
import { readAdapterTools } from '../../core/train/adapter-tools.js';

/** Reports go to a new folder under this one, named by time. */
const DEFAULT_EVAL_DIR = '.flywheel/eval';

/** The evaluate stage's defaults (core/config/schema.ts): the same cases and settings from either path. */
const DEFAULTS = evaluateSchema.parse({});

export const evalCommand: Command = {
  name: 'eval',
  summary: 'score any OpenAI-compatible endpoint on a test set (JSON, markdown and HTML report)',
  usage: `flywheel eval --endpoint URL --model NAME --testset REF|FILE [options]
flywheel eval --endpoint URL --model NAME --cases FILE --catalog REF|FILE [--config FILE] [options]
flywheel eval --endpoint URL --model NAME --traces FILE|DIR|s3://… [--escalated-only] [options]
flywheel eval --endpoint URL --model NAME --bfcl CATEGORY[,…] [--catalog REF|FILE] [options]

Asks the endpoint for one decision per test case (temperature 0, the case's prompt and offered tools) and
scores exact tool+arguments match, tool accuracy, abstention P/R/F1, schema validity, error types, per-tool
and per-domain tables, latency, tokens and cost, with bootstrap 95 % intervals.
  --endpoint URL        OpenAI base URL (…/v1): OpenAI, vLLM, LoRAX, \`flywheel serve\`, \`flywheel gateway\`
  --model NAME          the model (or alias, through the gateway) to ask
  --testset REF|FILE    a rendered test set: an artifact (sha prefix or URI, e.g. a run's rendered-test) or a
                        JSONL file of rendered rows {id, prompt, completion, tools[, domain]}
  --cases FILE          hand-written cases, JSONL: {"id", "domain", "messages", "scopes"?, "tools"?, "expected"}
                        — messages without a system prompt, expected {"tool", "arguments"} or {"tool": null,
                        "verdict", "code"}; rendered with the current renderer (see docs/hand-written-cases.md)
  --catalog REF|FILE    the catalog: an artifact (sha prefix or URI) or a catalog JSON file. Needed with --cases
                        (they are rendered with its schemas); with a rendered-test artifact, calls the case's
                        caller lacks scopes for are scored as the missing_scope violation, as the evaluate stage
                        and a rendering gateway answer them
  --config FILE         (with --cases) personas, slice size, seed and render format from its dataset section
  --traces SOURCE       production traffic as the test set: OpenAI-format traces (the gateway's trace log: a
                        file, a directory of *.jsonl, or s3://bucket/prefix/ with $FLYWHEEL_S3_ENDPOINT). Each trace's conversation up to
                        its final assistant message is the prompt as logged, with its tools; that final message
                        is the expected decision (what production answered). Traces without one are skipped
                        and counted. A rendering gateway logs the prompt it rendered: replay such traces against
                        the backend (\`flywheel serve\`) or a gateway without \`render\`, not a rendering one
  --escalated-only      (with --traces) only the decisions the frontier answered: labels from the stronger
                        model, not the router's own answers
  --bfcl CATEGORIES     BFCL's questions as the test set, judged by BFCL's own AST checker (bfcl-eval in
                        .venv-bfcl, or $FLYWHEEL_BFCL_PYTHON): live_simple, live_multiple, irrelevance,
                        live_irrelevance, simple_python, multiple (comma-separated). Each question offers its
                        own functions. With --catalog, a router's: the functions under the names it was trained
                        on. --limit N: a seeded sample of N per category (--sample-seed). Writes bfcl.json and
                        bfcl.md (see docs/bfcl.md)
  --label NAME          column name in the report (default: the model)
  --api-key-env VAR     environment variable holding the endpoint's API key
  --adapter-id ID       LoRAX: the adapter to select per request
  --wire-names openai   send tool names as OpenAI's API takes them ([A-Za-z0-9_-], at most 64) and map the answer's
                        back: for a frontier API and tools named like uber.ride; a router backend (serve, vLLM,
                        LoRAX) takes the names it was trained on, so leave it off there
  --constraint json-schema  decode inside the router answer's JSON Schema over each case's tools (response_format
                        json_schema, tool_choice none): for vLLM, which has no router constraint of its own;
                        \`flywheel serve\` constrains by itself
  --adapter-tools DIR   with --constraint: the answer may also name the tools of the adapter in DIR (its
                        flywheel.json \`tools\`), as \`flywheel serve\` lets it; a call to one a case does not offer
                        is then scored as tool_not_offered (docs/router-contract.md)
  --concurrency N       requests in flight (default ${DEFAULTS.concurrency})
  --limit N             score a stratified sample of N cases (by domain and expected tool or verdict)
  --sample-seed N       that sample's seed (default: evaluate.sampleSeed's, ${DEFAULTS.sampleSeed}: the stage's sample)
  --max-tokens N        tokens an answer may take (default ${DEFAULTS.maxTokens})
  --timeout-ms N        per request (default ${DEFAULTS.timeoutMs}); --retries N transport retries (default ${DEFAULTS.maxRetries})
  --cost-tokens IN,OUT  dollars per 1M prompt,completion tokens (API pricing)
  --cost-gpu-hour D     dollars per GPU-hour, spread over the throughput measured in this run
  --resamples N         bootstrap resamples (default ${DEFAULTS.bootstrap.resamples}); --seed N (default ${DEFAULTS.bootstrap.seed})
  --out DIR             where report.json, report.md and report.html go (default ${DEFAULT_EVAL_DIR}/<time>)
  --store URI           artifact store for --testset artifacts (default $FLYWHEEL_ARTIFACTS or ${DEFAULT_STORE_URI})`,
  async run(argv) {
    const { values } = parse(argv, {
      endpoint: { type: 'string' },
      model: { type: 'string' },
      testset: { type: 'string' },
      'wire-names': { type: 'string' },
      constraint: { type: 'string' },
      'adapter-tools': { type: 'string' },
      cases: { type: 'string' },
      catalog: { type: 'string' },
      config: { type: 'string' },
      traces: { type: 'string' },
      'escalated-only': { type: 'boolean' },
      bfcl: { type: 'string' },
      label: { type: 'string' },
      'api-key-env': { type: 'string' },
      'adapter-id': { type: 'string' },
      concurrency: { type: 'string' },
      limit: { type: 'string' },
      'max-tokens': { type: 'string' },
      'timeout-ms': { type: 'string' },
      retries: { type: 'string' },
      'cost-tokens': { type: 'string' },
      'cost-gpu-hour': { type: 'string' },
      resamples: { type: 'string' },
      seed: { type: 'string' },
      'sample-seed': { type: 'string' },
      out: { type: 'string' },
      store: { type: 'string' },
    });
    const sources = [values.testset, values.cases, values.traces, values.bfcl].filter((s) => s !== undefined);
    if (!values.endpoint || !values.model || sources.length !== 1)
      throw new UsageError('--endpoint, --model and one of --testset, --cases, --traces or --bfcl are required');
    if (values['escalated-only'] && !values.traces) throw new UsageError('--escalated-only applies to --traces');
    if (values.catalog && values.traces)
      throw new UsageError(
        '--catalog applies to --cases and --testset: traces are scored on the decisions they logged',
      );
    if (values.cases && !values.catalog)
      throw new UsageError('--cases needs --catalog REF|FILE: the cases are rendered with its tool schemas');
    const apiKeyEnv = values['api-key-env'];
    if (apiKeyEnv && !process.env[apiKeyEnv])
      throw new UsageError(`--api-key-env ${apiKeyEnv}: that environment variable is not set`);
    const wireNames = values['wire-names'];
    if (wireNames !== undefined && wireNames !== 'openai')
      throw new UsageError(`--wire-names ${wireNames}: the one mapping is "openai"`);
    const constraint = values.constraint;
    if (constraint !== undefined && constraint !== 'json-schema')
      throw new UsageError(`--constraint ${constraint}: the one constraint is "json-schema"`);
    if (values['adapter-tools'] && !constraint)
      throw new UsageError('--adapter-tools applies to --constraint json-schema (serve reads them itself)');
    let nameable: ReturnType<typeof readAdapterTools> | undefined;
    try {
      nameable = values['adapter-tools'] ? readAdapterTools(values['adapter-tools']) : undefined;
    } catch (err) {
      throw new UsageError(`--adapter-tools: ${(err as Error).message}`);
    }
    const bootstrap = {
      resamples: intOption(values.resamples, 'resamples', DEFAULTS.bootstrap.resamples),
      seed: wholeNumber(values.seed, 'seed', DEFAULTS.bootstrap.seed),
    };
    const label = values.label ?? values.model;
    const spec: EndpointSpec = {
      label,
      baseUrl: values.endpoint,
      model: values.model,
      ...(apiKeyEnv ? { apiKey: process.env[apiKeyEnv]! } : {}),
      ...(values['adapter-id'] ? { adapterId: values['adapter-id'] } : {}),
      ...(wireNames ? { wireNames: 'openai' as const } : {}),
      ...(constraint ? { constraint: 'json-schema' as const } : {}),
      ...(nameable ? { nameable } : {}),
      cost: costOf(values['cost-tokens'], values['cost-gpu-hour']),
    };
    const options = {
      concurrency: intOption(values.concurrency, 'concurrency', DEFAULTS.concurrency),
      timeoutMs: intOption(values['timeout-ms'], 'timeout-ms', DEFAULTS.timeoutMs),
      maxRetries: wholeNumber(values.retries, 'retries', DEFAULTS.maxRetries),
      maxTokens: intOption(values['max-tokens'], 'max-tokens', DEFAULTS.maxTokens),
      bootstrap,
    };
    const outDir = (createdAt: string) =>
      resolve(values.out ?? join(DEFAULT_EVAL_DIR, createdAt.replace(/[:.]/g, '-')));
    if (values.bfcl !== undefined) {
      if (values.config) throw new UsageError('--config applies to --cases');
      await runBfclEval({
        categories: values.bfcl,
        spec,
        ...(values.catalog ? { catalog: await loadCatalog(values.catalog, values.store) } : {}),
        ...(values.limit ? { limit: intOption(values.limit, 'limit', 0) } : {}),
        sampleSeed: values['sample-seed'] ?? String(DEFAULTS.sampleSeed),
        options,
        out: outDir(new Date().toISOString()),
      });
      return 0;
    }
    const { cases, sha256, source } = values.cases
      ? await loadHandwritten(values.cases, values.catalog!, values.config, values.store)
      : values.traces
        ? await loadTraceCases(values.traces, values['escalated-only'] === true)
        : await loadCases(values.testset!, values.store, values.catalog);
    // --limit: a stratified sample, drawn as the evaluate stage draws one (same default seed, same cases).
    const sampleSeed = wholeNumber(values['sample-seed'], 'sample-seed', DEFAULTS.sampleSeed);
    const selected = sampleCases(
      cases,
      values.limit ? intOption(values.limit, 'limit', cases.length) : undefined,
      sampleSeed,
    );
    console.error(`scoring ${label} at ${values.endpoint} on ${selected.length} cases of ${source}`);
    const result = await evaluateEndpoint(selected, spec, {
      ...options,
      onProgress: (done, total) => {
        if (done % 10 === 0 || done === total) process.stderr.write(`\r${done}/${total} cases`);
      },
    });
    process.stderr.write('\n');
    const report: EvalReport = {
      createdAt: new Date().toISOString(),
      testSet: { sha256, cases: selected.length, source },
      bootstrap,
      results: [result],
    };
    const out = outDir(report.createdAt);
    await mkdir(out, { recursive: true });
    await writeReport(out, report);
    console.log(summaryTable(report));
    console.log(`\nreport: ${join(out, 'report.html')} (also report.md, report.json)`);
    return 0;
  },
};

/** A file of rendered rows, or a rendered test set artifact (joined with its router rows for domains). */
async function loadCases(
  testset: string,
  storeUri: string | undefined,
  catalogRef: string | undefined,
): Promise<{ cases: EvalCase[]; sha256: string; source: string }> {
  if (existsSync(testset)) {
    if (catalogRef)
      throw new UsageError(
        `--catalog with --testset ${testset}: a file of rendered rows does not say who asked; give the run's rendered-test artifact to check scopes`,
      );
    const text = await readFile(testset, 'utf8');
    const rows = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l, i) => {
        try {
          return JSON.parse(l) as RenderedRow;
        } catch (err) {
          throw new UsageError(`${testset}:${i + 1}: not JSON: ${(err as Error).message}`);
        }
      });
    return { cases: casesFrom(rows, [], testset), sha256: sha256Hex(text), source: testset };
  }
  const store = openStore(storeUriFrom(storeUri));
  const ref = await store.resolve(testset);
  if (ref.kind !== 'rendered-test')
    throw new UsageError(
      `--testset ${testset} is a ${ref.kind} artifact; give a rendered-test artifact (see flywheel artifacts ls --kind rendered-test)`,
    );
  const manifest = await store.manifest(ref.sha256);
  const routerRows: RouterRow[] = [];
  for (const parent of manifest.parents) {
    if ((await store.manifest(parent)).kind === 'test') routerRows.push(...(await store.readJsonl<RouterRow>(parent)));
  }
  const catalog = catalogRef ? await loadCatalog(catalogRef, storeUri) : undefined;
  return {
    cases: casesFrom(
      await store.readJsonl<RenderedRow>(ref),
      routerRows,
      `rendered-test ${ref.sha256.slice(0, 12)}`,
      catalog,
    ),
    sha256: ref.sha256,
    source: `rendered-test ${ref.sha256.slice(0, 12)}`,
  };
}

/** A catalog from a JSON file or an artifact (sha prefix or URI). */
async function loadCatalog(catalogRef: string, storeUri: string | undefined): Promise<Catalog> {
  let catalog: Catalog;
  if (existsSync(catalogRef)) catalog = JSON.parse(await readFile(catalogRef, 'utf8')) as Catalog;
  else {
    const store = openStore(storeUriFrom(storeUri));
    const ref = await store.resolve(catalogRef);
    if (ref.kind !== 'catalog')
      throw new UsageError(
        `--catalog ${catalogRef} is a ${ref.kind} artifact; give a catalog (see flywheel artifacts ls --kind catalog)`,
      );
    catalog = await store.readJson<Catalog>(ref);
  }
  if (!Array.isArray(catalog?.tools) || !Array.isArray(catalog?.servers))
    throw new UsageError(`--catalog ${catalogRef} is not a catalog (servers[], tools[])`);
  return catalog;
}

/** Hand-written cases rendered against a catalog (an artifact or a JSON file), with the config's dataset settings. */
async function loadHandwritten(
  file: string,
  catalogRef: string,
  configFile: string | undefined,
  storeUri: string | undefined,
): Promise<{ cases: EvalCase[]; sha256: string; source: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--cases ${file}: ${(err as Error).message}`);
  }
  const config = configFile ? await loadConfigFile(configFile) : undefined;
  const dataset = datasetSchema.parse(config?.dataset ?? {});
  const catalog = await loadCatalog(catalogRef, storeUri ?? config?.artifacts.store);
  const rows = handwrittenRowsOf(text, file, catalog, dataset);
  return { cases: handwrittenCases(rows, catalog, dataset.render.format, file), sha256: sha256Hex(text), source: file };
}

/** Traces (files, a directory, an S3 prefix) as cases; what cannot be a case is counted by reason on stderr. */
async function loadTraceCases(
  source: string,
  escalatedOnly: boolean,
): Promise<{ cases: EvalCase[]; sha256: string; source: string }> {
  let files;
  try {
    files = await traceFiles(source);
  } catch (err) {
    throw new UsageError(`--traces ${source}: ${(err as Error).message}`);
  }
  const parsed: ParsedTrace[] = [];
  const digest = createHash('sha256');
  let unreadable = 0;
  for (const f of files) {
    const bytes = await f.read();
    digest.update(bytes);
    const { traces, rejections } = parseTraceFile(f.path, bytes.toString('utf8'));
    parsed.push(...traces);
    unreadable += rejections.length;
    for (const r of rejections.slice(0, 3)) console.error(`skipped ${r.file}:${r.row}: ${r.reason}: ${r.detail}`);
  }
  const { cases, skipped } = traceCases(parsed, { escalatedOnly });
  const byReason = new Map<string, number>();
  for (const s of skipped) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
  if (unreadable) byReason.set('invalid_json', unreadable);
  if (byReason.size)
    console.error(
      `skipped ${skipped.length + unreadable} of ${parsed.length + unreadable} traces: ${[...byReason].map(([r, n]) => `${r} ${n}`).join(', ')}`,
    );
  for (const s of skipped.filter((x) => x.reason !== 'not_escalated').slice(0, 3))
    console.error(`  ${s.file}:${s.row}: ${s.reason}: ${s.detail}`);
  if (cases.length === 0)
    throw new UsageError(
      `--traces ${source}: none of its ${parsed.length + unreadable} traces is a routing decision to score${escalatedOnly ? ' (with --escalated-only)' : ''}`,
    );
  return {
    cases,
    sha256: digest.digest('hex'),
    source: `${files.length} trace file(s) at ${source}${escalatedOnly ? ', escalated decisions' : ''}`,
  };
}

function costOf(tokens: string | undefined, gpuHour: string | undefined): CostModel {
  if (tokens && gpuHour) throw new UsageError('give at most one of --cost-tokens and --cost-gpu-hour');
  if (tokens) {
    const [input, output] = tokens.split(',').map(Number);
    if (!Number.isFinite(input) || !Number.isFinite(output) || input! < 0 || output! < 0)
      throw new UsageError(`--cost-tokens wants IN,OUT dollars per 1M tokens, got "${tokens}"`);
    return { kind: 'tokens', inputPerMillion: input!, outputPerMillion: output! };
  }
  if (gpuHour) {
    const d = Number(gpuHour);
    if (!Number.isFinite(d) || d < 0) throw new UsageError(`--cost-gpu-hour wants dollars per hour, got "${gpuHour}"`);
    return { kind: 'gpu-hour', dollarsPerHour: d };
  }
  return { kind: 'none' };
}
