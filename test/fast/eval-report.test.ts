import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_FAILED_ROWS, renderHtml } from '../../core/eval/report-html.js';
import { renderMarkdown, summaryTable } from '../../core/eval/report-markdown.js';
import { calibrationOf } from '../../core/eval/calibration.js';
import { ABSTAIN, ERROR_TYPES, type EvalReport } from '../../core/eval/types.js';
import { NASTY_TOOL, emptyReport, sampleReport } from '../helpers/eval-report-fixture.js';

/** The <svg> element with this id, or undefined. */
const svgById = (html: string, id: string): string | undefined =>
  new RegExp(`<svg id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0];
const count = (s: string, needle: string): number => s.split(needle).length - 1;

describe('markdown report', () => {
  const md = renderMarkdown(sampleReport());

  it('has the header and the summary numbers with their intervals, one column per endpoint', () => {
    assert.match(md, /Test set: `abcdef012345` \(6 cases\)/);
    assert.ok(md.includes('| metric | candidate | production |'), md);
    assert.ok(md.includes('| exact match | 0.667 [0.33–1.00] | 0.500 [0.17–0.83] |'), md);
    assert.ok(md.includes('| abstention precision | 0.500 [0.00–1.00] | — |'), 'null estimate prints as —');
    assert.ok(md.includes('| schema-valid rate | 1.000 [1.00–1.00] | 0.833 [0.50–1.00] |'));
    assert.ok(md.includes('| p95 latency (ms) | 260 | 420 |'));
    assert.ok(
      md.includes(
        '| cost per 1K decisions | $0.0123 (gpu-hour $1.20 at 27.1 decisions/s) | $0.0188 (gpu-hour $1.20 at 17.7 decisions/s) |',
      ),
    );
    assert.ok(md.includes('| decisions/s | 27.10 | 17.70 |'));
  });

  it('summaryTable is exactly the summary section', () => {
    const t = summaryTable(sampleReport());
    assert.ok(md.includes(t));
    assert.equal(t.split('\n').length, 2 + 14);
    assert.ok(!t.includes('Gate'));
  });

  it('has every error type row and the gate verdict with its rules', () => {
    for (const t of ERROR_TYPES) assert.match(md, new RegExp(`^\\| ${t} \\| \\d+ \\| \\d+ \\|$`, 'm'));
    assert.ok(md.includes('| spurious_abstention | 1 | 0 |'));
    assert.ok(md.includes('| wrong_tool | 0 | 1 |'));
    assert.ok(md.includes('## Gate: PROMOTE'));
    assert.ok(md.includes('- exact match Δ (candidate − production): +0.167 [0.01–0.33]'));
    assert.ok(md.includes('- abstention F1: production has none, not compared: pass'));
    const held = sampleReport();
    held.gate = { ...held.gate!, promote: false };
    assert.ok(renderMarkdown(held).includes('## Gate: HOLD'));
    const noGate = sampleReport();
    delete noGate.gate;
    assert.ok(!renderMarkdown(noGate).includes('## Gate'));
  });

  it('per-tool, per-domain and confusion tables of the candidate, with | escaped', () => {
    assert.ok(md.includes('## Per tool — candidate'));
    assert.ok(md.includes('| evil<b>&"\\|\'tool | 1 | 1.000 | 1.000 |'), 'pipe in a cell is escaped');
    assert.ok(md.includes('| crm | 3 | 0.667 | 0.667 |'));
    assert.ok(md.includes(`| get_customer | 1 | 0 | 0 | 1 | 0 |`));
    assert.ok(md.includes(`| ${ABSTAIN} | 0 | 0 | 0 | 1 | 0 |`));
    // Every table row has the same number of unescaped separators as its header.
    for (const line of md.split('\n').filter((l) => l.startsWith('| target')))
      assert.equal(count(line.replace(/\\\|/g, ''), '|'), 7);
  });
});

describe('HTML report', () => {
  const html = renderHtml(sampleReport());

  it('is one self-contained file: no scripts, no external references', () => {
    assert.match(html, /^<!doctype html>/);
    assert.ok(html.includes('<style>'));
    for (const bad of ['<script', 'src=', 'href="http', "href='http", '@import', 'url(', '<link'])
      assert.ok(!html.includes(bad), `contains ${bad}`);
  });

  it('has the summary, gate and error tables', () => {
    assert.ok(html.includes('<td>exact match</td><td>0.667 [0.33–1.00]</td><td>0.500 [0.17–0.83]</td>'));
    assert.ok(html.includes('<div class="verdict">PROMOTE</div>'));
    for (const t of ERROR_TYPES) assert.ok(html.includes(`<td>${t}</td>`), t);
  });

  it('has the four plots', () => {
    for (const id of ['plot-confusion', 'plot-tools', 'plot-latency', 'plot-loss']) assert.ok(svgById(html, id), id);
    const loss = svgById(html, 'plot-loss')!;
    assert.ok(loss.includes('class="loss-train"') && loss.includes('class="loss-eval"'));
    const tools = svgById(html, 'plot-tools')!;
    assert.equal(count(tools, 'class="bar"'), 8, '4 tools × 2 endpoints');
    const lat = svgById(html, 'plot-latency')!;
    assert.ok(count(lat, 'class="bar"') >= 2);
    assert.ok(lat.includes('>candidate<') && lat.includes('>production<'), 'legend');
  });

  it('heatmap has labels × labels cells, with counts and the row shade', () => {
    const heat = svgById(html, 'plot-confusion')!;
    const k = sampleReport().results[0]!.metrics.confusion.labels.length;
    assert.equal(count(heat, 'class="cell"'), k * k);
    assert.equal(count(heat, 'class="col-label"'), k);
    assert.equal(count(heat, 'class="row-label"'), k);
    // Row ABSTAIN → ABSTAIN is the whole row: darkest shade.
    assert.ok(heat.includes('fill="rgb(8,48,107)"'));
  });

  it('escapes every data text', () => {
    assert.ok(!html.includes('<b>'), 'raw tag from a tool name');
    assert.ok(!html.includes(NASTY_TOOL));
    assert.ok(!html.includes('&"'));
    assert.ok(!html.includes('<html>'), 'raw detail text');
    assert.ok(html.includes('evil&lt;b&gt;&amp;&quot;|&#39;tool'));
  });

  it('lists only the failed cases of the candidate, capped with a note', () => {
    const rows = html.split('<table class="cases">')[1]!.split('</table>')[0]!;
    assert.equal(count(rows, '<tr>'), 1 + 2);
    assert.ok(rows.includes('<td>spurious_abstention</td>') && rows.includes('<td>invalid_output</td>'));
    assert.ok(!rows.includes('<td>correct</td>'));
    assert.ok(!html.includes('Showing the first'));

    const big = sampleReport();
    const c = big.results[0]!;
    const failed = c.cases[4]!;
    c.cases = Array.from({ length: 250 }, (_, i) => ({ ...failed, id: `f${i}` })).concat(c.cases);
    const out = renderHtml(big);
    const bigRows = out.split('<table class="cases">')[1]!.split('</table>')[0]!;
    assert.equal(count(bigRows, '<tr>'), 1 + MAX_FAILED_ROWS);
    assert.ok(out.includes(`Showing the first ${MAX_FAILED_ROWS} of 252 failed cases.`));
  });

  it('omits the loss plot without a training curve', () => {
    const r = sampleReport();
    delete r.trainingCurve;
    assert.equal(svgById(renderHtml(r), 'plot-loss'), undefined);
    r.trainingCurve = [{ step: 1 }];
    assert.equal(svgById(renderHtml(r), 'plot-loss'), undefined);
  });
});

describe('empty data', () => {
  const reports: [string, EvalReport][] = [
    ['an endpoint with zero cases and null metrics', emptyReport()],
    ['no endpoints at all', { ...emptyReport(), results: [] }],
    [
      'a single-point curve and equal latencies',
      { ...sampleReport(), trainingCurve: [{ step: 5, loss: 1, evalLoss: 1 }] },
    ],
  ];
  for (const [name, report] of reports) {
    it(`renders ${name} without NaN or undefined`, () => {
      const zeroLatency = structuredClone(report);
      for (const r of zeroLatency.results) for (const c of r.cases) c.measure.latencyMs = 100;
      for (const r of [report, zeroLatency]) {
        for (const out of [renderMarkdown(r), renderHtml(r)]) {
          for (const bad of ['NaN', 'undefined', 'Infinity', 'null']) assert.ok(!out.includes(bad), `${bad} in output`);
        }
      }
    });
  }

  it('still draws the plot frames with a note, and prints — for null metrics', () => {
    const html = renderHtml(emptyReport());
    for (const id of ['plot-confusion', 'plot-tools', 'plot-latency'])
      assert.match(svgById(html, id)!, /class="empty"/);
    assert.equal(svgById(html, 'plot-loss'), undefined);
    assert.ok(html.includes('No failed cases.'));
    const md = renderMarkdown(emptyReport());
    assert.ok(md.includes('| exact match | — |'));
    assert.ok(md.includes('| cost per 1K decisions | — (none) |'));
  });
});

describe('calibration in the report', () => {
  const calibrated = (): EvalReport => {
    const report = sampleReport();
    report.calibration = calibrationOf(
      [
        { confidence: 0.95, exact: true },
        { confidence: 0.9, exact: true },
        { confidence: 0.85, exact: false },
        { confidence: 0.3, exact: false },
        { confidence: null, exact: false },
      ],
      { targetPrecision: 0.9, bins: 10 },
    );
    return report;
  };

  it('markdown: the threshold to set, what it keeps, and the non-empty bins', () => {
    const md = renderMarkdown(calibrated());
    assert.ok(md.includes('## Calibration (candidate)'));
    assert.ok(md.includes('`gateway.escalation.minConfidence: 0.9`: it keeps 2 of 4 (50.0 %) at precision 1.000'));
    assert.ok(md.includes('(1 without one'));
    assert.ok(md.includes('| 0.90–1.00 | 2 | 0.925 | 1.000 |'));
    assert.ok(md.includes('| 0.30–0.40 | 1 | 0.300 | 0.000 |'));
    assert.ok(!md.includes('| 0.00–0.10 |'), 'empty bins are left out');
  });

  it('HTML: the reliability diagram with one bar per non-empty bin and the threshold line', () => {
    const plot = svgById(renderHtml(calibrated()), 'plot-reliability')!;
    assert.ok(plot);
    assert.equal(count(plot, 'class="bin"'), 3);
    assert.equal(count(plot, 'class="threshold"'), 1);
    assert.ok(plot.includes('escalate below 0.9<'));
  });

  it('names the confidence it read, and the gateway setting that reads it alike', () => {
    assert.ok(renderMarkdown(calibrated()).includes("Confidence: the probability of the chosen tool's name tokens"));
    const report = sampleReport();
    report.calibration = calibrationOf([{ confidence: 0.95, exact: true }], {
      targetPrecision: 0.9,
      bins: 10,
      confidence: 'answer',
    });
    const md = renderMarkdown(report);
    assert.ok(md.includes('Confidence: the probability of the whole answer as written'));
    assert.ok(md.includes('set `gateway.confidence: answer` and `gateway.escalation.minConfidence: 0.95`'), md);
  });

  it('says so when no threshold reaches the target, and draws no threshold line', () => {
    const report = sampleReport();
    report.calibration = calibrationOf([{ confidence: 0.9, exact: false }], { targetPrecision: 0.9, bins: 10 });
    assert.ok(renderMarkdown(report).includes('No threshold keeps answers right 90 % of the time'));
    assert.equal(count(svgById(renderHtml(report), 'plot-reliability')!, 'class="threshold"'), 0);
  });

  it('is absent from a report scored without logprobs', () => {
    assert.ok(!renderMarkdown(sampleReport()).includes('Calibration'));
    assert.ok(!svgById(renderHtml(sampleReport()), 'plot-reliability'));
  });
});
