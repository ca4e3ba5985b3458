import { fail } from '../common/errors.js';
import { date, enumOf, int, money, num, object, str } from '../common/schema.js';
import type { SandboxTool, ToolContext } from '../common/server.js';
import {
  checkAmountPolicy,
  checkDiscountPolicy,
  getRecord,
  ID_PATTERN,
  nextId,
  present,
  requireOwner,
  stamp,
  toFields,
} from './helpers.js';
import {
  ACCOUNT_TYPES,
  CASE_ORIGINS,
  CASE_PRIORITIES,
  CURRENCIES,
  INDUSTRIES,
  LOSS_REASONS,
  OPEN_STAGES,
  STAGE_PROBABILITY,
  STAGES,
  type ObjectName,
} from './objects.js';

const id = (what: string) => str(`${what} (15 or 18 character Salesforce id)`, { pattern: ID_PATTERN });
const text = (what: string, max = 255) => str(what, { minLength: 1, maxLength: max });
const discount = num('Discount in percent (policy maximum 25)', { minimum: 0, maximum: 100 });

const ACCOUNT_FIELDS = {
  name: 'Name',
  type: 'Type',
  industry: 'Industry',
  billingCity: 'BillingCity',
  billingCountry: 'BillingCountry',
  phone: 'Phone',
  website: 'Website',
  annualRevenue: 'AnnualRevenue',
  numberOfEmployees: 'NumberOfEmployees',
  ownerId: 'OwnerId',
};
const accountProps = {
  name: text('Account name'),
  type: enumOf(ACCOUNT_TYPES, 'Account type'),
  industry: enumOf(INDUSTRIES, 'Industry'),
  billingCity: text('Billing city', 80),
  billingCountry: text('Billing country', 80),
  phone: text('Phone', 40),
  website: text('Website URL', 255),
  annualRevenue: money('Annual revenue in the account currency'),
  numberOfEmployees: int('Number of employees', { minimum: 0, maximum: 10_000_000 }),
  ownerId: id('Owning user id'),
};
const CONTACT_FIELDS = {
  firstName: 'FirstName',
  lastName: 'LastName',
  email: 'Email',
  phone: 'Phone',
  title: 'Title',
  ownerId: 'OwnerId',
};
const contactProps = {
  firstName: text('First name', 40),
  lastName: text('Last name', 80),
  email: str('Email address', { format: 'email', maxLength: 80 }),
  phone: text('Phone', 40),
  title: text('Job title', 128),
  ownerId: id('Owning user id'),
};
const OPP_FIELDS = {
  name: 'Name',
  amount: 'Amount',
  closeDate: 'CloseDate',
  discountPercent: 'DiscountPercent',
  nextStep: 'NextStep',
  ownerId: 'OwnerId',
};
const oppProps = {
  name: text('Opportunity name', 120),
  amount: money('Amount in the account currency'),
  closeDate: date('Expected close date (YYYY-MM-DD)'),
  discountPercent: discount,
  nextStep: text('Next step', 255),
  ownerId: id('Owning user id'),
};

function touch(fields: Record<string, unknown>, today: string): Record<string, unknown> {
  return { ...fields, LastModifiedDate: stamp(today) };
}

function checkOwner(w: ToolContext['w'], fields: Record<string, unknown>): void {
  if (typeof fields.OwnerId === 'string') requireOwner(w, fields.OwnerId);
}

function createRecord(object: ObjectName, fields: Record<string, unknown>, ctx: ToolContext): Record<string, unknown> {
  const row = {
    Id: nextId(ctx.db, object),
    ...fields,
    CreatedDate: stamp(ctx.today),
    LastModifiedDate: stamp(ctx.today),
  };
  ctx.w.insert(object, row);
  return present(object, ctx.w.get(object, 'Id', row.Id)!);
}

const TIER_QUEUES = ['Tier 1 Support', 'Tier 2 Support', 'Tier 3 Support'];
const CASE_TRANSITIONS: Record<string, string[]> = {
  New: ['Working', 'Closed'],
  Working: ['Closed'],
  Escalated: ['Working', 'Closed'],
  Closed: [],
};

function openCase(ctx: ToolContext, caseId: string): Record<string, unknown> {
  const c = getRecord(ctx.w, 'Case', caseId);
  if (c.Status === 'Closed')
    fail('INVALID_STATUS_TRANSITION', `case ${c.CaseNumber} is Closed`, { caseId, status: c.Status });
  return c;
}

function openOpportunity(ctx: ToolContext, opportunityId: string): Record<string, unknown> {
  const o = getRecord(ctx.w, 'Opportunity', opportunityId);
  if (o.IsClosed)
    fail('INVALID_STATUS_TRANSITION', `opportunity ${opportunityId} is already ${o.StageName}`, {
      opportunityId,
      stageName: o.StageName,
    });
  return o;
}

export const writeTools: SandboxTool[] = [
  {
    name: 'create_account',
    title: 'Create an account',
    description:
      'Create an Account. Name + billing country must be unique (DUPLICATE_RECORD); the currency is fixed at creation.',
    inputSchema: object({ ...accountProps, currencyIsoCode: enumOf(CURRENCIES, 'Account currency') }, [
      'name',
      'billingCountry',
      'currencyIsoCode',
    ]),
    scopes: ['sf.account.write'],
    kind: 'write',
    run(args: Record<string, unknown>, ctx) {
      const fields = { ...toFields(args, ACCOUNT_FIELDS), CurrencyIsoCode: args.currencyIsoCode };
      const dup = ctx.db
        .prepare(`SELECT "Id" FROM "Account" WHERE "Name" = ? COLLATE NOCASE AND "BillingCountry" = ? COLLATE NOCASE`)
        .get(args.name, args.billingCountry) as { Id: string } | undefined;
      if (dup)
        fail(
          'DUPLICATE_RECORD',
          `an account named ${JSON.stringify(args.name)} already exists in ${String(args.billingCountry)}`,
          { existingId: dup.Id },
        );
      checkOwner(ctx.w, fields);
      return createRecord('Account', fields, ctx);
    },
  },
  {
    name: 'update_account',
    title: 'Update an account',
    description:
      'Update fields of an existing Account (name, type, industry, billing address, phone, website, revenue, employees, owner).',
    inputSchema: object({ accountId: id('Account id'), ...accountProps }, ['accountId'], { minProperties: 2 }),
    scopes: ['sf.account.write'],
    kind: 'write',
    idempotent: true,
    run(args: Record<string, unknown>, ctx) {
      getRecord(ctx.w, 'Account', args.accountId as string);
      const fields = toFields(args, ACCOUNT_FIELDS);
      checkOwner(ctx.w, fields);
      return present('Account', ctx.w.update('Account', 'Id', args.accountId, touch(fields, ctx.today)));
    },
  },
  {
    name: 'create_contact',
    title: 'Create a contact',
    description: 'Create a Contact on an Account. Email must be unique across contacts (DUPLICATE_RECORD).',
    inputSchema: object({ accountId: id('Account id'), ...contactProps }, ['accountId', 'lastName']),
    scopes: ['sf.contact.write'],
    kind: 'write',
    run(args: Record<string, unknown>, ctx) {
      getRecord(ctx.w, 'Account', args.accountId as string);
      if (args.email) {
        const dup = ctx.db.prepare(`SELECT "Id" FROM "Contact" WHERE "Email" = ? COLLATE NOCASE`).get(args.email) as
          { Id: string } | undefined;
        if (dup)
          fail('DUPLICATE_RECORD', `a contact with email ${String(args.email)} already exists`, { existingId: dup.Id });
      }
      const fields = { AccountId: args.accountId, ...toFields(args, CONTACT_FIELDS) };
      checkOwner(ctx.w, fields);
      return createRecord('Contact', fields, ctx);
    },
  },
  {
    name: 'update_contact',
    title: 'Update a contact',
    description: 'Update fields of an existing Contact (name, email, phone, title, owner).',
    inputSchema: object({ contactId: id('Contact id'), ...contactProps }, ['contactId'], { minProperties: 2 }),
    scopes: ['sf.contact.write'],
    kind: 'write',
    idempotent: true,
    run(args: Record<string, unknown>, ctx) {
      getRecord(ctx.w, 'Contact', args.contactId as string);
      if (args.email) {
        const dup = ctx.db
          .prepare(`SELECT "Id" FROM "Contact" WHERE "Email" = ? COLLATE NOCASE AND "Id" != ?`)
          .get(args.email, args.contactId) as { Id: string } | undefined;
        if (dup)
          fail('DUPLICATE_RECORD', `a contact with email ${String(args.email)} already exists`, { existingId: dup.Id });
      }
      const fields = toFields(args, CONTACT_FIELDS);
      checkOwner(ctx.w, fields);
      return present('Contact', ctx.w.update('Contact', 'Id', args.contactId, touch(fields, ctx.today)));
    },
  },
  {
    name: 'create_opportunity',
    title: 'Create an opportunity',
    description:
      "Create an Opportunity on an Account in an open stage (default Prospecting). Its currency must be the account's (CURRENCY_MISMATCH); discount and amount are limited by policy.",
    inputSchema: object(
      {
        accountId: id('Account id'),
        ...oppProps,
        stageName: enumOf(OPEN_STAGES, 'Initial stage (default Prospecting)'),
        currencyIsoCode: enumOf(CURRENCIES, "Currency (default: the account's)"),
      },
      ['accountId', 'name', 'closeDate'],
    ),
    scopes: ['sf.opportunity.write'],
    kind: 'write',
    run(args: Record<string, unknown>, ctx) {
      const account = getRecord(ctx.w, 'Account', args.accountId as string);
      const currency = (args.currencyIsoCode as string | undefined) ?? (account.CurrencyIsoCode as string);
      if (currency !== account.CurrencyIsoCode)
        fail(
          'CURRENCY_MISMATCH',
          `account ${String(account.Name)} trades in ${String(account.CurrencyIsoCode)}, not ${currency}`,
          { accountCurrency: account.CurrencyIsoCode, currency },
        );
      checkAmountPolicy(args.amount as number | undefined, currency);
      checkDiscountPolicy(args.discountPercent as number | undefined);
      const dup = ctx.db
        .prepare(`SELECT "Id" FROM "Opportunity" WHERE "AccountId" = ? AND "Name" = ? COLLATE NOCASE`)
        .get(args.accountId, args.name) as { Id: string } | undefined;
      if (dup)
        fail('DUPLICATE_RECORD', `account already has an opportunity named ${JSON.stringify(args.name)}`, {
          existingId: dup.Id,
        });
      const stage = (args.stageName as string | undefined) ?? 'Prospecting';
      const fields = {
        AccountId: args.accountId,
        ...toFields(args, OPP_FIELDS),
        StageName: stage,
        Probability: STAGE_PROBABILITY[stage],
        CurrencyIsoCode: currency,
        IsClosed: 0,
        IsWon: 0,
      };
      checkOwner(ctx.w, fields);
      return createRecord('Opportunity', fields, ctx);
    },
  },
  {
    name: 'update_opportunity',
    title: 'Update an opportunity',
    description:
      'Update fields of an open Opportunity (name, amount, close date, discount, next step, owner). Stage changes go through change_opportunity_stage or close_opportunity.',
    inputSchema: object({ opportunityId: id('Opportunity id'), ...oppProps }, ['opportunityId'], { minProperties: 2 }),
    scopes: ['sf.opportunity.write'],
    kind: 'write',
    idempotent: true,
    run(args: Record<string, unknown>, ctx) {
      const opp = openOpportunity(ctx, args.opportunityId as string);
      checkAmountPolicy(args.amount as number | undefined, opp.CurrencyIsoCode as string);
      checkDiscountPolicy(args.discountPercent as number | undefined);
      const fields = toFields(args, OPP_FIELDS);
      checkOwner(ctx.w, fields);
      return present('Opportunity', ctx.w.update('Opportunity', 'Id', args.opportunityId, touch(fields, ctx.today)));
    },
  },
  {
    name: 'change_opportunity_stage',
    title: 'Change opportunity stage',
    description:
      'Move an open Opportunity to another open stage: forward any number of stages, or back one. Closing uses close_opportunity.',
    inputSchema: object({ opportunityId: id('Opportunity id'), stageName: enumOf(STAGES, 'Target stage') }, [
      'opportunityId',
      'stageName',
    ]),
    scopes: ['sf.opportunity.write'],
    kind: 'write',
    idempotent: true,
    run({ opportunityId, stageName }: { opportunityId: string; stageName: string }, ctx) {
      const opp = openOpportunity(ctx, opportunityId);
      if (stageName.startsWith('Closed'))
        fail('INVALID_STATUS_TRANSITION', `use close_opportunity to move an opportunity to ${stageName}`, {
          from: opp.StageName,
          to: stageName,
        });
      const from = OPEN_STAGES.indexOf(opp.StageName as (typeof OPEN_STAGES)[number]);
      const to = OPEN_STAGES.indexOf(stageName as (typeof OPEN_STAGES)[number]);
      if (to < from - 1)
        fail(
          'INVALID_STATUS_TRANSITION',
          `an opportunity can move back only one stage: ${String(opp.StageName)} -> ${stageName}`,
          { from: opp.StageName, to: stageName },
        );
      return present(
        'Opportunity',
        ctx.w.update(
          'Opportunity',
          'Id',
          opportunityId,
          touch({ StageName: stageName, Probability: STAGE_PROBABILITY[stageName] }, ctx.today),
        ),
      );
    },
  },
  {
    name: 'close_opportunity',
    title: 'Close an opportunity as won or lost',
    description: 'Close an open Opportunity as won or lost. Lost requires a lossReason (REQUIRED_FIELD_MISSING).',
    inputSchema: object(
      {
        opportunityId: id('Opportunity id'),
        outcome: enumOf(['won', 'lost'], 'Outcome'),
        lossReason: enumOf(LOSS_REASONS, 'Why it was lost (required when lost)'),
      },
      ['opportunityId', 'outcome'],
    ),
    scopes: ['sf.opportunity.close'],
    kind: 'write',
    run(
      { opportunityId, outcome, lossReason }: { opportunityId: string; outcome: 'won' | 'lost'; lossReason?: string },
      ctx,
    ) {
      openOpportunity(ctx, opportunityId);
      if (outcome === 'lost' && !lossReason)
        fail('REQUIRED_FIELD_MISSING', 'lossReason is required to close an opportunity as lost', {
          field: 'lossReason',
        });
      if (outcome === 'won' && lossReason)
        fail('INVALID_ARGUMENTS', 'lossReason applies only to lost opportunities', { field: 'lossReason' });
      const stage = outcome === 'won' ? 'Closed Won' : 'Closed Lost';
      return present(
        'Opportunity',
        ctx.w.update(
          'Opportunity',
          'Id',
          opportunityId,
          touch(
            {
              StageName: stage,
              Probability: STAGE_PROBABILITY[stage],
              IsClosed: 1,
              IsWon: outcome === 'won' ? 1 : 0,
              LossReason: lossReason ?? null,
              CloseDate: ctx.today,
            },
            ctx.today,
          ),
        ),
      );
    },
  },
  {
    name: 'create_case',
    title: 'Open a support case',
    description:
      'Open a Case for an Account, optionally for one of its Contacts. New cases start in the Tier 1 Support queue.',
    inputSchema: object(
      {
        accountId: id('Account id'),
        contactId: id('Contact id (must belong to the account)'),
        subject: text('Subject'),
        description: text('Description', 32_000),
        priority: enumOf(CASE_PRIORITIES, 'Priority (default Medium)'),
        origin: enumOf(CASE_ORIGINS, 'How the case came in'),
      },
      ['accountId', 'subject'],
    ),
    scopes: ['sf.case.write'],
    kind: 'write',
    run(args: Record<string, string | undefined>, ctx) {
      getRecord(ctx.w, 'Account', args.accountId!);
      if (args.contactId) {
        const contact = getRecord(ctx.w, 'Contact', args.contactId);
        if (contact.AccountId !== args.accountId)
          fail('NOT_FOUND', `contact ${args.contactId} does not belong to account ${args.accountId}`, {
            contactId: args.contactId,
            accountId: args.accountId,
          });
      }
      const queue = ctx.db
        .prepare(`SELECT "Id" FROM "User" WHERE "Name" = ? AND "UserType" = 'Queue'`)
        .get(TIER_QUEUES[0]) as { Id: string };
      const last = ctx.db.prepare(`SELECT MAX("CaseNumber") AS n FROM "Case"`).get() as { n: string | null };
      return createRecord(
        'Case',
        {
          CaseNumber: String(Number(last.n ?? '999') + 1).padStart(8, '0'),
          AccountId: args.accountId,
          ContactId: args.contactId ?? null,
          Subject: args.subject,
          Description: args.description ?? null,
          Status: 'New',
          Priority: args.priority ?? 'Medium',
          Origin: args.origin ?? null,
          Tier: 1,
          OwnerId: queue.Id,
        },
        ctx,
      );
    },
  },
  {
    name: 'update_case',
    title: 'Update a support case',
    description:
      'Update an open Case: subject, description, priority, or status (New -> Working|Closed, Working -> Closed, Escalated -> Working|Closed). Escalation uses escalate_case; Closed is final.',
    inputSchema: object(
      {
        caseId: id('Case id'),
        subject: text('Subject'),
        description: text('Description', 32_000),
        priority: enumOf(CASE_PRIORITIES, 'Priority'),
        status: enumOf(['New', 'Working', 'Escalated', 'Closed'], 'New status'),
      },
      ['caseId'],
      { minProperties: 2 },
    ),
    scopes: ['sf.case.write'],
    kind: 'write',
    idempotent: true,
    run(args: Record<string, string | undefined>, ctx) {
      const c = openCase(ctx, args.caseId!);
      if (args.status && args.status !== c.Status) {
        if (args.status === 'Escalated')
          fail('INVALID_STATUS_TRANSITION', 'use escalate_case to escalate a case', {
            from: c.Status,
            to: args.status,
          });
        if (!CASE_TRANSITIONS[c.Status as string]!.includes(args.status))
          fail('INVALID_STATUS_TRANSITION', `case status cannot go from ${String(c.Status)} to ${args.status}`, {
            from: c.Status,
            to: args.status,
          });
      }
      const fields = toFields(args, {
        subject: 'Subject',
        description: 'Description',
        priority: 'Priority',
        status: 'Status',
      });
      return present('Case', ctx.w.update('Case', 'Id', args.caseId, touch(fields, ctx.today)));
    },
  },
  {
    name: 'reassign_case',
    title: 'Reassign a support case',
    description: 'Give an open Case to another active user or queue.',
    inputSchema: object({ caseId: id('Case id'), ownerId: id('New owner: user or queue id') }, ['caseId', 'ownerId']),
    scopes: ['sf.case.write'],
    kind: 'write',
    idempotent: true,
    run({ caseId, ownerId }: { caseId: string; ownerId: string }, ctx) {
      openCase(ctx, caseId);
      requireOwner(ctx.w, ownerId, true);
      return present('Case', ctx.w.update('Case', 'Id', caseId, touch({ OwnerId: ownerId }, ctx.today)));
    },
  },
  {
    name: 'escalate_case',
    title: 'Escalate a support case',
    description:
      'Escalate an open Case one support tier up (1 -> 2 -> 3): status Escalated, owner the next tier queue. Tier 3 is the top.',
    inputSchema: object({ caseId: id('Case id'), reason: text('Why it is escalated', 1000) }, ['caseId', 'reason']),
    scopes: ['sf.case.escalate'],
    kind: 'write',
    run({ caseId, reason }: { caseId: string; reason: string }, ctx) {
      const c = openCase(ctx, caseId);
      const tier = Number(c.Tier);
      if (tier >= 3) fail('INVALID_STATUS_TRANSITION', `case ${String(c.CaseNumber)} is already at tier 3`, { tier });
      const queue = ctx.db
        .prepare(`SELECT "Id" FROM "User" WHERE "Name" = ? AND "UserType" = 'Queue'`)
        .get(TIER_QUEUES[tier]) as { Id: string };
      const description =
        `${String(c.Description ?? '')}\n[${ctx.today}] Escalated to tier ${tier + 1}: ${reason}`.trim();
      return present(
        'Case',
        ctx.w.update(
          'Case',
          'Id',
          caseId,
          touch({ Status: 'Escalated', Tier: tier + 1, OwnerId: queue.Id, Description: description }, ctx.today),
        ),
      );
    },
  },
  {
    name: 'delete_record',
    title: 'Delete a record',
    description:
      'Permanently delete an Account, Contact, Opportunity or Case. An account with open opportunities or cases cannot be deleted (DEPENDENT_RECORDS_EXIST); its contacts and closed records go with it.',
    inputSchema: object(
      { objectName: enumOf(['Account', 'Contact', 'Opportunity', 'Case'], 'Object'), recordId: id('Record id') },
      ['objectName', 'recordId'],
    ),
    scopes: ['sf.admin'],
    kind: 'destructive',
    idempotent: false,
    run({ objectName, recordId }: { objectName: ObjectName; recordId: string }, ctx) {
      getRecord(ctx.w, objectName, recordId);
      const ids = (sql: string) => (ctx.db.prepare(sql).all(recordId) as Array<{ Id: string }>).map((r) => r.Id);
      if (objectName === 'Account') {
        const openOpps = ids(`SELECT "Id" FROM "Opportunity" WHERE "AccountId" = ? AND "IsClosed" = 0`);
        const openCases = ids(`SELECT "Id" FROM "Case" WHERE "AccountId" = ? AND "Status" != 'Closed'`);
        if (openOpps.length || openCases.length)
          fail(
            'DEPENDENT_RECORDS_EXIST',
            `account has ${openOpps.length} open opportunities and ${openCases.length} open cases`,
            { openOpportunities: openOpps.length, openCases: openCases.length },
          );
        for (const id of ids(`SELECT "Id" FROM "Case" WHERE "AccountId" = ?`)) ctx.w.delete('Case', 'Id', id);
        for (const id of ids(`SELECT "Id" FROM "Opportunity" WHERE "AccountId" = ?`))
          ctx.w.delete('Opportunity', 'Id', id);
        for (const id of ids(`SELECT "Id" FROM "Contact" WHERE "AccountId" = ?`)) ctx.w.delete('Contact', 'Id', id);
      }
      if (objectName === 'Contact')
        for (const id of ids(`SELECT "Id" FROM "Case" WHERE "ContactId" = ?`))
          ctx.w.update('Case', 'Id', id, { ContactId: null });
      ctx.w.delete(objectName, 'Id', recordId);
      return { deleted: true, objectName, recordId };
    },
  },
];
