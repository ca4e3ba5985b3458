import type { StageOutcome } from '../../core/pipeline/types.js';
import { EvalInputError } from '../../core/eval/cases.js';
import { decideGate } from '../../core/eval/gate.js';
import { putReport } from '../../core/eval/report-store.js';
import type { EvalReport, GateDecision } from '../../core/eval/types.js';
import { failFast } from '../../activities/errors.js';
import { storeFor } from '../../activities/store.js';
import type { GateArgs, GateDecisionArgs } from './spec.js';

/** The gate's decision on the eval results (the workflow may add an operator's approval before recording it). */
export async function gateStage(a: GateDecisionArgs): Promise<{ decision: GateDecision }> {
  return failFast(async () => {
    const results = await storeFor(a.store).readJson<EvalReport>(a.evalResults);
    const candidate = results.results.find((r) => r.label === 'candidate');
    if (!candidate) throw new EvalInputError(`eval results ${a.evalResults.sha256.slice(0, 12)} have no candidate`);
    const production = results.results.find((r) => r.label === 'production') ?? null;
    return { decision: decideGate(candidate, production, a.gate, results.bootstrap) };
  });
}

/** Store the full report (json, md, html) with the final decision in it. */
export async function gate(a: GateArgs): Promise<StageOutcome> {
  return failFast(async () => {
    const store = storeFor(a.store);
    const report: EvalReport = { ...(await store.readJson<EvalReport>(a.evalResults)), gate: a.decision };
    const ref = await putReport(store, report, [a.evalResults], {
      promote: a.decision.promote,
      candidate: a.decision.candidate,
      production: a.decision.production,
    });
    // The line that decided: an operator's answer, else the first failed rule, else the last rule checked.
    const why =
      a.decision.reasons.find((r) => /^(approved|rejected) by |^no approval|: fail$/.test(r)) ??
      a.decision.reasons.at(-1) ??
      '';
    return {
      outputs: { evalReport: ref },
      reused: false,
      summary: `${a.decision.promote ? 'promote' : 'hold'}: ${why}`,
    };
  });
}
