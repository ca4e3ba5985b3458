/**
 * The tools an adapter was trained on, as the trainer records them in its flywheel.json (`tools`): the catalog's
 * tools it may name though a request does not offer them. `flywheel serve` reads them to let its constraint name
 * them; an engine decoding inside the router answer's schema gets them as `nameable` (core/eval/answer-schema.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RenderedRow } from '../dataset/render.js';

export function readAdapterTools(adapterDir: string): RenderedRow['tools'] {
  const file = join(adapterDir, 'flywheel.json');
  let meta: unknown;
  try {
    meta = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a readable adapter record (${(err as Error).message})`);
  }
  const tools = (meta as { tools?: unknown }).tools ?? [];
  const ok =
    Array.isArray(tools) &&
    tools.every(
      (t) =>
        typeof t === 'object' &&
        t !== null &&
        typeof (t as { function?: { name?: unknown } }).function?.name === 'string',
    );
  if (!ok) throw new Error(`${file}: tools must be a list of OpenAI tool objects with function.name`);
  return tools as RenderedRow['tools'];
}
