import { STAGES } from '../workflows/contract/table.js';

/**
 * The stage activities, each also under the type it had before activity types were stage names: histories recorded
 * then schedule those types, and a run started then may still be going when its workers are upgraded. Typed by the
 * stage names: only Temporal calls the former ones, by string.
 */
export function withFormerNames<T extends Record<string, unknown>>(stages: T): T {
  const former: Record<string, T[keyof T]> = {};
  for (const spec of STAGES)
    if ('formerActivity' in spec && spec.name in stages) former[spec.formerActivity] = stages[spec.name as keyof T];
  return { ...stages, ...former };
}
