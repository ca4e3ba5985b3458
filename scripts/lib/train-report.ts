import type { ArtifactStore } from '../../core/artifacts/index.js';
import type { TrainerEvent } from '../../core/train/trainer-process.js';
import type { RunStatus } from './runs.js';

const BARS = '▁▂▃▄▅▆▇█';

/** A one-line chart of a series, scaled to its own min..max. */
export function sparkline(values: number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return values.map((v) => BARS[hi === lo ? 0 : Math.round(((v - lo) / (hi - lo)) * (BARS.length - 1))]).join('');
}

/** The candidate's training in a few lines (DPO's when the preference stage ran): version, loss curves, how to serve it. */
export async function trainReport(store: ArtifactStore, status: RunStatus): Promise<string | undefined> {
  const done = (name: string) => status.stages.find((s) => s.name === name && s.outputs.adapter);
  const train = done('preference') ?? done('train');
  if (!train?.outputs.adapter || !train.outputs.metrics) return undefined;
  const stats = (await store.manifest(train.outputs.adapter.sha256)).stats as {
    adapterVersion: string;
    baseModel: string;
    method: string;
    steps: number;
  };
  const events = (await store.read(train.outputs.metrics))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TrainerEvent);
  const steps = events.filter((e) => e.event === 'step' && e.loss !== undefined);
  const evals = events.filter((e) => e.event === 'eval' && e.eval_loss !== undefined);
  const lines = [`${stats.adapterVersion}: ${stats.method} on ${stats.baseModel}, ${stats.steps} steps`];
  if (steps.length)
    lines.push(
      `train loss ${sparkline(steps.map((e) => e.loss!))}  ${steps[0]!.loss!.toFixed(3)} (step ${steps[0]!.step}) → ${steps.at(-1)!.loss!.toFixed(3)} (step ${steps.at(-1)!.step})`,
    );
  if (evals.length)
    lines.push(`eval loss  ${evals.map((e) => `step ${e.step}: ${e.eval_loss!.toFixed(3)}`).join(', ')}`);
  const rate = steps.map((e) => e.tokens_per_s ?? 0).filter((r) => r > 0);
  if (rate.length) lines.push(`throughput ~${Math.round(rate.reduce((a, b) => a + b, 0) / rate.length)} tokens/s`);
  lines.push(
    `serve it:  flywheel artifacts get ${train.outputs.adapter.sha256.slice(0, 12)} /tmp/${stats.adapterVersion} && PYTHONPATH=trainer .venv/bin/python -m flywheel_trainer serve --adapter router=/tmp/${stats.adapterVersion}/adapter`,
  );
  return lines.join('\n');
}
