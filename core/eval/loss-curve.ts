import type { LossPoint } from './types.js';

/** The training curve from the trainer's metrics.jsonl: train loss per logged step, eval loss per evaluation. */
export function lossCurve(metricsJsonl: string): LossPoint[] {
  const byStep = new Map<number, LossPoint>();
  for (const line of metricsJsonl.split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as { event?: string; step?: number; loss?: number; eval_loss?: number };
    if (typeof e.step !== 'number') continue;
    const point = byStep.get(e.step) ?? { step: e.step };
    if (e.event === 'step' && typeof e.loss === 'number') point.loss = e.loss;
    if (e.event === 'eval' && typeof e.eval_loss === 'number') point.evalLoss = e.eval_loss;
    if (point.loss !== undefined || point.evalLoss !== undefined) byStep.set(e.step, point);
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}
