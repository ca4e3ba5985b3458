import { Rng } from '../rng.js';
import type { EntityPools } from '../probe/types.js';
import { hashOf, shortSha } from '../hash.js';
import { UnsampleableSchema } from '../schema/sample.js';
import { personasFor } from './personas.js';
import type { Goal, Intent, Persona } from './types.js';

export interface IntentOptions {
  domain: string;
  goals: Goal[];
  personas: Persona[];
  /** tool name -> required scopes, from the catalog. */
  toolScopes: Record<string, string[]>;
  pools: EntityPools;
  perGoal: number;
  /** Draws for one goal when it is not perGoal (generic goals aim at minPerTool distinct training rows). */
  drawsFor?: (goal: Goal) => number;
  /** Share of unsatisfiable asks, e.g. 0.15. */
  unsatisfiableShare: number;
  /** Requests no tool of this domain can serve. */
  asks: string[];
  /** tool name -> its description, passed on to teachers that write requests (openai). */
  toolDescriptions?: Record<string, string>;
  /**
   * Tries drawn arguments on the server (tools validation will execute anyway): false means the server
   * refused them, and the goal draws again (TRIAL_DRAWS in all). Lets generic goals learn which of the
   * probe's values fit a tool (a file where a directory is expected) without knowing the server.
   */
  trial?: (tool: string, args: Record<string, unknown>) => Promise<boolean>;
  seed: string | number;
}

/**
 * Draw intents: for each goal (whose tool is in the catalog) `perGoal` draws with a persona allowed to call
 * it, plus unsatisfiable asks making up `unsatisfiableShare` of the total. Deterministic given the seed.
 */
/** Draws per intent when a trial call refuses the arguments: the last one stands, and validation judges it. */
export const TRIAL_DRAWS = 4;

export async function drawIntents(o: IntentOptions): Promise<{ intents: Intent[]; skipped: Record<string, string> }> {
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
    const draws = o.drawsFor?.(goal) ?? o.perGoal;
    for (let i = 0; i < draws; i++) {
      let draw;
      try {
        draw = goal.draw(o.pools, rng);
        for (let t = 1; draw && o.trial && t <= TRIAL_DRAWS; t++) {
          const accepted = await o.trial(goal.tool, draw.arguments);
          goal.feedback?.(draw.arguments, accepted);
          if (accepted || t === TRIAL_DRAWS) break;
          draw = goal.draw(o.pools, rng);
        }
      } catch (err) {
        // A schema the sampler gave up on mid-way (or any fault drawing for this one tool): this goal stops,
        // the others go on, and the coverage table says why.
        skipped[goal.id] =
          err instanceof UnsampleableSchema
            ? `cannot sample arguments: ${err.reason}`
            : `drawing failed: ${(err as Error).message ?? String(err)}`;
        break;
      }
      if (!draw) {
        skipped[goal.id] = 'no entity fits this goal in the sampled pools';
        break;
      }
      const persona = rng.pick(personas);
      const core = { domain: o.domain, goal: goal.id, persona: persona.name, arguments: draw.arguments };
      intents.push({
        id: `int-${shortSha(hashOf({ ...core, i }), 16)}`,
        domain: o.domain,
        persona,
        goal: goal.id,
        tool: goal.tool,
        arguments: draw.arguments,
        slots: draw.slots,
        entities: draw.entities,
        phrasings: draw.phrasings ?? goal.phrasings,
        ...(draw.styles ? { styles: draw.styles } : {}),
        ...(draw.dialogues?.length ? { dialogues: draw.dialogues } : {}),
        ...(o.toolDescriptions?.[goal.tool] ? { toolDescription: o.toolDescriptions[goal.tool] } : {}),
      });
    }
  }
  const domainPersonas = o.personas.filter((p) => p.domain === o.domain);
  const wanted =
    o.asks.length && domainPersonas.length
      ? Math.round((intents.length * o.unsatisfiableShare) / (1 - o.unsatisfiableShare))
      : 0;
  for (let i = 0; i < wanted; i++) {
    const ask = o.asks[i % o.asks.length]!;
    const persona = rng.pick(domainPersonas);
    intents.push({
      id: `int-${shortSha(hashOf({ domain: o.domain, ask, i }), 16)}`,
      domain: o.domain,
      persona,
      goal: 'unsatisfiable',
      tool: null,
      arguments: {},
      slots: {},
      entities: [`${o.domain}:none:${i % o.asks.length}`],
      phrasings: [ask],
    });
  }
  return { intents, skipped };
}
