import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATORS } from '../../core/dataset/corrupt.js';
import { renderRow } from '../../core/dataset/render.js';
import { candidateRow } from '../../core/dataset/rows.js';
import { styleSlots, styleTemplate } from '../../core/dataset/teacher/style.js';
import { templateTeacher } from '../../core/dataset/teacher/template.js';
import type { Intent } from '../../core/dataset/types.js';
import type { CatalogTool } from '../../core/catalog/types.js';
import { Rng } from '../../core/rng.js';

const placeholders = (t: string) => (t.match(/\{\w+\}/g) ?? []).sort();

function intent(i: number, tool: string | null, domain = 'erp'): Intent {
  return {
    id: `intent-${i}`,
    domain,
    persona: { name: 'clerk', domain, scopes: ['ar.read', 'ar.write'] },
    goal: `goal-${tool}`,
    tool,
    arguments: tool ? { invoiceId: 1000 + i, asOfDate: '2026-06-30', amount: 12500 } : {},
    slots: tool ? { invoiceId: 1000 + i, asOfDate: '2026-06-30', amount: 12500 } : {},
    entities: [`erp:invoice:${1000 + i}`],
    phrasings: tool
      ? [
          'Apply {amount} to invoice {invoiceId} as of {asOfDate}.',
          'Invoice {invoiceId}: record a payment of {amount} dated {asOfDate}',
        ]
      : ['Book me a flight to Oslo.'],
  };
}

describe('template teacher: surface forms', () => {
  it("restyles only the template's own words: every {slot} survives, so values stay copyable", () => {
    const templates = [
      'Apply {amount} to invoice {invoiceId} as of {asOfDate}.',
      'Show the account {name} please',
      '{name}: close the period {period}',
    ];
    for (let seed = 0; seed < 300; seed++) {
      for (const t of templates)
        assert.deepEqual(placeholders(styleTemplate(t, new Rng(`s${seed}`))), placeholders(t), `seed ${seed}: ${t}`);
    }
  });

  it('draws many surface forms per goal: context, indirect asks, terse commands, abbreviations, typos, politeness', () => {
    const forms = new Set<string>();
    const seen = { indirect: 0, context: 0, abbreviated: 0, terse: 0 };
    for (let seed = 0; seed < 400; seed++) {
      const t = styleTemplate('Apply {amount} to the invoice {invoiceId} please.', new Rng(`f${seed}`));
      forms.add(t);
      if (
        /^(Could you|Can you|I need you to|I'd like you to|Would you please|Can I get you to|I was hoping you could|Mind helping me) /.test(
          t,
        )
      )
        seen.indirect++;
      if (
        /(audit prep|month-end|ticket|meeting|customer|email|manager|cleanup|team sync|bug you|time-sensitive|conversation)/i.test(
          t,
        )
      )
        seen.context++;
      if (/\b(inv|pls)\b/.test(t)) seen.abbreviated++;
      if (/^apply \{amount\} to invoice/.test(t)) seen.terse++;
    }
    assert.ok(forms.size > 60, `${forms.size} distinct forms of one template over 400 draws`);
    for (const [k, n] of Object.entries(seen)) assert.ok(n >= 10, `${k}: ${n} of 400`);
  });

  it('writes some dates and amounts other ways, never ids', () => {
    const dates = new Set<string>();
    const amounts = new Set<string | number>();
    for (let seed = 0; seed < 200; seed++) {
      const s = styleSlots({ asOfDate: '2026-06-30', amount: 12500, invoiceId: 10234 }, new Rng(`d${seed}`));
      dates.add(String(s.asOfDate));
      amounts.add(s.amount!);
      assert.equal(s.invoiceId, 10234, 'an id is copied as it is');
      if (s.asOfDate !== '2026-06-30')
        assert.equal(
          new Date(`${s.asOfDate} UTC`).toISOString().slice(0, 10),
          '2026-06-30',
          `${s.asOfDate} is the same day`,
        );
    }
    assert.ok(dates.has('2026-06-30') && dates.size >= 4, [...dates].join(' · '));
    assert.ok(amounts.has(12500) && amounts.has('12,500'), [...amounts].join(' · '));
  });
});

describe('template teacher: conversations', () => {
  const intents = Array.from({ length: 200 }, (_, i) =>
    intent(i, i % 10 === 9 ? null : i % 2 ? 'apply_receipt' : 'get_invoice'),
  );

  it('about 15% of requests are the last turn of a conversation, whose earlier turns are finished', async () => {
    const drafts = await templateTeacher(3).generate(intents);
    const multi = drafts.filter((d) => d.context);
    assert.ok(multi.length > 15 && multi.length < 50, `${multi.length} of 200`);
    for (const d of multi) {
      const roles = d.context!.map((m) => m.role).join(',');
      assert.ok(roles === 'user,assistant,tool,assistant' || roles === 'user,assistant', roles);
      const call = d.context!.find((m) => m.tool_calls);
      if (call) {
        const name = (call.tool_calls![0] as { function: { name: string } }).function.name;
        assert.notEqual(
          name,
          intents.find((i) => i.id === d.intentId)!.tool,
          'the earlier call is another tool: the last turn decides',
        );
      }
    }
    assert.ok(multi.some((d) => d.context!.length === 4) && multi.some((d) => d.context!.length === 2), 'both kinds');
  });

  it('a conversation reaches the rendered prompt, the request as its last user turn, and a negative rewrites that turn', async () => {
    const teacher = templateTeacher(3);
    const drafts = await teacher.generate(intents);
    const candidates = await teacher.solve(intents, drafts);
    const c = candidates.find((x) => x.context && x.target.tool === 'get_invoice')!;
    const tools: CatalogTool[] = ['get_invoice', 'apply_receipt'].map(
      (name) =>
        ({
          id: `erp/${name}`,
          server: 'erp',
          name,
          description: name,
          inputSchema: { type: 'object', properties: { invoiceId: { type: 'integer' } } },
          scopes: [],
        }) as unknown as CatalogTool,
    );
    const row = candidateRow(
      intents.find((i) => i.id === c.intentId)!,
      c,
      tools,
      2,
      1,
    );
    assert.equal(row.messages!.at(-1)!.content, row.request);
    const rendered = renderRow(row, new Map(tools.map((t) => [t.id, t])));
    assert.deepEqual(
      rendered.prompt.slice(1).map((m) => m.role),
      [...c.context!.map((m) => m.role), 'user'],
    );
    const injection = OPERATORS.find((o) => o.name === 'prompt_injection')!;
    const negative = injection.apply(row as never, { rng: new Rng('x') } as never);
    assert.ok(negative, 'the injection applies to this row');
    assert.notEqual(negative.request, row.request);
    assert.equal(negative.messages!.at(-1)!.content, negative.request, 'the last user turn carries the injected text');
  });
});
