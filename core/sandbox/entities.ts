import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * Real entity values (ids, names, amounts, statuses) sampled from a sandbox through its own read tools,
 * for the dataset stage to fill request slots with. Pools are keyed by entity type.
 */
export type EntityPools = Record<string, Array<Record<string, unknown>>>;

interface Probe {
  pool: string;
  tool: string;
  args: Record<string, unknown>;
  /** Where the rows are in structuredContent.result. */
  rows: (result: any) => Array<Record<string, unknown>>;
}

const soql = (pool: string, query: string): Probe => ({ pool, tool: 'soql_query', args: { query }, rows: (r) => r.records.map(({ attributes: _a, ...rest }: Record<string, unknown>) => rest) });

/** Read-tool calls that list each entity type of a sandbox, by sandbox server name. */
export const PROBES: Record<string, (limit: number) => Probe[]> = {
  'salesforce-sandbox': (n) => [
    soql('account', `SELECT Id, Name, Type, Industry, BillingCountry, CurrencyIsoCode, OwnerId FROM Account ORDER BY Id LIMIT ${n}`),
    soql('contact', `SELECT Id, FirstName, LastName, Email, AccountId FROM Contact ORDER BY Id LIMIT ${n}`),
    soql('opportunity', `SELECT Id, Name, AccountId, StageName, Amount, CurrencyIsoCode, CloseDate, DiscountPercent, IsClosed FROM Opportunity ORDER BY Id LIMIT ${n}`),
    soql('case', `SELECT Id, CaseNumber, AccountId, ContactId, Subject, Status, Priority, Tier FROM Case ORDER BY Id LIMIT ${n}`),
    { pool: 'user', tool: 'list_users', args: {}, rows: (r) => r.records },
  ],
  // Journals are sampled from the current period (JUN-26), where posting and reversing are allowed.
  'oracle-ebs-sandbox': (n) => [
    { pool: 'customer', tool: 'find_customers', args: { limit: Math.min(n, 200) }, rows: (r) => r.customers },
    { pool: 'invoice', tool: 'search_invoices', args: { limit: Math.min(n, 500) }, rows: (r) => r.invoices },
    { pool: 'open_invoice', tool: 'search_invoices', args: { status: 'OP', limit: Math.min(n, 500) }, rows: (r) => r.invoices },
    { pool: 'period', tool: 'get_period_status', args: { year: 2026 }, rows: (r) => r.periods },
    { pool: 'code_combination', tool: 'list_code_combinations', args: {}, rows: (r) => r.codeCombinations },
    { pool: 'unposted_journal', tool: 'search_journals', args: { status: 'U', limit: Math.min(n, 500) }, rows: (r) => r.journals },
    { pool: 'posted_journal', tool: 'search_journals', args: { status: 'P', periodName: 'JUN-26', limit: Math.min(n, 500) }, rows: (r) => r.journals },
  ],
};

/** Call each probe of the connected sandbox and collect the pools. Fails naming the tool that failed. */
export async function sampleEntities(client: Client, limit = 200): Promise<EntityPools> {
  const server = client.getServerVersion()?.name ?? '';
  const probes = PROBES[server];
  if (!probes) throw new Error(`no entity probes for MCP server "${server}" (known: ${Object.keys(PROBES).join(', ')})`);
  const pools: EntityPools = {};
  for (const probe of probes(limit)) {
    const res = await client.callTool({ name: probe.tool, arguments: probe.args });
    const content = res.structuredContent as { result?: unknown; error?: { code: string; message: string } } | undefined;
    if (res.isError || !content?.result) throw new Error(`sampling ${probe.pool} via ${probe.tool} failed: ${content?.error?.code ?? 'no result'} ${content?.error?.message ?? ''}`.trim());
    pools[probe.pool] = probe.rows(content.result);
  }
  return pools;
}
