import { startTrainer, type TrainerRun } from './trainer-process.js';

export interface ServeProcess {
  /** OpenAI base URL (…/v1). */
  url: string;
  run: TrainerRun;
}

/**
 * Start `python -m flywheel_trainer serve <args>` on a free port and wait until it listens. A server that
 * exits first rejects with its stderr tail.
 */
export async function startServe(args: string[], stderrFile: string, env?: NodeJS.ProcessEnv): Promise<ServeProcess> {
  let listening: (url: string) => void = () => undefined;
  const ready = new Promise<string>((resolve) => (listening = resolve));
  const run = startTrainer(['serve', '--port', '0', ...args], {
    stderrFile,
    onEvent: (e) => void (e.event === 'listening' && e.url && listening(e.url)),
    ...(env ? { env } : {}),
  });
  const exited = run.done.then((exit) => {
    throw new Error(
      `serve exited (code ${exit.code ?? exit.signal}) before listening: ${exit.error?.message ?? exit.stderrTail.slice(-1500)}`,
    );
  });
  const url = await Promise.race([ready, exited]);
  exited.catch(() => undefined); // a later exit (our own kill) is not an error
  return { url, run };
}
