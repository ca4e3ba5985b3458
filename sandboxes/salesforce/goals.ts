import type { Goal } from '../../core/dataset/types.js';
import { entity, pick } from '../../core/dataset/pick.js';

const D = 'salesforce';
const acct = (id: unknown) => entity(D, 'account', id);
const OPEN = ['Prospecting', 'Qualification', 'Needs Analysis', 'Proposal', 'Negotiation'];
const INDUSTRIES = ['Technology', 'Manufacturing', 'Healthcare', 'Financial Services', 'Retail', 'Energy'];
const CITIES: Array<[string, string, string]> = [
  ['Lisbon', 'Portugal', 'EUR'],
  ['Austin', 'United States', 'USD'],
  ['Leeds', 'United Kingdom', 'GBP'],
  ['Calgary', 'Canada', 'CAD'],
  ['Nagoya', 'Japan', 'JPY'],
];
const COMPANY = [
  'Brightline',
  'Corvid',
  'Halcyon',
  'Keystone',
  'Lumen',
  'Meridian',
  'Northstar',
  'Quantic',
  'Redwood',
  'Solace',
];
const SUFFIX = ['Labs', 'Partners', 'Group', 'Works', 'Systems'];
const SURNAMES = ['Okoro', 'Lindqvist', 'Marchetti', 'Sato', 'Fernandes', 'Novak', 'Brennan', 'Achebe'];

/** Default goal templates for the Salesforce sandbox: one or more per tool, several phrasings each. */
export const salesforceGoals: Goal[] = [
  {
    id: 'sf.count_open_opps',
    tool: 'soql_query',
    phrasings: [
      'How many open opportunities does {account} ({accountId}) have?',
      'Count the opportunities on account {accountId} that are still open.',
      'Number of not-yet-closed deals for {account}, account id {accountId}?',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      return (
        a && {
          arguments: { query: `SELECT COUNT() FROM Opportunity WHERE AccountId = '${a.Id}' AND IsClosed = FALSE` },
          slots: { account: a.Name, accountId: a.Id },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.search',
    tool: 'search_records',
    phrasings: [
      'Find any records mentioning "{term}".',
      'Search Salesforce for {term}.',
      'Look up everything named like {term} across objects.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      const term = a && String(a.Name).split(' ')[0];
      return a && { arguments: { searchTerm: term }, slots: { term: term! }, entities: [acct(a.Id)] };
    },
  },
  {
    id: 'sf.describe',
    tool: 'describe_object',
    phrasings: [
      'What fields does the {object} object have?',
      'Describe the {object} object for me.',
      'List the picklist values and fields on {object}.',
    ],
    draw(_p, rng) {
      const object = rng.pick(['Account', 'Contact', 'Opportunity', 'Case']);
      return { arguments: { objectName: object }, slots: { object }, entities: [entity(D, 'schema', object)] };
    },
  },
  {
    id: 'sf.get_account',
    tool: 'get_record',
    phrasings: [
      'Pull up account {accountId}.',
      'Show me the full record for {account} ({accountId}).',
      'Get the details of account id {accountId}.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      return (
        a && {
          arguments: { objectName: 'Account', recordId: a.Id },
          slots: { account: a.Name, accountId: a.Id },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.related_contacts',
    tool: 'get_related_records',
    phrasings: [
      'Who are the contacts at {account} ({accountId})?',
      'List the contacts linked to account {accountId}.',
      'Show contacts for {account}, id {accountId}.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      return (
        a && {
          arguments: { recordId: a.Id, relationship: 'Contacts' },
          slots: { account: a.Name, accountId: a.Id },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.list_queues',
    tool: 'list_users',
    phrasings: ['Which support queues exist?', 'List the case queues I can route to.', 'Show me all queues.'],
    draw: () => ({ arguments: { role: 'Queue' }, slots: {}, entities: [entity(D, 'directory', 'queues')] }),
  },
  {
    id: 'sf.create_account',
    tool: 'create_account',
    phrasings: [
      'Create a new account "{name}" based in {city}, {country}, billing in {currency}.',
      'Add {name} ({country}) as an account; they pay in {currency}.',
      'Set up an account for {name}, {city}, {country}, currency {currency}.',
    ],
    draw(_p, rng) {
      const [city, country, currency] = rng.pick(CITIES);
      const name = `${rng.pick(COMPANY)} ${rng.pick(SUFFIX)} ${rng.int(2, 999)}`;
      return {
        arguments: { name, billingCity: city, billingCountry: country, currencyIsoCode: currency },
        slots: { name, city, country, currency },
        entities: [entity(D, 'new-account', name)],
      };
    },
  },
  {
    id: 'sf.update_account_industry',
    tool: 'update_account',
    phrasings: [
      "Change {account}'s industry to {industry} (account {accountId}).",
      'Account {accountId} is actually in {industry}; update it.',
      'Set the industry on {account} / {accountId} to {industry}.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      const industry = rng.pick(INDUSTRIES.filter((i) => i !== a?.Industry));
      return (
        a && {
          arguments: { accountId: a.Id, industry },
          slots: { account: a.Name, accountId: a.Id, industry },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.create_contact',
    tool: 'create_contact',
    phrasings: [
      'Add {first} {last} as a contact at {account} ({accountId}).',
      'New contact for account {accountId}: {first} {last}.',
      'Please create a contact named {first} {last} under {account} (id {accountId}).',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      const first = rng.pick(['Ana', 'Bo', 'Chidi', 'Dara', 'Emil']);
      const last = rng.pick(SURNAMES);
      return (
        a && {
          arguments: { accountId: a.Id, firstName: first, lastName: last },
          slots: { first, last, account: a.Name, accountId: a.Id },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.update_contact_title',
    tool: 'update_contact',
    phrasings: [
      "{first} {last}'s title is now {title}; update contact {contactId}.",
      'Change the job title of contact {contactId} to {title}.',
      'Update {first} {last} ({contactId}): title {title}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'contact', rng);
      const title = rng.pick(['VP Finance', 'Head of IT', 'Procurement Manager', 'COO']);
      return (
        c && {
          arguments: { contactId: c.Id, title },
          slots: { first: c.FirstName ?? '', last: c.LastName, contactId: c.Id, title },
          entities: [acct(c.AccountId), entity(D, 'contact', c.Id)],
        }
      );
    },
  },
  {
    id: 'sf.create_opportunity',
    tool: 'create_opportunity',
    phrasings: [
      'Open an opportunity "{name}" for {account} ({accountId}) closing {closeDate}.',
      'New deal on account {accountId}: {name}, expected close {closeDate}.',
      'Create opportunity {name} under {account} (id {accountId}), close date {closeDate}.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      const name = `${rng.pick(['Renewal', 'Expansion', 'Pilot', 'Upsell'])} ${rng.pick(['Q3', 'Q4', 'FY27'])} ${rng.int(100, 999)}`;
      const closeDate = rng.pick(['2026-09-30', '2026-10-31', '2026-12-15', '2027-01-31']);
      return (
        a && {
          arguments: { accountId: a.Id, name, closeDate },
          slots: { name, account: a.Name, accountId: a.Id, closeDate },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.update_opportunity_amount',
    tool: 'update_opportunity',
    phrasings: [
      'Set the amount on opportunity {oppId} to {amount}.',
      'The {opp} deal ({oppId}) is now worth {amount}.',
      'Update opportunity {oppId}: amount {amount}.',
    ],
    draw(p, rng) {
      const o = pick(p, 'opportunity', rng, (r) => !r.IsClosed);
      const amount = rng.int(5, 900) * 1000;
      return (
        o && {
          arguments: { opportunityId: o.Id, amount },
          slots: { opp: o.Name, oppId: o.Id, amount },
          entities: [acct(o.AccountId), entity(D, 'opportunity', o.Id)],
        }
      );
    },
  },
  {
    id: 'sf.advance_stage',
    tool: 'change_opportunity_stage',
    phrasings: [
      'Move opportunity {oppId} to {stage}.',
      'Advance {opp} ({oppId}) to the {stage} stage.',
      'Stage for deal {oppId} should be {stage} now.',
    ],
    draw(p, rng) {
      const o = pick(p, 'opportunity', rng, (r) => !r.IsClosed && r.StageName !== 'Negotiation');
      const stage = o && OPEN[OPEN.indexOf(o.StageName) + 1];
      return o && stage
        ? {
            arguments: { opportunityId: o.Id, stageName: stage },
            slots: { opp: o.Name, oppId: o.Id, stage },
            entities: [acct(o.AccountId), entity(D, 'opportunity', o.Id)],
          }
        : undefined;
    },
  },
  {
    id: 'sf.close_won',
    tool: 'close_opportunity',
    phrasings: [
      'We won {opp}! Close opportunity {oppId} as won.',
      'Mark deal {oppId} closed-won.',
      'Close {oppId} ({opp}) — customer signed.',
    ],
    draw(p, rng) {
      const o = pick(p, 'opportunity', rng, (r) => !r.IsClosed);
      return (
        o && {
          arguments: { opportunityId: o.Id, outcome: 'won' },
          slots: { opp: o.Name, oppId: o.Id },
          entities: [acct(o.AccountId), entity(D, 'opportunity', o.Id)],
        }
      );
    },
  },
  {
    id: 'sf.create_case',
    tool: 'create_case',
    phrasings: [
      'Log a case for {account} ({accountId}): "{subject}".',
      'Open a support case on account {accountId} about {subject}.',
      'Customer {account} (id {accountId}) reports: {subject}. Create a case.',
    ],
    draw(p, rng) {
      const a = pick(p, 'account', rng);
      const subject = rng.pick([
        'Export job fails',
        'Cannot reset MFA',
        'Invoice PDF is blank',
        'Webhook retries exhausted',
      ]);
      return (
        a && {
          arguments: { accountId: a.Id, subject },
          slots: { account: a.Name, accountId: a.Id, subject },
          entities: [acct(a.Id)],
        }
      );
    },
  },
  {
    id: 'sf.set_case_priority',
    tool: 'update_case',
    phrasings: [
      'Bump case {caseNumber} ({caseId}) to {priority} priority.',
      'Set priority {priority} on case {caseId}.',
      'Case {caseId} should be {priority}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'case', rng, (r) => r.Status !== 'Closed');
      const priority = rng.pick(['Low', 'Medium', 'High', 'Critical'].filter((x) => x !== c?.Priority));
      return (
        c && {
          arguments: { caseId: c.Id, priority },
          slots: { caseNumber: c.CaseNumber, caseId: c.Id, priority },
          entities: [acct(c.AccountId), entity(D, 'case', c.Id)],
        }
      );
    },
  },
  {
    id: 'sf.reassign_case',
    tool: 'reassign_case',
    phrasings: [
      'Give case {caseId} to {owner} ({ownerId}).',
      'Reassign case {caseNumber} ({caseId}) to user {ownerId}.',
      'Please hand {caseId} over to {owner}, id {ownerId}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'case', rng, (r) => r.Status !== 'Closed');
      const u = pick(p, 'user', rng, (r) => r.IsActive && String(r.UserRole).startsWith('Support'));
      return (
        c &&
        u && {
          arguments: { caseId: c.Id, ownerId: u.Id },
          slots: { caseId: c.Id, caseNumber: c.CaseNumber, owner: u.Name, ownerId: u.Id },
          entities: [acct(c.AccountId), entity(D, 'case', c.Id)],
        }
      );
    },
  },
  {
    id: 'sf.escalate_case',
    tool: 'escalate_case',
    phrasings: [
      'Escalate case {caseId}: {reason}.',
      'Case {caseNumber} ({caseId}) needs the next tier — {reason}.',
      'Push {caseId} up a tier because {reason}.',
    ],
    draw(p, rng) {
      const c = pick(p, 'case', rng, (r) => r.Status !== 'Closed' && Number(r.Tier) < 3);
      const reason = rng.pick(['customer is down', 'SLA breach imminent', 'needs engineering']);
      return (
        c && {
          arguments: { caseId: c.Id, reason },
          slots: { caseId: c.Id, caseNumber: c.CaseNumber, reason },
          entities: [acct(c.AccountId), entity(D, 'case', c.Id)],
        }
      );
    },
  },
  {
    id: 'sf.delete_case',
    tool: 'delete_record',
    phrasings: [
      'Delete case {caseId}, it was a duplicate.',
      'Permanently remove case record {caseId}.',
      'Case {caseNumber} ({caseId}) was spam — delete it.',
    ],
    draw(p, rng) {
      const c = pick(p, 'case', rng);
      return (
        c && {
          arguments: { objectName: 'Case', recordId: c.Id },
          slots: { caseId: c.Id, caseNumber: c.CaseNumber },
          entities: [acct(c.AccountId), entity(D, 'case', c.Id)],
        }
      );
    },
  },
];
