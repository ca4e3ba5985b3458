import type { DomainPack } from '../../core/dataset/packs.js';
import type { PackProbe } from '../../core/probe/pack-probes.js';
import { salesforceGoals } from './goals.js';

const soql = (pool: string, query: string): PackProbe => ({
  pool,
  tool: 'soql_query',
  args: { query },
  rows: (r) => r.records.map(({ attributes: _a, ...rest }: Record<string, unknown>) => rest),
});

/** The Salesforce sandbox's domain pack: goals for every tool, sales and support personas, near-domain asks. */
export const salesforcePack: DomainPack = {
  server: 'salesforce-sandbox',
  goals: salesforceGoals,
  // Scopes mirror the tools' _meta.scopes.
  personas: [
    { name: 'sales-rep', scopes: ['sf.read', 'sf.account.write', 'sf.contact.write', 'sf.opportunity.write'] },
    {
      name: 'sales-manager',
      scopes: ['sf.read', 'sf.account.write', 'sf.contact.write', 'sf.opportunity.write', 'sf.opportunity.close'],
    },
    { name: 'support-agent', scopes: ['sf.read', 'sf.case.write'] },
    { name: 'support-lead', scopes: ['sf.read', 'sf.case.write', 'sf.case.escalate'] },
    {
      name: 'sf-admin',
      scopes: [
        'sf.read',
        'sf.account.write',
        'sf.contact.write',
        'sf.opportunity.write',
        'sf.opportunity.close',
        'sf.case.write',
        'sf.case.escalate',
        'sf.admin',
      ],
    },
  ],
  unsatisfiable: [
    'Email the customer a refund receipt for their last order.',
    'Schedule a meeting with the account owner next Tuesday at 10.',
    'Translate the latest case description into French.',
    'Send a Slack message to the sales channel about this deal.',
    'Print the quarterly pipeline report as a PDF.',
    'Call the contact and leave a voicemail.',
    'Merge these two duplicate accounts into one.',
    'Forecast next quarter revenue with a machine learning model.',
  ],
  probes: (n) => [
    soql(
      'account',
      `SELECT Id, Name, Type, Industry, BillingCountry, CurrencyIsoCode, OwnerId FROM Account ORDER BY Id LIMIT ${n}`,
    ),
    soql('contact', `SELECT Id, FirstName, LastName, Email, AccountId FROM Contact ORDER BY Id LIMIT ${n}`),
    soql(
      'opportunity',
      `SELECT Id, Name, AccountId, StageName, Amount, CurrencyIsoCode, CloseDate, DiscountPercent, IsClosed FROM Opportunity ORDER BY Id LIMIT ${n}`,
    ),
    soql(
      'case',
      `SELECT Id, CaseNumber, AccountId, ContactId, Subject, Status, Priority, Tier FROM Case ORDER BY Id LIMIT ${n}`,
    ),
    { pool: 'user', tool: 'list_users', args: {}, rows: (r) => r.records },
  ],
};
