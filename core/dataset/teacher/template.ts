import { Rng } from '../../rng.js';
import type { Intent } from '../types.js';
import { styleSlots, styleTemplate } from './style.js';
import type { Candidate, ConversationTurn, RequestDraft, Teacher } from './types.js';

/** Share of requests that come as the last turn of a conversation. */
const MULTI_TURN_SHARE = 0.15;
/** Share of the other requests (of intents that have clarifying exchanges) that come as the answer to a question. */
const CLARIFY_SHARE = 0.2;
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
        const at = rng.int(0, intent.phrasings.length - 1); // the draw rng.pick makes
        const template = styleTemplate(intent.phrasings[at]!, rng);
        const slots = styleSlots(intent.slots, rng);
        const request = fill(template, slots);
        const context = rng.chance(MULTI_TURN_SHARE)
          ? earlierTurns(intent, byDomain.get(intent.domain)!, rng)
          : undefined;
        const style = intent.styles?.[at];
        const draft = { intentId: intent.id, request, teacher: 'template', ...(style ? { style } : {}) };
        if (context) return { ...draft, context };
        if (intent.dialogues?.length && rng.chance(CLARIFY_SHARE)) {
          // The user asks without one value, the assistant asks for it: the answer is the turn that decides.
          const d = rng.pick(intent.dialogues);
          const opener = fill(styleTemplate(d.opener, rng), slots);
          return {
            ...draft,
            request: fill(d.answer, slots),
            style: 'clarify',
            context: [
              { role: 'user' as const, content: opener },
              { role: 'assistant' as const, content: fill(d.question, slots) },
            ],
          };
        }
        return draft;
      });
    },
    async solve(intents: Intent[], drafts: RequestDraft[]): Promise<Candidate[]> {
      const byId = new Map(intents.map((i) => [i.id, i]));
      return drafts.map((d) => {
        const intent = byId.get(d.intentId);
        if (!intent) throw new Error(`draft for unknown intent ${d.intentId}`);
        const context = { ...(d.context ? { context: d.context } : {}), ...(d.style ? { style: d.style } : {}) };
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
