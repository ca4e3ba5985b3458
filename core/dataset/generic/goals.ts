import type { CatalogTool } from '../../catalog/types.js';
import { hashOf, shortSha } from '../../hash.js';
import { identifyingKeys, valuesForField } from '../../probe/match.js';
import type { HarvestedPools } from '../../probe/types.js';
import { sampleability, sampleArguments } from '../../schema/sample.js';
import type { Rng } from '../../rng.js';
import type { Goal } from '../types.js';
import { naturalPhrasings } from './natural.js';
import { argumentSlots, describedPhrasings, humanize, phraseRequest } from './phrase.js';

/** How a generic goal phrases its requests (dataset.phrasing) and the tools beside it on its server. */
export interface GenericPhrasing {
  phrasing?: 'description' | 'natural';
  siblings?: readonly CatalogTool[];
}

/** Described phrasings kept beside the natural ones: a minority, so the description's own words still appear. */
const DESCRIBED_AMONG_NATURAL = 2;

/**
 * The generic goal of a tool nobody wrote templates for: arguments sampled from its inputSchema, real
 * values from the probe's pools where a field matches one, requests phrased from its description.
 * Returns the reason instead when no argument set can be drawn (the tool is left out of the dataset).
 */
export function genericGoal(
  domain: string,
  tool: CatalogTool,
  harvested: HarvestedPools,
  seed: string | number,
  opts: GenericPhrasing = {},
): Goal | { skip: string } {
  const natural = opts.phrasing === 'natural';
  // Natural phrasing also draws string values by what each argument means in this tool.
  const meaning = natural ? words(`${humanize(tool.name)} ${tool.title ?? ''} ${tool.description ?? ''}`) : undefined;
  const check = sampleability(tool.inputSchema, `${seed}:${tool.id}`);
  if (!check.ok) return { skip: `cannot sample arguments: ${check.reason}` };
  // Real values that name something (ids, names, paths) become entity keys, so the split keeps each in one split.
  const identifying = identifyingKeys(harvested);
  const keyOf = new Map<string | number, string>();
  for (const key of identifying) for (const v of harvested[key]!) if (!keyOf.has(v.value)) keyOf.set(v.value, key);
  let draws = 0;
  // What trial calls taught: values the server accepted for this tool, and values it refused.
  const accepted = new Set<string | number>();
  const refused = new Set<string | number>();
  const values = (f: { name: string; path: readonly string[] }, rng: { chance(p: number): boolean }) => {
    const all = valuesForField(harvested, f, tool.name)
      .map((v) => v.value)
      .filter((v) => !refused.has(v) || accepted.has(v));
    const good = all.filter((v) => accepted.has(v));
    // Half the time a value known to work, else any value not yet refused: keeps both yield and variety.
    return good.length && rng.chance(0.5) ? good : all;
  };
  return {
    id: `generic:${tool.name}`,
    tool: tool.name,
    phrasings: [],
    draw(_pools, rng) {
      const args = sampleArguments(tool.inputSchema, {
        rng,
        values: (f) => values(f, rng),
        ...(meaning ? { meaning } : {}),
      });
      const phrased = natural ? naturally(tool, args, rng, opts.siblings ?? []) : phraseRequest(tool, args, rng);
      const real = leaves(args)
        .filter((v) => keyOf.has(v))
        .map((v) => `${domain}:${keyOf.get(v)}:${String(v)}`);
      // Made-up values name nothing real: the call itself is the entity (identical calls stay in one split).
      // A call without arguments names nothing at all: each draw is its own.
      const entities = real.length
        ? [...new Set(real)]
        : [
            `${domain}:${tool.name}:${Object.keys(args).length ? `call-${shortSha(hashOf(args), 12)}` : `draw-${draws}`}`,
          ];
      draws++;
      return { arguments: args, entities, ...phrased };
    },
    feedback(args, ok) {
      for (const v of leaves(args)) (ok ? accepted : refused).add(v);
    },
  };
}

/** Natural phrasings with a few described ones among them, each with its style, and clarifying exchanges. */
function naturally(tool: CatalogTool, args: Record<string, unknown>, rng: Rng, siblings: readonly CatalogTool[]) {
  const { slots, list } = argumentSlots(tool, args, rng);
  const n = naturalPhrasings(tool, list, rng, siblings);
  const described = describedPhrasings(tool, list, rng, DESCRIBED_AMONG_NATURAL).slice(0, DESCRIBED_AMONG_NATURAL);
  return {
    slots,
    phrasings: [...n.phrasings, ...described],
    styles: [...n.styles, ...described.map(() => 'described')],
    dialogues: n.dialogues,
  };
}

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

function leaves(value: unknown): Array<string | number> {
  if (typeof value === 'string' || typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}
