import { shortSha } from '../hash.js';
import type { AdapterParts } from './adapter.js';

/** One line of the card's hyperparameter table, with where the value was read. */
export interface Hyperparameter {
  name: string;
  value: string | number | boolean;
  source: string;
}

function show(v: unknown): string | number | boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  if (Array.isArray(v)) return [...v].map(String).sort().join(', ');
  return JSON.stringify(v);
}

/**
 * The hyperparameters, each from the most direct record: PEFT's adapter_config.json for the LoRA shape (what
 * actually got trained), the run config's train job for the optimiser (see findTrainJob), the trainer's
 * flywheel.json and metrics.jsonl for what happened. Without a matching job, the logged peak learning rate
 * and the epochs reached stand in for the optimiser settings.
 */
export function hyperparameters(p: AdapterParts): Hyperparameter[] {
  const out: Hyperparameter[] = [];
  const add = (name: string, value: unknown, source: string) => {
    const v = show(value);
    if (v !== undefined) out.push({ name, value: v, source });
  };
  add('base model', p.meta?.baseModel ?? p.adapter.stats.baseModel, 'adapter/flywheel.json');
  add('method', p.meta?.method ?? p.adapter.stats.method, 'adapter/flywheel.json');
  add('completion format', p.meta?.format, 'adapter/flywheel.json');
  const peft = 'adapter/adapter_config.json';
  add('PEFT type', p.peft?.peft_type, peft);
  add('LoRA r', p.peft?.r, peft);
  add('LoRA alpha', p.peft?.lora_alpha, peft);
  add('LoRA dropout', p.peft?.lora_dropout, peft);
  add('LoRA target modules', p.peft?.target_modules, peft);
  if (p.peft?.use_dora) add('DoRA', true, peft);
  if (p.peft?.use_rslora) add('rsLoRA', true, peft);
  if (p.job) {
    const src = `train job (run config ${shortSha(p.job.config.sha256)})`;
    const optim = (p.job.identity.optim ?? {}) as Record<string, unknown>;
    add('learning rate', optim.learningRate, src);
    add('LR scheduler', optim.scheduler, src);
    add('warmup ratio', optim.warmupRatio, src);
    add('epochs', optim.epochs, src);
    add('max steps', optim.maxSteps, src);
    add('effective batch size', optim.effectiveBatchSize, src);
    add('micro batch size', optim.microBatchSize, src);
    add('max length (tokens)', optim.maxLength, src);
    add('early stopping patience', optim.earlyStoppingPatience, src);
    add('seed', optim.seed, src);
    add('precision', p.job.identity.precision, src);
    add('packing', p.job.identity.packing, src);
  } else {
    const lrs = p.events.map((e) => e.lr).filter((x): x is number => typeof x === 'number');
    if (lrs.length) add('learning rate (peak logged)', Math.max(...lrs), 'metrics.jsonl');
  }
  const epochs = p.events.map((e) => e.epoch).filter((x): x is number => typeof x === 'number');
  if (epochs.length) add('epochs completed', Number(Math.max(...epochs).toFixed(4)), 'metrics.jsonl');
  add('steps trained', p.meta?.steps ?? p.adapter.stats.steps, 'adapter/flywheel.json');
  add('final train loss', p.adapter.stats.trainLoss, 'adapter manifest');
  add('eval loss (first → last)', evalLoss(p), 'adapter manifest');
  add('best eval loss', p.meta?.bestEvalLoss, 'adapter/flywheel.json');
  add('resumed from step', p.adapter.stats.resumedFromStep, 'adapter manifest');
  const tps = p.events.map((e) => e.tokens_per_s).filter((x): x is number => typeof x === 'number');
  if (tps.length)
    add('throughput (tokens/s, mean)', Math.round(tps.reduce((a, b) => a + b, 0) / tps.length), 'metrics.jsonl');
  if (p.tinyBase) add('tiny base preset', p.tinyBase.preset, 'base/flywheel-tiny.json');
  return out;
}

function evalLoss(p: AdapterParts): string | undefined {
  const { firstEvalLoss: first, evalLoss: last } = p.adapter.stats;
  if (typeof last !== 'number') return undefined;
  return typeof first === 'number' ? `${first} → ${last}` : String(last);
}
