import { Rng } from '../../rng.js';
import type { Intent } from '../types.js';
import { styleSlots, styleTemplate } from './style.js';
import type { Candidate, ConversationTurn, RequestDraft, Teacher } from './types.js';

/** Share of requests that come as the last turn of a conversation. */
const MULTI_TURN_SHARE = 0.15;
const VAGUE_ASKS = [
  'I need help with something.',
  'Can you do something for me?',
  'Got a request for you.',
  'hey, quick task',
  'Are you there?',
];
const READY = [
  'Sure — what do you need?',
  'Of course. What should I do?',
  'Happy to help. What is it?',
  'Yes, go ahead.',
];
const DONE = ['Done.', 'Done — anything else?', 'That went through.', 'All set.'];

/** Fill {slot} placeholders; a phrasing that names a slot the draw lacks is a bug in the goal. */
export function fill(phrasing: string, slots: Record<string, string | number>): string {
  return phrasing.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in slots)) throw new Error(`phrasing "${phrasing}" uses {${k}} but the goal gives no such slot`);
    return String(slots[k]);
  });
}

/**
 * Turns before the deciding request: either an earlier, finished call of the same domain (so the router learns
 * that the last turn decides, not the first), or a vague opener and the assistant asking what is needed.
 */
function earlierTurns(intent: Intent, others: Intent[], rng: Rng): ConversationTurn[] {
  const earlier = others.filter((o) => o.tool !== null && o.tool !== intent.tool);
  if (earlier.length > 0 && rng.chance(0.6)) {
    const prior = rng.pick(earlier);
    const id = `call_${prior.id.replace(/\W/g, '').slice(-12)}`;
    return [
      { role: 'user', content: fill(rng.pick(prior.phrasings), prior.slots) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: prior.tool, arguments: JSON.stringify(prior.arguments) } },
        ],
      },
      { role: 'tool', tool_call_id: id, content: '{"ok": true}' },
      { role: 'assistant', content: rng.pick(DONE) },
    ];
  }
  return [
    { role: 'user', content: rng.pick(VAGUE_ASKS) },
    { role: 'assistant', content: rng.pick(READY) },
  ];
}

/**
 * The embedded default teacher: requests come from the goal's phrasings, restyled (style.ts: context, indirect
 * asks, terse commands, abbreviations, typos, dates and amounts written other ways), some as the last turn of a
 * conversation; the answer is the call the intent was drawn with (known correct by construction, then checked
 * by validate). Deterministic given the seed and the intents.
 */
export function templateTeacher(seed: string | number): Teacher {
  return {
    name: 'template',
    async generate(intents: Intent[], range?: { from: number; to: number }): Promise<RequestDraft[]> {
      const byDomain = new Map<string, Intent[]>();
      for (const i of intents) {
        const group = byDomain.get(i.domain) ?? [];
        group.push(i);
        byDomain.set(i.domain, group);
      }
      return (range ? intents.slice(range.from, range.to) : intents).map((intent) => {
        const rng = new Rng(`generate:${seed}:${intent.id}`);
        const request = fill(styleTemplate(rng.pick(intent.phrasings), rng), styleSlots(intent.slots, rng));
        const context = rng.chance(MULTI_TURN_SHARE)
          ? earlierTurns(intent, byDomain.get(intent.domain)!, rng)
          : undefined;
        return { intentId: intent.id, request, teacher: 'template', ...(context ? { context } : {}) };
      });
    },
    async solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]> {
      const byId = new Map(intents.map((i) => [i.id, i]));
      return drafts.map((d) => {
        const intent = byId.get(d.intentId);
        if (!intent) throw new Error(`draft for unknown intent ${d.intentId}`);
        const context = d.context ? { context: d.context } : {};
        if (d.malformed)
          return {
            intentId: d.intentId,
            request: d.request,
            ...context,
            target: { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: '' },
            teacher: 'template',
            malformed: d.malformed,
          };
        const target = intent.tool
          ? { tool: intent.tool, arguments: intent.arguments }
          : { tool: null, verdict: 'abstain' as const, code: 'no_tool', reason: 'no tool in the catalog can do this' };
        return { intentId: d.intentId, request: d.request, ...context, target, teacher: 'template' };
      });
    },
  };
}
