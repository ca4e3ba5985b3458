import type { RunProgress, StageProgress } from '../../core/pipeline/types.js';
import { runProgress, type RunHandle } from './runs.js';

const ICON: Record<StageProgress['state'], string> = {
  pending: '·',
  running: '▶',
  completed: '✔',
  reused: '↺',
  failed: '✖',
  skipped: '–',
};

export function stageLine(s: StageProgress): string {
  const secs =
    s.startedAt && s.finishedAt
      ? ` (${((Date.parse(s.finishedAt) - Date.parse(s.startedAt)) / 1000).toFixed(1)} s)`
      : '';
  return `${ICON[s.state]} ${s.name.padEnd(10)} ${s.state.padEnd(9)}${s.detail ? ` ${s.detail}` : ''}${secs}`;
}

/**
 * Follow a run until it closes, drawing stage progress to stderr: redrawn in place on a terminal,
 * one line per change otherwise (logs, CI). Returns the run's final result or throws its failure.
 */
export async function watchRun(handle: RunHandle, out: NodeJS.WriteStream = process.stderr): Promise<RunProgress> {
  const tty = Boolean(out.isTTY);
  let drawn = 0;
  const seen = new Map<string, string>();
  const draw = (p: RunProgress | undefined): void => {
    if (!p) return;
    if (tty) {
      if (drawn > 0) out.write(`\x1b[${drawn}A`);
      for (const s of p.stages) out.write(`\x1b[2K${stageLine(s)}\n`);
      drawn = p.stages.length;
    } else {
      for (const s of p.stages) {
        const line = stageLine(s);
        if (seen.get(s.name) !== `${s.state}${s.detail}`) {
          seen.set(s.name, `${s.state}${s.detail}`);
          if (s.state !== 'pending') out.write(`${line}\n`);
        }
      }
    }
  };
  let done = false;
  const result = handle.result().finally(() => {
    done = true;
  });
  while (!done) {
    draw(await runProgress(handle).catch(() => undefined));
    await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
  }
  draw(await runProgress(handle).catch(() => undefined));
  return result;
}
