import { Rng } from '../../rng.js';
import type { Intent } from '../types.js';
import type { Candidate, RequestDraft, Teacher } from './types.js';

const OPENERS = ['', '', '', 'Hi, ', 'Quick one: ', 'Can you help? ', 'Please: ', 'Hey — '];
const CLOSERS = ['', '', '', ' Thanks!', ' Thank you.', ' ASAP please.', ' Cheers.'];

/** Fill {slot} placeholders; a phrasing that names a slot the draw lacks is a bug in the goal. */
export function fill(phrasing: string, slots: Record<string, string | number>): string {
  return phrasing.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in slots)) throw new Error(`phrasing "${phrasing}" uses {${k}} but the goal gives no such slot`);
    return String(slots[k]);
  });
}

/**
 * The embedded default teacher: requests come from the goal's phrasings with light variation, and the
 * answer is the call the intent was drawn with (known correct by construction, then checked by validate).
 * Deterministic given the seed and the intents.
 */
export function templateTeacher(seed: string | number): Teacher {
  return {
    name: 'template',
    async generate(intents: Intent[]): Promise<RequestDraft[]> {
      return intents.map((intent) => {
        const rng = new Rng(`generate:${seed}:${intent.id}`);
        let text = fill(rng.pick(intent.phrasings), intent.slots);
        if (rng.chance(0.15)) text = text.charAt(0).toLowerCase() + text.slice(1);
        return { intentId: intent.id, request: `${rng.pick(OPENERS)}${text}${rng.pick(CLOSERS)}`.trim(), teacher: 'template' };
      });
    },
    async solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]> {
      const byId = new Map(intents.map((i) => [i.id, i]));
      return drafts.map((d) => {
        const intent = byId.get(d.intentId);
        if (!intent) throw new Error(`draft for unknown intent ${d.intentId}`);
        if (d.malformed) return { intentId: d.intentId, request: d.request, target: { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: '' }, teacher: 'template', malformed: d.malformed };
        const target = intent.tool
          ? { tool: intent.tool, arguments: intent.arguments }
          : { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: 'no tool in the catalog can do this' };
        return { intentId: d.intentId, request: d.request, target, teacher: 'template' };
      });
    },
  };
}
