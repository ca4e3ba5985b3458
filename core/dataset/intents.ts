import { Rng } from '../../sandboxes/common/rng.js';
import type { EntityPools } from '../sandbox/entities.js';
import { hashOf, shortSha } from '../hash.js';
import { personasFor } from './personas.js';
import type { Goal, Intent, Persona } from './types.js';
import { UNSATISFIABLE } from './unsatisfiable.js';

export interface IntentOptions {
  domain: string;
  goals: Goal[];
  personas: Persona[];
  /** tool name -> required scopes, from the catalog. */
  toolScopes: Record<string, string[]>;
  pools: EntityPools;
  perGoal: number;
  /** Share of unsatisfiable asks, e.g. 0.15. */
  unsatisfiableShare: number;
  seed: string | number;
}

/**
 * Draw intents: for each goal (whose tool is in the catalog) `perGoal` draws with a persona allowed to call
 * it, plus unsatisfiable asks making up `unsatisfiableShare` of the total. Deterministic given the seed.
 */
export function drawIntents(o: IntentOptions): { intents: Intent[]; skipped: Record<string, string> } {
  const rng = new Rng(`intents:${o.domain}:${o.seed}`);
  const intents: Intent[] = [];
  const skipped: Record<string, string> = {};
  for (const goal of o.goals) {
    const scopes = o.toolScopes[goal.tool];
    if (!scopes) {
      skipped[goal.id] = `tool ${goal.tool} is not in the catalog`;
      continue;
    }
    const personas = personasFor(o.personas, o.domain, scopes);
    if (personas.length === 0) {
      skipped[goal.id] = `no persona holds ${scopes.join(', ')}`;
      continue;
    }
    for (let i = 0; i < o.perGoal; i++) {
      const draw = goal.draw(o.pools, rng);
      if (!draw) {
        skipped[goal.id] = 'no entity fits this goal in the sampled pools';
        break;
      }
      const persona = rng.pick(personas);
      const core = { domain: o.domain, goal: goal.id, persona: persona.name, arguments: draw.arguments };
      intents.push({ id: `int-${shortSha(hashOf({ ...core, i }), 16)}`, domain: o.domain, persona, goal: goal.id, tool: goal.tool, arguments: draw.arguments, slots: draw.slots, entities: draw.entities, phrasings: goal.phrasings });
    }
  }
  const asks = UNSATISFIABLE[o.domain] ?? [];
  const domainPersonas = o.personas.filter((p) => p.domain === o.domain);
  const wanted = asks.length && domainPersonas.length ? Math.round((intents.length * o.unsatisfiableShare) / (1 - o.unsatisfiableShare)) : 0;
  for (let i = 0; i < wanted; i++) {
    const ask = asks[i % asks.length]!;
    const persona = rng.pick(domainPersonas);
    intents.push({ id: `int-${shortSha(hashOf({ domain: o.domain, ask, i }), 16)}`, domain: o.domain, persona, goal: 'unsatisfiable', tool: null, arguments: {}, slots: {}, entities: [`${o.domain}:none:${i % asks.length}`], phrasings: [ask] });
  }
  return { intents, skipped };
}
