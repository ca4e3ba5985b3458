import type { DataModel, Db } from '../common/db.js';
import { CITIES, companyName, COUNTRY_CURRENCY, personName, slug } from '../common/names.js';
import { addDays, type Rng } from '../common/rng.js';
import {
  ACCOUNT_TYPES,
  CASE_ORIGINS,
  CASE_PRIORITIES,
  ddl,
  INDUSTRIES,
  LOSS_REASONS,
  OPEN_STAGES,
  sfId,
  STAGE_PROBABILITY,
} from './objects.js';

export const VOLUME = { salesUsers: 32, supportUsers: 16, accounts: 400, opportunities: 2600, cases: 1600 } as const;

const SUBJECTS = [
  'Cannot log in to the portal',
  'Invoice amount looks wrong',
  'Integration sync failing',
  'Request for product training',
  'Shipment delayed',
  'API returns 500 errors',
  'Feature request: bulk export',
  'License renewal question',
  'Data import stuck',
  'Password reset not received',
  'Performance degradation in reports',
  'Billing address change',
  'SSO configuration help',
  'Mobile app crashes on start',
  'Missing items in order',
];
const OPP_KINDS = ['Renewal', 'Expansion', 'New Business', 'Upsell', 'Services', 'Pilot'];
const NEXT_STEPS = [
  'Send proposal',
  'Schedule demo',
  'Legal review',
  'Security questionnaire',
  'Pricing call',
  'Executive sponsor meeting',
  null,
];

function datetime(rng: Rng, from: string, to: string): string {
  return `${rng.date(from, to)}T${String(rng.int(8, 18)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:00.000Z`;
}

function generate(db: Db, rng: Rng): void {
  const insert = (table: string, row: Record<string, unknown>) => {
    const cols = Object.keys(row);
    db.prepare(
      `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(',')}) VALUES (${cols.map(() => '?').join(',')})`,
    ).run(...cols.map((c) => row[c]));
  };
  let serial = 1;
  const users: Array<{ id: string; role: string }> = [];
  const addUser = (role: string, type: 'Standard' | 'Queue', name?: string) => {
    const id = sfId('User', serial++);
    const p = personName(rng);
    const full = name ?? `${p.first} ${p.last}`;
    insert('User', {
      Id: id,
      Name: full,
      Email: type === 'Queue' ? `${slug(full)}@queues.example.com` : `${slug(full)}${serial}@example.com`,
      Username: `${slug(full)}${serial}@flywheel.sandbox`,
      UserType: type,
      UserRole: role,
      IsActive: type === 'Queue' || rng.chance(0.94) ? 1 : 0,
    });
    users.push({ id, role });
    return id;
  };
  for (let i = 0; i < VOLUME.salesUsers; i++) addUser(i % 8 === 0 ? 'Sales Manager' : 'Sales Rep', 'Standard');
  for (let i = 0; i < VOLUME.supportUsers; i++)
    addUser(i < 8 ? 'Support Agent' : i < 14 ? 'Support Engineer' : 'Support Manager', 'Standard');
  const tierQueue = [
    addUser('Queue', 'Queue', 'Tier 1 Support'),
    addUser('Queue', 'Queue', 'Tier 2 Support'),
    addUser('Queue', 'Queue', 'Tier 3 Support'),
  ];
  const sales = users.filter((u) => u.role.startsWith('Sales')).map((u) => u.id);
  const support = users.filter((u) => u.role.startsWith('Support')).map((u) => u.id);

  const taken = new Set<string>();
  const accounts: Array<{ id: string; currency: string }> = [];
  const contactsByAccount = new Map<string, string[]>();
  let caseNumber = 1000;
  for (let a = 0; a < VOLUME.accounts; a++) {
    const id = sfId('Account', serial++);
    const [city, country] = rng.pick(CITIES);
    const currency = COUNTRY_CURRENCY[country]!;
    const name = companyName(rng, taken);
    const created = datetime(rng, '2021-01-01', '2025-12-31');
    insert('Account', {
      Id: id,
      Name: name,
      Type: rng.weighted(ACCOUNT_TYPES.map((t, i) => [t, [6, 3, 1, 1][i]!] as const)),
      Industry: rng.pick(INDUSTRIES),
      BillingCity: city,
      BillingCountry: country,
      Phone: `+1 555 ${String(rng.int(100, 999))} ${String(rng.int(1000, 9999))}`,
      Website: `https://www.${slug(name)}.example`,
      AnnualRevenue: rng.money(500_000, 5_000_000_000),
      NumberOfEmployees: rng.int(10, 120_000),
      CurrencyIsoCode: currency,
      OwnerId: rng.pick(sales),
      CreatedDate: created,
      LastModifiedDate: created,
    });
    accounts.push({ id, currency });
    const contacts: string[] = [];
    for (let c = rng.int(1, 5); c > 0; c--) {
      const cid = sfId('Contact', serial++);
      const p = personName(rng);
      insert('Contact', {
        Id: cid,
        AccountId: id,
        FirstName: p.first,
        LastName: p.last,
        Email: `${slug(p.first)}.${slug(p.last)}${serial}@${slug(name)}.example`,
        Phone: `+1 555 ${rng.int(100, 999)} ${rng.int(1000, 9999)}`,
        Title: rng.pick([
          'CFO',
          'CTO',
          'VP Sales',
          'IT Manager',
          'Procurement Lead',
          'Controller',
          'Engineer',
          'Director of Operations',
        ]),
        OwnerId: rng.pick(sales),
        CreatedDate: created,
        LastModifiedDate: created,
      });
      contacts.push(cid);
    }
    contactsByAccount.set(id, contacts);
  }
  for (let o = 0; o < VOLUME.opportunities; o++) {
    const acct = rng.pick(accounts);
    const stage = rng.weighted([
      ...OPEN_STAGES.map((s) => [s, 12] as const),
      ['Closed Won', 22] as const,
      ['Closed Lost', 18] as const,
    ]);
    const closed = stage.startsWith('Closed');
    const created = datetime(rng, '2024-01-01', '2026-05-31');
    const amount = acct.currency === 'JPY' ? Math.round(rng.money(500_000, 300_000_000)) : rng.money(5_000, 2_000_000);
    insert('Opportunity', {
      Id: sfId('Opportunity', serial++),
      AccountId: acct.id,
      Name: `${rng.pick(OPP_KINDS)} ${created.slice(0, 4)}-${String(o).padStart(4, '0')}`,
      StageName: stage,
      Amount: amount,
      CurrencyIsoCode: acct.currency,
      CloseDate: closed ? addDays(created.slice(0, 10), rng.int(10, 200)) : rng.date('2026-06-15', '2027-03-31'),
      Probability: STAGE_PROBABILITY[stage],
      DiscountPercent: rng.chance(0.6) ? rng.int(0, 25) : null,
      IsClosed: closed ? 1 : 0,
      IsWon: stage === 'Closed Won' ? 1 : 0,
      LossReason: stage === 'Closed Lost' ? rng.pick(LOSS_REASONS) : null,
      NextStep: closed ? null : rng.pick(NEXT_STEPS),
      OwnerId: rng.pick(sales),
      CreatedDate: created,
      LastModifiedDate: created,
    });
  }
  for (let c = 0; c < VOLUME.cases; c++) {
    const acct = rng.pick(accounts);
    const status = rng.weighted([
      ['New', 2],
      ['Working', 3],
      ['Escalated', 1],
      ['Closed', 6],
    ] as const);
    const tier = status === 'Escalated' ? rng.int(2, 3) : 1;
    const created = datetime(rng, '2025-01-01', '2026-06-14');
    insert('Case', {
      Id: sfId('Case', serial++),
      CaseNumber: String(caseNumber++).padStart(8, '0'),
      AccountId: acct.id,
      ContactId: rng.chance(0.85) ? rng.pick(contactsByAccount.get(acct.id)!) : null,
      Subject: rng.pick(SUBJECTS),
      Description: `Reported via ${rng.pick(CASE_ORIGINS).toLowerCase()}. Customer impact: ${rng.pick(['low', 'moderate', 'high'])}.`,
      Status: status,
      Priority: rng.weighted(CASE_PRIORITIES.map((p, i) => [p, [3, 5, 2, 1][i]!] as const)),
      Origin: rng.pick(CASE_ORIGINS),
      Tier: tier,
      OwnerId: status === 'Escalated' ? tierQueue[tier - 1] : status === 'New' ? tierQueue[0] : rng.pick(support),
      CreatedDate: created,
      LastModifiedDate: created,
    });
  }
}

export const salesforceModel: DataModel = { name: 'salesforce', dataVersion: '1', ddl: ddl(), generate };
