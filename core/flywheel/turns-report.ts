/**
 * The flywheel's figures turn over turn (scripts/bench/flywheel-turns.ts): one table, one line plot and the
 * benchmark's last line, from the measured turns.
 */
import type { Estimate } from '../eval/types.js';
import { fmtEstimate, fmtNum } from '../eval/report-markdown.js';
import { shareLines } from '../eval/svg.js';

export interface TurnFigures {
  turn: number;
  runId: string;
  /** The version the alias served after this turn's run (the one the held-out slice was scored on). */
  deployed: string;
  /** Held-out slice, router alone (weights + constraint). */
  heldOut: {
    n: number;
    exact: Estimate;
    abstentionF1: Estimate;
    /** Share the gateway's rule would escalate at the fixed threshold. */
    escalation: number;
    costPer1k: number;
    allFrontierPer1k: number;
    p50Ms: number | null;
    decisionsPerSecond: number | null;
  };
  /** The batch sent through the gateway before this turn's run; null for turn 0. */
  traffic: { n: number; escalated: number; exact: number } | null;
  /** Rows the run's traces stage made; null when the run had no traces stage outcome. */
  traceRows: number | null;
  /** promoted, refused (with the first failing rule), or skipped (the retrain policy's reason). */
  gate: string;
}

const share = (k: number, n: number) => (n === 0 ? '-' : (k / n).toFixed(2));

export function turnsTable(turns: readonly TurnFigures[]): string {
  const head =
    '| turn | held-out exact | abstention F1 | escalation (held-out) | escalation (traffic) | cost / 1K | p50 ms | trace rows | gate |';
  const rule = '|--:|---|---|--:|--:|--:|--:|--:|---|';
  const rows = turns.map((t) =>
    [
      t.turn,
      fmtEstimate(t.heldOut.exact),
      fmtEstimate(t.heldOut.abstentionF1),
      t.heldOut.escalation.toFixed(2),
      t.traffic ? `${share(t.traffic.escalated, t.traffic.n)} of ${t.traffic.n}` : '-',
      `$${fmtNum(t.heldOut.costPer1k, 3)}`,
      t.heldOut.p50Ms === null ? '-' : Math.round(t.heldOut.p50Ms),
      t.traceRows ?? '-',
      // The verdict; the rule that decided is in turns.json.
      t.gate.split(':')[0],
    ].join(' | '),
  );
  return [head, rule, ...rows.map((r) => `| ${r} |`)].join('\n');
}

/** Exact match, escalation rate and cost against the all-frontier cost, per turn. */
export function turnsPlot(turns: readonly TurnFigures[]): string {
  return shareLines(
    'plot-turns',
    'The flywheel, turn over turn',
    [
      { label: 'held-out exact', values: turns.map((t) => t.heldOut.exact.value) },
      { label: 'escalation rate', values: turns.map((t) => t.heldOut.escalation) },
      {
        label: 'cost / all-frontier cost',
        values: turns.map((t) =>
          t.heldOut.allFrontierPer1k > 0 ? t.heldOut.costPer1k / t.heldOut.allFrontierPer1k : null,
        ),
      },
    ],
    'turn',
  );
}

/** `flywheel-turns: exact=E0,E1,… escalation=R0,R1,… cost_per_1k=C0,C1,… all_teacher_cost_per_1k=C` */
export function turnsLine(turns: readonly TurnFigures[]): string {
  const list = (xs: Array<number | null>, digits: number) => xs.map((x) => fmtNum(x, digits)).join(',');
  const allFrontier = turns.length ? turns[0]!.heldOut.allFrontierPer1k : null;
  return `flywheel-turns: exact=${list(
    turns.map((t) => t.heldOut.exact.value),
    3,
  )} escalation=${list(
    turns.map((t) => t.heldOut.escalation),
    3,
  )} cost_per_1k=${list(
    turns.map((t) => t.heldOut.costPer1k),
    4,
  )} all_teacher_cost_per_1k=${fmtNum(allFrontier, 4)}`;
}
