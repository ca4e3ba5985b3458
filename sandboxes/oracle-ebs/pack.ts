import type { DomainPack } from '../../core/dataset/packs.js';
import { oracleEbsGoals } from './goals.js';

/** The Oracle EBS sandbox's domain pack: goals for every tool, AR and GL personas, near-domain asks. */
export const oracleEbsPack: DomainPack = {
  server: 'oracle-ebs-sandbox',
  goals: oracleEbsGoals,
  // Scopes mirror the tools' _meta.scopes.
  personas: [
    { name: 'ar-clerk', scopes: ['ebs.ar.read', 'ebs.ar.write'] },
    { name: 'gl-accountant', scopes: ['gl.read', 'gl.journal.write'] },
    { name: 'controller', scopes: ['ebs.ar.read', 'gl.read', 'gl.journal.write', 'gl.post'] },
    {
      name: 'ebs-admin',
      scopes: ['ebs.ar.read', 'ebs.ar.write', 'ebs.ar.admin', 'gl.read', 'gl.journal.write', 'gl.post', 'ebs.admin'],
    },
  ],
  unsatisfiable: [
    'Wire the refund to the customer bank account today.',
    'Email the overdue customers a dunning letter.',
    'Convert this invoice into a purchase order for the supplier.',
    'Pay the supplier invoice from AP.',
    'Run payroll for June.',
    'Upload the signed contract to the customer record.',
    'Change the functional currency of the ledger to EUR.',
    'Send the aging report to the CFO by email.',
  ],
  // Journals are sampled from the current period (JUN-26), where posting and reversing are allowed.
  probes: (n) => [
    { pool: 'customer', tool: 'find_customers', args: { limit: Math.min(n, 200) }, rows: (r) => r.customers },
    { pool: 'invoice', tool: 'search_invoices', args: { limit: Math.min(n, 500) }, rows: (r) => r.invoices },
    {
      pool: 'open_invoice',
      tool: 'search_invoices',
      args: { status: 'OP', limit: Math.min(n, 500) },
      rows: (r) => r.invoices,
    },
    { pool: 'period', tool: 'get_period_status', args: { year: 2026 }, rows: (r) => r.periods },
    { pool: 'code_combination', tool: 'list_code_combinations', args: {}, rows: (r) => r.codeCombinations },
    {
      pool: 'unposted_journal',
      tool: 'search_journals',
      args: { status: 'U', limit: Math.min(n, 500) },
      rows: (r) => r.journals,
    },
    {
      pool: 'posted_journal',
      tool: 'search_journals',
      args: { status: 'P', periodName: 'JUN-26', limit: Math.min(n, 500) },
      rows: (r) => r.journals,
    },
  ],
};
