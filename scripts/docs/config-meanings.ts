/**
 * What each config key means, in the order docs/reference/config.md lists them. The keys and their defaults come
 * from the zod schema (core/config/schema.ts) when the reference is generated (scripts/docs/reference.ts); only
 * the words live here. `unset`: what happens when a key without a schema default is left out ("absent", "—
 * (required)", an environment variable). test/fast/config-docs.test.ts fails when a schema key has no row here,
 * a row names a key the schema lacks, or `unset` shadows a schema default.
 */
export interface ConfigRow {
  /** One or more keys sharing a meaning (`evaluate.timeoutMs`, `evaluate.maxRetries`). */
  keys: string[];
  /** What a key without a schema default means when left out; a key with one shows the schema's. */
  unset?: string;
  meaning: string;
}

export const CONFIG_ROWS: ConfigRow[] = [
  { keys: ['version'], unset: '\u2014 (required)', meaning: 'config format version; must be `1`' },
  {
    keys: ['name'],
    unset: '\u2014 (required)',
    meaning: 'project name (lowercase letters, digits, dashes): keys workflow ids and catalog history',
  },
  {
    keys: ['artifacts.store'],
    meaning: "where artifacts live: `file:RELATIVE` (to the worker's cwd), `file:///abs`, or `s3://bucket/prefix`",
  },
  {
    keys: ['artifacts.s3.endpoint'],
    unset: '`$FLYWHEEL_S3_ENDPOINT`',
    meaning: 'S3-compatible endpoint (MinIO, Ceph, R2…); unset means AWS',
  },
  { keys: ['artifacts.s3.region'], unset: '`$AWS_REGION` or `us-east-1`', meaning: 'S3 region' },
  {
    keys: ['artifacts.s3.forcePathStyle'],
    unset: 'true when an endpoint is set',
    meaning: 'path-style bucket addressing',
  },
  { keys: ['servers[]'], unset: '\u2014 (at least one)', meaning: 'MCP servers whose tools form the catalog' },
  { keys: ['servers[].name'], meaning: 'server name, unique; tools are identified as `<server>/<tool>`' },
  { keys: ['servers[].stdio.command', 'servers[].stdio.args'], meaning: 'spawn the server and talk over stdio' },
  {
    keys: ['servers[].stdio.env'],
    meaning: 'extra environment for the server process (over a minimal PATH/HOME environment)',
  },
  { keys: ['servers[].stdio.cwd'], unset: "worker's cwd", meaning: 'working directory of the server process' },
  { keys: ['servers[].http.url'], meaning: 'Streamable HTTP endpoint (`http://` or `https://`)' },
  { keys: ['servers[].http.headers'], meaning: 'extra request headers' },
  {
    keys: ['servers[].http.bearerTokenEnv'],
    meaning:
      'name of a worker environment variable holding a bearer token (the token never goes into config or workflow history)',
  },
  {
    keys: ['servers[].tools'],
    meaning:
      'a file of tool definitions instead of a live server — an OpenAI tools list, an MCP `tools/list` dump or BFCL function docs, detected from its shape — read on the worker (relative to its working directory); nothing is called, rows are checked against the schemas only (see [Your own MCP servers](../your-own-mcp-servers.md#tools-from-a-file))',
  },
  { keys: ['servers[].timeoutMs'], meaning: 'connect and each `tools/list` page must finish within this' },
  {
    keys: ['servers[].probe'],
    unset: 'on, defaults below',
    meaning:
      'entity discovery before intents (see [Your own MCP servers](../your-own-mcp-servers.md)); `false` turns it off',
  },
  { keys: ['servers[].probe.callsPerTool'], meaning: 'discovery calls per read-only tool' },
  {
    keys: ['servers[].probe.callTimeoutMs'],
    meaning:
      'a probe, trial or validation call with no answer within this is given up (a probe that hangs is not retried)',
  },
  { keys: ['servers[].probe.budgetMs'], meaning: 'all probing of this server' },
  {
    keys: ['servers[].probe.allow'],
    meaning:
      'tools to call for real although they do not declare `readOnlyHint: true` and `openWorldHint: false` (you vouch they neither write nor reach outside)',
  },
  {
    keys: ['catalog.maxPages'],
    meaning: 'stop following `nextCursor` after this many pages (a server that never ends is an error, not a hang)',
  },
  {
    keys: ['dataset'],
    unset: 'absent',
    meaning:
      'build a dataset; without this section a run stops after `ingest`. `dataset: {}` takes every default below',
  },
  {
    keys: ['dataset.seed'],
    meaning: 'seeds intents, phrasing, slices, corruption and the split: same seed, same dataset (tested)',
  },
  {
    keys: ['dataset.perGoal'],
    meaning:
      'intents drawn per domain-pack goal template; a generic goal (any other tool) draws `max(perGoal, ⌈minPerTool / train share × 1.3⌉)` so each tool keeps about `minPerTool` distinct training rows',
  },
  { keys: ['dataset.unsatisfiableShare'], meaning: 'share of asks no tool can serve (target: abstain, `no_tool`)' },
  { keys: ['dataset.negativeShare'], meaning: 'share of near-miss negatives after corruption' },
  {
    keys: ['dataset.sliceSize'],
    meaning:
      "tools offered per row (each costs ~70 prompt tokens with the compact tool rendering; 6 keeps a SmolLM2 prompt's p50 under 600 tokens)",
  },
  {
    keys: ['dataset.minSliceSize'],
    unset: 'absent (every row offers `sliceSize` tools)',
    meaning:
      'where set, each row offers a number of tools drawn from [`minSliceSize`, `sliceSize`] (the `tool_absent` negative too), so the router also learns the short menus agents send: one function that fits, or one or two that do not. Measured at 1 on a 262-tool catalog (docs/benchmarks.md, Natural against described phrasing) it made routers pick a wrong tool more often and abstain less, irrelevant questions included; leave it unset unless most of your traffic offers a few tools',
  },
  {
    keys: ['dataset.slicing'],
    unset: 'absent (`neighbours`)',
    meaning:
      "how a row's tools are chosen: `neighbours`, the right tool plus its siblings and lexically nearest tools; `retriever`, the `sliceSize` tools the gateway's BM25 retriever ranks highest for the request (what a live agent's request gets with `gateway.render`), where a miss of the right tool is labelled `tool_not_offered` and the `tool_absent` negative and hand-written cases without `tools` are sliced the same way",
  },
  {
    keys: ['dataset.phrasing'],
    unset: 'absent (`description`)',
    meaning:
      'how requests for a tool without a domain pack are phrased: `description`, from its description string and its arguments\' labels; `natural`, from what it does (the action from its name, else its description, said with everyday verbs and nouns; each argument said by its meaning, in any order; string values drawn by meaning; commands, questions, indirect asks, terse notes, asides, clarifying exchanges; two described phrasings kept among eight or so), with the style mix in `flywheel dataset stats` (docs/pipeline.md, "Natural phrasing")',
  },
  { keys: ['dataset.split.train', 'dataset.split.val', 'dataset.split.test'], meaning: 'split ratios (by entity)' },
  { keys: ['dataset.minPerTool'], meaning: 'oversample train so every tool has at least this many rows' },
  {
    keys: ['dataset.maxPerTool'],
    unset: 'no cap',
    meaning:
      'keep at most this many training calls per tool (rows from traces first, then originals before oversampled copies, then a draw from the seed), and no-calls at the share they had, spread over their codes; val and test are untouched. For a small training budget (a CPU) that should see every row it keeps; the split stage says what it left out. At least `minPerTool`',
  },
  {
    keys: ['dataset.traceShare'],
    unset: 'rows from traces as they come',
    meaning:
      'a share in (0, 0.9]: after the cap, repeat the training rows from traces (in turn, as `<id>#t<n>`) until they are at least this share of train, so a retrain on a few hundred rows of traffic is not lost among thousands of synthetic rows; without trace rows it changes nothing. The split stage says how many copies it added',
  },
  {
    keys: ['dataset.chunkSize'],
    meaning:
      'rows per chunk of `generate`, `solve` and `validate`: a bigger input runs as parallel chunk activities of this many rows (on any `flywheel` worker, each memoised on its own), merged in order into the same artifact one activity would write; more workers then finish sooner',
  },
  { keys: ['dataset.teacher.kind'], meaning: '`template` (deterministic, embedded) or `openai`' },
  {
    keys: ['dataset.teacher.baseUrl', 'dataset.teacher.model'],
    meaning: '(openai) any OpenAI-compatible endpoint and model',
  },
  { keys: ['dataset.teacher.apiKeyEnv'], meaning: '(openai) worker environment variable holding the key' },
  { keys: ['dataset.teacher.concurrency'], meaning: '(openai) requests in flight' },
  {
    keys: ['dataset.teacher.batchSize'],
    meaning:
      '(openai) intents drafted in one generation request (one prompt lists them as numbered tasks); a task the answer leaves out or writes badly is asked again on its own. Solving is one request per call, as a router is asked',
  },
  { keys: ['dataset.teacher.timeoutMs'], meaning: '(openai) per request' },
  {
    keys: ['dataset.teacher.maxRetries'],
    meaning:
      '(openai) retries of 5xx, timeouts and dropped connections per request; a 429 always backs off (Retry-After honoured, every worker held when a rate limit is set) and never counts, unless it says the quota is spent (`insufficient_quota`), which fails at once',
  },
  {
    keys: ['dataset.teacher.rateLimit'],
    unset: 'no budget: each chunk sends up to `concurrency` requests at once',
    meaning:
      '(openai) one budget for this endpoint held across every worker, through a shared store ([operating](../operating.md#one-teacher-budget-across-workers)); set either rate or both',
  },
  {
    keys: ['dataset.teacher.rateLimit.requestsPerSecond'],
    meaning: 'HTTP requests per second, retries included, paced evenly (no burst)',
  },
  {
    keys: ['dataset.teacher.rateLimit.tokensPerSecond'],
    meaning:
      "prompt and completion tokens per second; a request is charged an estimate (its text at ~4 characters a token plus its answer cap) before it goes and settled from the response's `usage`; bursts up to one second's worth",
  },
  {
    keys: ['dataset.teacher.rateLimit.store'],
    meaning:
      "where the shared bucket lives: a SQLite file path every worker reaches (workers on one host, or on a volume with working file locks, not NFS), or a PostgreSQL URL without a password, `postgresql://user@host:5432/db` (workers on many hosts; the server's clock decides; the password comes from the worker's `PGPASSWORD` or `~/.pgpass`, never the config)",
  },
  {
    keys: ['dataset.teacher.jsonMode'],
    meaning: '(openai) ask for `response_format: json_object` when drafting requests',
  },
  {
    keys: ['dataset.teacher.jsonSchema'],
    unset: 'absent (`false`)',
    meaning:
      "(openai) ask for the drafting answer's exact JSON Schema instead (`response_format: json_schema`, one entry per task: the structured outputs of OpenAI and vLLM), so even a small teacher answers in the shape asked (unless cut off at `maxTokens`); wins over `jsonMode`",
  },
  { keys: ['dataset.teacher.temperature'], meaning: '(openai) for drafting; solving uses 0' },
  {
    keys: ['dataset.teacher.maxTokens'],
    unset: "absent (the endpoint's own limit)",
    meaning: '(openai) the most tokens one answer may use (`max_completion_tokens`), drafting and solving',
  },
  {
    keys: ['dataset.teacher.pricing'],
    unset: 'absent (tokens only)',
    meaning:
      "(openai) the endpoint's prices, so the generate and solve stages report what their calls cost beside the tokens billed (cached answers are not billed again)",
  },
  {
    keys: ['dataset.teacher.pricing.inputPerMillion', 'dataset.teacher.pricing.outputPerMillion'],
    meaning: 'dollars per million prompt tokens and per million completion tokens',
  },
  {
    keys: ['dataset.personas[]'],
    unset: "per server: its domain pack's, else derived from its scopes",
    meaning: '`{name, domain, scopes[]}`; `domain` is a server name; a server listed here uses exactly these',
  },
  {
    keys: ['dataset.render.format'],
    meaning:
      '`router-json` (`{"tool":NAME,"arguments":{…sorted keys}}` or `{"tool":null,"verdict":V,"code":C}`) or `hermes` (`<tool_call>` block)',
  },
  {
    keys: ['traces'],
    meaning:
      "trace files (JSON/JSONL) read on the worker: a path (a file, or a directory whose `*.jsonl`/`*.json` files are read in name order, such as the gateway's `tracesDir`), `s3://bucket/prefix/` (every `*.jsonl`/`*.json` object directly under the prefix, in key order) or `s3://bucket/key.jsonl` (S3 settings from `artifacts.s3` and the worker's AWS environment), or `{path, domain, format}`. Records are the gateway's own traces, OpenAI chat completions or Responses logs, or Anthropic Messages logs, each told from its shape unless `format` (`messages`, `openai-chat`, `openai-responses`, `anthropic`) names it: [Traces](../traces.md); needs a `dataset` section",
  },
  {
    keys: ['retrain.minNewTraceRows'],
    meaning:
      'with a `retrain` section, a run trains only when at least this many trace rows are new since the watermark — the rows the last run that trained had seen — or the catalog changed, or the input says `force`; otherwise it stops after the `watermark` stage, completed, and says why. Needs `traces` and `train`',
  },
  {
    keys: ['train'],
    unset: 'absent',
    meaning: 'train an adapter on the rendered rows (needs a `dataset` section and a `flywheel-gpu` worker)',
  },
  {
    keys: ['train.job'],
    meaning:
      'keys of the train job (`trainer/job.schema.json`; its keys: [training-and-serving.md](../training-and-serving.md)) except `version`, `data`, `outputDir`, `resumeFrom`, which the run sets; validated at `config check` time',
  },
  {
    keys: ['train.heartbeatTimeoutSeconds'],
    meaning:
      'a GPU worker silent this long is presumed dead; the retry resumes from the checkpoint in its last heartbeat',
  },
  { keys: ['train.maxAttempts'], meaning: 'attempts of the train activity; a bad job (exit 2) is never retried' },
  {
    keys: ['preference'],
    unset: 'absent (the SFT adapter is the candidate)',
    meaning:
      "DPO after SFT on the run's near-miss pairs (render's `pairsTrain`/`pairsVal`), continuing train's adapter with it as the reference, on the `flywheel-gpu` queue; its adapter is what evaluate scores and deploy serves. Heartbeat and attempts are train's. Needs `train`. See [Training and serving](training-and-serving.md#preference-tuning-dpo)",
  },
  {
    keys: ['preference.beta'],
    meaning: "how far the tuned adapter may move from the SFT adapter (TRL's `beta`; higher: less), > 0 and ≤ 10",
  },
  {
    keys: ['preference.lossType'],
    meaning: "TRL's DPO loss: `sigmoid` (the DPO paper), `ipo`, `hinge` (SLiC) or `robust` (label smoothing 0.1)",
  },
  {
    keys: ['preference.job'],
    meaning:
      "`train.job` keys that differ for the DPO pass, e.g. `{optim: {learningRate: 0.0005, maxSteps: 20}}`; `optim` is merged key by key, `method` and `preference` are the run's",
  },
  {
    keys: ['evaluate'],
    unset: 'absent',
    meaning: 'score the candidate, production and (when an endpoint) the teacher; needs `train`',
  },
  {
    keys: ['evaluate.limit'],
    unset: 'all cases',
    meaning:
      'score a seeded, stratified sample of N cases of the frozen test set (strata: domain × expected tool or verdict; every stratum keeps at least one case while N allows; the demo uses 30)',
  },
  { keys: ['evaluate.sampleSeed'], meaning: 'seed of that sample: same test set, limit and seed, same cases' },
  {
    keys: ['evaluate.chunkSize'],
    unset: 'one activity scores every case',
    meaning:
      "cases per chunk: more cases run as parallel `evaluateChunk` activities on the GPU queue (any GPU worker; each serves the candidate itself and scores every endpoint on its slice, memoised on its own), merged in case order into the report one activity would write; throughput and cost then count the chunks' device time added up",
  },
  {
    keys: ['evaluate.scoreBase'],
    meaning:
      "before the alias serves anything, score the candidate's base model (on the candidate's own server) as production, so the first gate compares the fine-tune with what it started from; memoised in the store by (base identity, test set, case ids)",
  },
  {
    keys: ['evaluate.maxTokens'],
    meaning: "tokens an answer may take (a router's answer takes 20–100; an untrained base rambles to this bound)",
  },
  { keys: ['evaluate.concurrency'], meaning: 'requests in flight per endpoint' },
  {
    keys: ['evaluate.timeoutMs', 'evaluate.maxRetries'],
    meaning:
      'per request; a request that still fails scores as `invalid_output` (an endpoint that fails every request fails the stage)',
  },
  {
    keys: ['evaluate.bootstrap.resamples', 'evaluate.bootstrap.seed'],
    meaning: 'bootstrap 95 % intervals, reproducible from the seed',
  },
  {
    keys: ['evaluate.cost'],
    meaning:
      'candidate/production serving cost: `{kind: gpu-hour, dollarsPerHour}` (spread over the decisions/s measured in the same eval) or `{kind: tokens, inputPerMillion, outputPerMillion}`',
  },
  {
    keys: ['evaluate.teacher', 'evaluate.teacherCost'],
    meaning:
      'also score the teacher when `dataset.teacher.kind` is `openai` (the built-in template teacher cannot answer free-form prompts; the stage says it skipped it)',
  },
  {
    keys: ['evaluate.calibration.targetPrecision', 'evaluate.calibration.bins'],
    meaning:
      "the candidate is asked for logprobs and each decision's confidence read as the gateway reads it; the report bins confidence against exact match (reliability diagram, expected calibration error) and names the `gateway.escalation.minConfidence` whose kept answers reach this precision on the test cases (the most kept at it)",
  },
  {
    keys: ['evaluate.calibration.confidence'],
    meaning:
      "what a decision's confidence is the probability of: `tool`, the chosen tool name's tokens (or the abstention's `null`); `answer`, every token of the answer as written, arguments included. Set `gateway.confidence` the same, so the threshold it names is read as it was chosen",
  },
  {
    keys: ['evaluate.bfcl'],
    unset: 'absent',
    meaning:
      "also score the candidate (and, before a first deploy, its base) on BFCL's questions, judged by BFCL's own checker from `.venv-bfcl` on the GPU worker (docs/bfcl.md); reported beside the test set, not gated on; not with `chunkSize`",
  },
  {
    keys: ['evaluate.bfcl.categories'],
    meaning:
      "`live_simple`, `live_multiple`, `irrelevance`, `live_irrelevance`, `simple_python`, `multiple`; a function the run's catalog holds as BFCL documents it is offered under the catalog's name, any other under its own",
  },
  {
    keys: ['evaluate.bfcl.limit'],
    unset: 'every question',
    meaning: 'a seeded sample of at most N questions per category (seed: `evaluate.sampleSeed`)',
  },
  { keys: ['gate'], unset: 'absent', meaning: 'decide promotion on the eval results; needs `evaluate`' },
  {
    keys: ['gate.margin'],
    meaning:
      "the candidate's exact match may trail production by at most this, judged on the **low end of the 95 % CI** of the paired difference",
  },
  { keys: ['gate.abstentionF1Tolerance'], meaning: 'abstention F1 may drop by at most this versus production' },
  {
    keys: ['gate.minExactMatch'],
    meaning:
      "first deploy with no production and no base scored (`evaluate.scoreBase: false`): the candidate's exact match must reach this",
  },
  {
    keys: ['gate.requireApproval', 'gate.approvalTimeoutMinutes'],
    meaning: 'wait for `approve` / `reject` (Update or signal); no answer in time = not deployed',
  },
  { keys: ['deploy'], unset: 'absent', meaning: 'serve a promoted candidate under an alias; needs `gate`' },
  {
    keys: ['deploy.alias'],
    unset: '\u2014 (required)',
    meaning: 'the name requests use; versions are `<alias>@<dataset-hash8>-<job-hash8>`',
  },
  {
    keys: ['deploy.target'],
    meaning: '`local` (`flywheel serve`), `vllm` (runtime LoRA API), `lorax` (adapter per request)',
  },
  { keys: ['deploy.endpoint'], meaning: "the backend's OpenAI base URL" },
  { keys: ['deploy.apiKeyEnv'], meaning: "worker environment variable with the backend's API key" },
  {
    keys: ['deploy.adminTokenEnv'],
    unset: '`FLYWHEEL_SERVE_ADMIN_TOKEN`',
    meaning:
      "worker environment variable with the backend's admin token, which loading and unloading adapters need (`flywheel serve --admin-token-env`); read from the worker's environment only, never from config values or workflow input; when it is unset too, load/unload send the API key (vLLM has one key for both)",
  },
  {
    keys: ['deploy.adapterDir'],
    meaning: 'where adapters are materialised; the backend must see the same path (a shared volume in production)',
  },
  {
    keys: ['deploy.registry'],
    meaning:
      'the alias table (versions + full history) the gateway reads: a SQLite file (workers and gateways on one host or a shared disk) or a PostgreSQL URL without a password, `postgresql://user@host:5432/db` (many hosts; the password comes from `PGPASSWORD` or `~/.pgpass`); the tables are created on first use',
  },
  { keys: ['deploy.smokeProbes'], meaning: 'test prompts sent to a freshly loaded version before the alias moves' },
  { keys: ['deploy.timeoutMs'], meaning: 'per backend call' },
  { keys: ['gateway.host', 'gateway.port'], meaning: 'where `flywheel gateway` listens' },
  { keys: ['gateway.registry'], meaning: 'the alias table (the same file or PostgreSQL URL deploy writes)' },
  {
    keys: ['gateway.tracesDir'],
    meaning: 'every decision appended as an OpenAI-format trace, one JSONL file per UTC day',
  },
  { keys: ['gateway.timeoutMs'], meaning: 'per backend / frontier request' },
  {
    keys: ['gateway.backendApiKeyEnv'],
    meaning:
      "environment variable with the serving backends' API key (vLLM `--api-key`); missing: the gateway refuses to start",
  },
  {
    keys: ['gateway.keysFile'],
    unset: 'no key file (`flywheel gateway` reads `.flywheel/gateway-keys` when it exists)',
    meaning:
      "client keys, `name:sha256(key)` lines written by `flywheel gateway keys create NAME`; with any key here or in `FLYWHEEL_GATEWAY_KEYS` (`name=key,...`) every request needs `Authorization: Bearer <key>` (else an OpenAI-shaped 401) and the key's name goes into the decision log; re-read when it changes, so keys rotate without a restart",
  },
  {
    keys: ['gateway.allowAnonymous'],
    meaning:
      'let a gateway listening beyond loopback run without client keys (anyone who reaches the port may call it and spend escalation); without it such a gateway refuses to start',
  },
  {
    keys: ['gateway.confidence'],
    meaning:
      "what a decision's confidence (in its trace, and against `escalation.minConfidence`) is the probability of: `tool`, the chosen tool name's tokens; `answer`, the whole answer as written, arguments included (as `evaluate.calibration.confidence`)",
  },
  {
    keys: ['gateway.escalation.baseUrl', 'gateway.escalation.model'],
    meaning: 'the frontier endpoint low-confidence decisions go to; absent: nothing escalates',
  },
  {
    keys: ['gateway.escalation.apiKeyEnv'],
    meaning: 'environment variable with the frontier key (missing: the gateway refuses to start)',
  },
  {
    keys: ['gateway.escalation.minConfidence'],
    meaning: "escalate when the decision's confidence (`gateway.confidence`) is below this",
  },
  {
    keys: ['gateway.escalation.on'],
    meaning:
      "rules that escalate regardless of logprobs: `invalid` (no decision), `rewritten` (the router's call was refused by the contract's checks: not offered, an ungrounded id, off its schema), `abstain` (the model declined)",
  },
  {
    keys: ['gateway.otel'],
    unset: 'no spans',
    meaning:
      'export each decision as an OpenTelemetry GenAI inference span over OTLP/HTTP; a collector file exporter writes what a `traces:` source reads back (format `otel-genai`)',
  },
  {
    keys: ['gateway.otel.endpoint'],
    meaning: "the collector's OTLP/HTTP base URL; spans go to ENDPOINT/v1/traces (`--otel-endpoint`)",
  },
  {
    keys: ['gateway.otel.captureContent'],
    meaning:
      'put the messages, instructions and tool definitions on the span (`gen_ai.input.messages`, …); off by default, as the convention asks (`--otel-capture-content`). Without it the spans carry no content and cannot become rows',
  },
  {
    keys: ['gateway.otel.serviceName'],
    meaning: 'the `service.name` the spans carry',
  },
  {
    keys: ['gateway.otel.exportIntervalMs'],
    meaning: 'how long spans are batched before an export',
  },
  {
    keys: ['gateway.escalation.budget'],
    unset: 'no cap: every escalation the rules ask for is made',
    meaning:
      "what escalation may spend; over a cap the small model's decision is the answer, marked not escalated (`x-flywheel-escalation-skipped`, `escalationSkipped` in the decision log) with the reason. Counters are fixed windows (the UTC minute, the UTC day) in the registry's database, so they survive a restart and replicas on a PostgreSQL registry share them",
  },
  {
    keys: ['gateway.escalation.budget.requestsPerMinute', 'gateway.escalation.budget.tokensPerDay'],
    unset: 'no cap',
    meaning:
      "for all callers together: frontier requests per minute; frontier tokens per day (charged from each answer's `usage`, so the answer that crosses the cap is the last)",
  },
  {
    keys: [
      'gateway.escalation.budget.perKey',
      'gateway.escalation.budget.perKey.requestsPerMinute',
      'gateway.escalation.budget.perKey.tokensPerDay',
    ],
    unset: 'no per-key cap',
    meaning: 'the same caps for each client key on its own (with `gateway.keysFile` or `FLYWHEEL_GATEWAY_KEYS`)',
  },
  {
    keys: ['gateway.render.sliceSize'],
    unset: '`dataset.sliceSize` (set or default)',
    meaning:
      "with `gateway.render` set, the gateway renders each agent request as training did and shows the router this many of the agent's tools, chosen by the BM25 retriever (`docs/release.md`, Router gateway)",
  },
  {
    keys: ['gateway.render.caller'],
    meaning:
      'the persona (name, scopes) the router checks calls against; never read from the request. Without `gateway.render` requests are forwarded as sent (clients that send rendered prompts: eval, replays)',
  },
  {
    keys: ['gateway.render.maxPromptTokens'],
    meaning:
      'a rendered prompt estimated longer than this (characters / 3: the gateway has no tokenizer, so it errs towards cutting) loses its oldest turns, a tool call together with its results; the deciding user turn is always kept, and if it alone is too long the request is a 400. Cuts are counted in the trace (`rendered.truncatedTurns`) and the `x-flywheel-truncated-turns` header',
  },
];
