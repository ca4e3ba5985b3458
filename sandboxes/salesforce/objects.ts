/**
 * The Salesforce objects the sandbox models, described once: the DDL, describe_object, SOQL field checks
 * and input schemas all come from here. Field names follow Salesforce's API names.
 */
export type FieldType =
  | 'id'
  | 'reference'
  | 'string'
  | 'textarea'
  | 'email'
  | 'phone'
  | 'picklist'
  | 'currency'
  | 'double'
  | 'percent'
  | 'int'
  | 'date'
  | 'datetime'
  | 'boolean';

export interface Field {
  type: FieldType;
  label: string;
  /** For references: the object pointed to. */
  to?: 'User' | 'Account' | 'Contact' | 'Opportunity' | 'Case';
  values?: readonly string[];
  /** Required on create. */
  required?: boolean;
  /** Set by the system; never accepted from callers. */
  readOnly?: boolean;
}

export const STAGES = [
  'Prospecting',
  'Qualification',
  'Needs Analysis',
  'Proposal',
  'Negotiation',
  'Closed Won',
  'Closed Lost',
] as const;
export const OPEN_STAGES = STAGES.slice(0, 5);
export const STAGE_PROBABILITY: Record<string, number> = {
  Prospecting: 10,
  Qualification: 20,
  'Needs Analysis': 40,
  Proposal: 60,
  Negotiation: 80,
  'Closed Won': 100,
  'Closed Lost': 0,
};
export const CASE_STATUSES = ['New', 'Working', 'Escalated', 'Closed'] as const;
export const CASE_PRIORITIES = ['Low', 'Medium', 'High', 'Critical'] as const;
export const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD'] as const;
export const INDUSTRIES = [
  'Technology',
  'Manufacturing',
  'Healthcare',
  'Financial Services',
  'Retail',
  'Energy',
  'Education',
  'Media',
  'Transportation',
  'Hospitality',
] as const;
export const ACCOUNT_TYPES = ['Customer', 'Prospect', 'Partner', 'Reseller'] as const;
export const LOSS_REASONS = ['Price', 'Competitor', 'No Budget', 'No Decision', 'Timing', 'Product Fit'] as const;
export const CASE_ORIGINS = ['Email', 'Phone', 'Web', 'Chat'] as const;

/** Policy limits enforced at execution (POLICY_LIMIT_EXCEEDED). */
export const POLICY = { maxDiscountPercent: 25, maxOpportunityAmount: 10_000_000 } as const;

const common = {
  Id: { type: 'id', label: 'Record ID', readOnly: true },
  OwnerId: { type: 'reference', label: 'Owner ID', to: 'User' },
  CreatedDate: { type: 'datetime', label: 'Created Date', readOnly: true },
  LastModifiedDate: { type: 'datetime', label: 'Last Modified Date', readOnly: true },
} as const satisfies Record<string, Field>;

export const OBJECTS = {
  User: {
    prefix: '005',
    fields: {
      Id: common.Id,
      Name: { type: 'string', label: 'Full Name', required: true },
      Email: { type: 'email', label: 'Email' },
      Username: { type: 'string', label: 'Username' },
      UserType: { type: 'picklist', label: 'User Type', values: ['Standard', 'Queue'] },
      UserRole: {
        type: 'picklist',
        label: 'Role',
        values: ['Sales Rep', 'Sales Manager', 'Support Agent', 'Support Engineer', 'Support Manager', 'Queue'],
      },
      IsActive: { type: 'boolean', label: 'Active' },
    },
  },
  Account: {
    prefix: '001',
    fields: {
      Id: common.Id,
      Name: { type: 'string', label: 'Account Name', required: true },
      Type: { type: 'picklist', label: 'Account Type', values: ACCOUNT_TYPES },
      Industry: { type: 'picklist', label: 'Industry', values: INDUSTRIES },
      BillingCity: { type: 'string', label: 'Billing City' },
      BillingCountry: { type: 'string', label: 'Billing Country', required: true },
      Phone: { type: 'phone', label: 'Phone' },
      Website: { type: 'string', label: 'Website' },
      AnnualRevenue: { type: 'currency', label: 'Annual Revenue' },
      NumberOfEmployees: { type: 'int', label: 'Employees' },
      CurrencyIsoCode: { type: 'picklist', label: 'Currency', values: CURRENCIES, required: true },
      OwnerId: common.OwnerId,
      CreatedDate: common.CreatedDate,
      LastModifiedDate: common.LastModifiedDate,
    },
  },
  Contact: {
    prefix: '003',
    fields: {
      Id: common.Id,
      AccountId: { type: 'reference', label: 'Account ID', to: 'Account', required: true },
      FirstName: { type: 'string', label: 'First Name' },
      LastName: { type: 'string', label: 'Last Name', required: true },
      Email: { type: 'email', label: 'Email' },
      Phone: { type: 'phone', label: 'Phone' },
      Title: { type: 'string', label: 'Title' },
      OwnerId: common.OwnerId,
      CreatedDate: common.CreatedDate,
      LastModifiedDate: common.LastModifiedDate,
    },
  },
  Opportunity: {
    prefix: '006',
    fields: {
      Id: common.Id,
      AccountId: { type: 'reference', label: 'Account ID', to: 'Account', required: true },
      Name: { type: 'string', label: 'Opportunity Name', required: true },
      StageName: { type: 'picklist', label: 'Stage', values: STAGES },
      Amount: { type: 'currency', label: 'Amount' },
      CurrencyIsoCode: { type: 'picklist', label: 'Currency', values: CURRENCIES },
      CloseDate: { type: 'date', label: 'Close Date', required: true },
      Probability: { type: 'percent', label: 'Probability (%)', readOnly: true },
      DiscountPercent: { type: 'percent', label: 'Discount (%)' },
      IsClosed: { type: 'boolean', label: 'Closed', readOnly: true },
      IsWon: { type: 'boolean', label: 'Won', readOnly: true },
      LossReason: { type: 'picklist', label: 'Loss Reason', values: LOSS_REASONS },
      NextStep: { type: 'string', label: 'Next Step' },
      OwnerId: common.OwnerId,
      CreatedDate: common.CreatedDate,
      LastModifiedDate: common.LastModifiedDate,
    },
  },
  Case: {
    prefix: '500',
    fields: {
      Id: common.Id,
      CaseNumber: { type: 'string', label: 'Case Number', readOnly: true },
      AccountId: { type: 'reference', label: 'Account ID', to: 'Account', required: true },
      ContactId: { type: 'reference', label: 'Contact ID', to: 'Contact' },
      Subject: { type: 'string', label: 'Subject', required: true },
      Description: { type: 'textarea', label: 'Description' },
      Status: { type: 'picklist', label: 'Status', values: CASE_STATUSES },
      Priority: { type: 'picklist', label: 'Priority', values: CASE_PRIORITIES },
      Origin: { type: 'picklist', label: 'Case Origin', values: CASE_ORIGINS },
      Tier: { type: 'int', label: 'Support Tier', readOnly: true },
      OwnerId: common.OwnerId,
      CreatedDate: common.CreatedDate,
      LastModifiedDate: common.LastModifiedDate,
    },
  },
} as const satisfies Record<string, { prefix: string; fields: Record<string, Field> }>;

export type ObjectName = keyof typeof OBJECTS;
export const OBJECT_NAMES = Object.keys(OBJECTS) as ObjectName[];

export function fieldsOf(object: ObjectName): Record<string, Field> {
  return OBJECTS[object].fields as Record<string, Field>;
}

/** Child relationships, as get_related_records exposes them. */
export const RELATIONSHIPS: Record<string, { from: ObjectName; child: ObjectName; field: string }> = {
  Contacts: { from: 'Account', child: 'Contact', field: 'AccountId' },
  Opportunities: { from: 'Account', child: 'Opportunity', field: 'AccountId' },
  Cases: { from: 'Account', child: 'Case', field: 'AccountId' },
  ContactCases: { from: 'Contact', child: 'Case', field: 'ContactId' },
  OwnedAccounts: { from: 'User', child: 'Account', field: 'OwnerId' },
  OwnedOpportunities: { from: 'User', child: 'Opportunity', field: 'OwnerId' },
  OwnedCases: { from: 'User', child: 'Case', field: 'OwnerId' },
};

const SQL_TYPE: Record<FieldType, string> = {
  id: 'TEXT PRIMARY KEY',
  reference: 'TEXT',
  string: 'TEXT',
  textarea: 'TEXT',
  email: 'TEXT',
  phone: 'TEXT',
  picklist: 'TEXT',
  currency: 'REAL',
  double: 'REAL',
  percent: 'REAL',
  int: 'INTEGER',
  date: 'TEXT',
  datetime: 'TEXT',
  boolean: 'INTEGER',
};

export function ddl(): string {
  const tables = OBJECT_NAMES.map((name) => {
    const cols = Object.entries(fieldsOf(name)).map(([f, def]) => {
      const ref = def.type === 'reference' && def.to ? ` REFERENCES "${def.to}"("Id")` : '';
      const notNull = def.required || f === 'Id' ? ' NOT NULL' : '';
      return `  "${f}" ${SQL_TYPE[def.type]}${notNull}${ref}`;
    });
    return `CREATE TABLE "${name}" (\n${cols.join(',\n')}\n);`;
  });
  const indexes = [
    'CREATE INDEX contact_account ON "Contact"("AccountId");',
    'CREATE INDEX opp_account ON "Opportunity"("AccountId");',
    'CREATE INDEX case_account ON "Case"("AccountId");',
    'CREATE INDEX account_name ON "Account"("Name" COLLATE NOCASE);',
    'CREATE UNIQUE INDEX case_number ON "Case"("CaseNumber");',
  ];
  return [...tables, ...indexes].join('\n');
}

/** An 18-character Salesforce-style id: key prefix + a deterministic serial. */
export function sfId(object: ObjectName, serial: number): string {
  return `${OBJECTS[object].prefix}8d${serial.toString(36).toUpperCase().padStart(10, '0')}QAA`;
}

export function objectOfId(id: string): ObjectName | undefined {
  return OBJECT_NAMES.find((o) => id.startsWith(OBJECTS[o].prefix));
}
