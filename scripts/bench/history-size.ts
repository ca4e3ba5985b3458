/**
 * Workflow history at scale: the dataset stages (ingest through render) on ~100K rows with the embedded template
 * teacher, through Temporal on the dev server with one `flywheel worker` process, and what the run's history
 * weighs against Temporal's limits. A row-parallel stage runs as ceil(rows / dataset.chunkSize) chunk activities,
 * each passing artifact references, never rows, so the history grows with chunks, not rows.
 *
 *   node --import tsx scripts/bench/history-size.ts [--rows 100000] [--chunk-size 1000]
 *
 * Last line: `history-size: rows=<n> events=<n> bytes=<n> warn=<yes|no> seconds=<s>`. Temporal warns at
 * 10,240 events or 10 MiB of history (limit.historyCount.warn / limit.historySize.warn) and stops a workflow at
 * 51,200 events or 50 MiB; `warn=no` means the run stayed under both warnings. It also reports the largest
 * progress-memo upsert, which Temporal checks against limit.memoSize.warn.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import proto from '@temporalio/proto';
import { loadConfigFile, parseConfig } from '../../core/config/load.js';
import { REPO, tempDir } from '../../test/helpers/fixtures.js';
import { startTemporal } from '../../test/helpers/temporal.js';
import { DEFAULT_CONFIG } from '../lib/paths.js';
import { runStatus, startRun } from '../lib/runs.js';

const { temporal } = proto;
const WARN_EVENTS = 10_240;
const WARN_BYTES = 10 * 1024 * 1024;

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, 'chunk-size': { type: 'string', default: '1000' } },
});
const rows = Number(values.rows);

// The dev server as `flywheel dev-server` runs it (temporal-config/dev-server.json's dynamic config).
const env = await startTemporal();
const {
  train: _t,
  evaluate: _e,
  gate: _g,
  deploy: _d,
  gateway: _w,
  ...example
} = await loadConfigFile(join(REPO, DEFAULT_CONFIG));
// The demo config draws ~1,044 intents at perGoal 24 (~43.5 per unit of perGoal): scale perGoal to the rows asked for.
const perGoal = Math.max(1, Math.round((rows * 24) / 1044));
const cfg = parseConfig({
  ...example,
  name: 'history-size',
  artifacts: { store: `file://${tempDir('flywheel-history-size-')}` },
  dataset: { ...example.dataset!, perGoal, chunkSize: Number(values['chunk-size']) },
});
const worker = spawn(process.execPath, [join(REPO, 'bin', 'flywheel.js'), 'worker'], {
  env: { ...process.env, TEMPORAL_ADDRESS: env.address },
  stdio: ['ignore', 'ignore', 'inherit'],
  detached: true,
});
try {
  const started = Date.now();
  const { handle } = await startRun(env.client, cfg, { config: cfg, trigger: 'bench' });
  let last = '';
  for (;;) {
    const status = await runStatus(handle);
    const line = status.stages.map((s) => `${s.name}:${s.state}`).join(' ');
    if (line !== last) console.error(`${((Date.now() - started) / 1000).toFixed(0)} s  ${(last = line)}`);
    if (status.state === 'failed')
      throw new Error(`run failed: ${status.stages.find((s) => s.state === 'failed')?.detail}`);
    if (status.state === 'completed') break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const seconds = (Date.now() - started) / 1000;
  const history = await handle.fetchHistory();
  const events = history.events?.length ?? 0;
  const bytes = temporal.api.history.v1.History.encode(history).finish().length;
  const intents = (await runStatus(handle)).stages.find((s) => s.name === 'intents');
  const intentCount = intents?.outputs.intents?.count;
  const largest = Math.max(
    ...(history.events ?? []).map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length),
  );
  // The run's progress memo, upserted at every stage change: Temporal warns above limit.memoSize.warn.
  const memo = Math.max(
    0,
    ...(history.events ?? [])
      .map((e) => e.workflowPropertiesModifiedEventAttributes?.upsertedMemo)
      .filter(Boolean)
      .map((m) => temporal.api.common.v1.Memo.encode(m!).finish().length),
  );
  console.log(`intents: ${intentCount ?? '?'}; chunk size ${values['chunk-size']}; ${seconds.toFixed(0)} s`);
  console.log(
    `history: ${events} events (warn ${WARN_EVENTS}, limit 51,200), ${bytes} bytes (warn ${WARN_BYTES}, limit 50 MiB), largest event ${largest} bytes`,
  );
  console.log(
    `progress memo: largest upsert ${memo} bytes (Temporal's default warning 2,048; temporal-config/dev-server.json raises it to 8,192)`,
  );
  const warn = events >= WARN_EVENTS || bytes >= WARN_BYTES;
  console.log(
    `history-size: rows=${intentCount ?? rows} events=${events} bytes=${bytes} warn=${warn ? 'yes' : 'no'} seconds=${seconds.toFixed(0)}`,
  );
  if (warn) process.exitCode = 1;
} finally {
  if (worker.exitCode === null && worker.signalCode === null) process.kill(-worker.pid!, 'SIGTERM');
  await new Promise((r) => (worker.exitCode !== null ? r(undefined) : worker.once('exit', r)));
  await env.teardown();
}
