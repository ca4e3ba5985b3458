/**
 * The flywheel turned once at toy size (scripts/bench/flywheel-turns.ts on tiny:nano): turn 0 trains and deploys,
 * a batch of BFCL requests goes through the real gateway, the unsure ones escalate to the frontier stand-in (the
 * only stand-in: for a frontier model, which cannot be reached here), and turn 1's run trains on the gateway's trace
 * log. Checked: the batch's traces are in turn 1's dataset, carry the stand-in's labels, and share no request with
 * the held-out slice; the router's own answers are not among them; turn 1's test set is the gate slice of traffic.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { openStore } from '../../core/artifacts/index.js';
import type { ArtifactRef } from '../../core/artifacts/types.js';
import { loadConfigFile } from '../../core/config/load.js';
import type { RouterRow } from '../../core/dataset/types.js';
import { normaliseRequest } from '../../core/flywheel/traffic.js';
import { Redactor } from '../../core/traces/redact.js';
import type { TurnFigures } from '../../core/flywheel/turns-report.js';
import type { HeldLabel } from '../../scripts/lib/label-frontier.js';
import { REPO, TINY_OPTIM, tempDir } from '../helpers/fixtures.js';

const run = promisify(execFile);

interface TurnsReport {
  store: string;
  slices: { heldOut: string[]; validation: string[]; gate: string[]; batches: string[][] };
  requests: Record<string, string>;
  labels: Record<string, HeldLabel>;
  runs: Array<{ turn: number; runId: string; outputs: Record<string, ArtifactRef> }>;
  turns: TurnFigures[];
  calibration: { confidence: string };
}

describe('flywheel turns, toy size', () => {
  it(
    "turn 1's escalated traffic is in turn 1's dataset with the stand-in's labels, and no held-out request is",
    { timeout: 15 * 60_000 },
    async () => {
      const dir = tempDir('flywheel-turns-');
      const demo = await loadConfigFile(join(REPO, 'examples', 'salesforce-oracle.yaml'));
      const { gateway: _g, ...base } = demo;
      const config = join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          ...base,
          dataset: { ...demo.dataset, perGoal: 2 },
          train: {
            ...demo.train,
            job: { baseModel: 'tiny:nano', optim: TINY_OPTIM, checkpointEvery: 15, logEvery: 5 },
          },
          // Tiny models score noise: the margins let every candidate through, so each turn deploys.
          gate: { margin: 1, abstentionF1Tolerance: 1, minExactMatch: 0, requireApproval: false },
        }),
      );
      const out = join(dir, 'out');
      const { stdout } = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          join(REPO, 'scripts', 'bench', 'flywheel-turns.ts'),
          ...['--config', config, '--out', out, '--keep-store', '--error-rate', '0'],
          ...['--turns', '1', '--batch-size', '8', '--held-out', '4', '--validation', '4', '--gate', '4'],
          ...['--steps', '30', '--min-new-rows', '1', '--confidence', 'answer'],
        ],
        { cwd: REPO, timeout: 14 * 60_000, maxBuffer: 32 << 20 },
      );
      const last = stdout.trim().split('\n').at(-1)!;
      assert.match(
        last,
        /^flywheel-turns: exact=[\d.]+,[\d.]+ escalation=[\d.]+,[\d.]+ cost_per_1k=[\d.]+,[\d.]+ all_teacher_cost_per_1k=[\d.]+$/,
      );

      const report = JSON.parse(readFileSync(join(out, 'turns.json'), 'utf8')) as TurnsReport;
      assert.equal(
        report.calibration.confidence,
        'answer',
        "the threshold was chosen on the whole answer's probability",
      );
      const store = openStore(report.store);
      // Requests and labels as ingest stores them: PII redacted, the request first, then the call's arguments.
      const redacted = (text: string, label?: HeldLabel) => {
        const r = new Redactor();
        const asked = normaliseRequest(r.text(text));
        return { asked, label: label && { ...label, arguments: r.value(label.arguments) } };
      };
      const text = (id: string) => redacted(report.requests[id]!).asked;
      const heldOut = new Set(
        report.slices.heldOut.flatMap((id) => [text(id), normaliseRequest(report.requests[id]!)]),
      );
      const batch = new Set(report.slices.batches[0]!.map(text));
      const labels = new Map(
        Object.entries(report.labels).map(([t, l]) => {
          const r = redacted(t, l);
          return [r.asked, r.label!] as const;
        }),
      );

      const turn1 = report.runs.find((r) => r.turn === 1)!;
      const traceRows = await store.readJsonl<RouterRow>(turn1.outputs.traceRows!);
      const figures = report.turns.find((t) => t.turn === 1)!;
      assert.ok(figures.traffic!.escalated > 0, 'a tiny model is unsure: the batch escalates');
      assert.ok(traceRows.length > 0, 'escalated answers became rows');
      assert.ok(
        traceRows.length <= figures.traffic!.escalated,
        "only escalated answers are rows, never the router's own",
      );
      for (const row of traceRows) {
        const asked = normaliseRequest(row.request);
        assert.ok(batch.has(asked), `a trace row comes from the batch: ${row.request}`);
        assert.ok(!heldOut.has(asked), `a held-out request reached the dataset: ${row.request}`);
        const label = labels.get(asked)!;
        assert.deepEqual(
          { tool: row.target.tool, arguments: row.target.tool === null ? {} : row.target.arguments },
          label,
          "the row carries the stand-in's label",
        );
      }

      // What turn 1 trained and tested on: the trace rows are in it, and no held-out request is.
      const dataset = (
        await Promise.all(['train', 'val', 'test'].map((k) => store.readJsonl<RouterRow>(turn1.outputs[k]!)))
      ).flat();
      const ids = new Set(dataset.map((r) => r.id));
      for (const row of traceRows) assert.ok(ids.has(row.id), `trace row ${row.id} is in turn 1's splits`);
      // Turn 1's gate compared candidates on the gate slice of traffic, pinned as its test set.
      const test = await store.readJsonl<RouterRow>(turn1.outputs.test!);
      assert.ok(
        test.length > 0 && test.every((r) => report.slices.gate.includes(r.id)),
        'the test set is the gate slice',
      );
      for (const row of dataset)
        assert.ok(!heldOut.has(normaliseRequest(row.request)), `held-out request in turn 1's data: ${row.request}`);
    },
  );
});
