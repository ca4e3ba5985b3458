/** The Oracle E-Business Suite sandbox (AR + GL): an MCP server over SQLite. `--help` lists the options. */
import { isEntryPoint, runSandbox, type SandboxDefinition } from '../common/serve.js';
import { EBS_TODAY, oracleEbsModel } from './data.js';
import { readTools } from './tools-read.js';
import { writeTools } from './tools-write.js';

export const oracleEbsSandbox: SandboxDefinition = {
  name: 'oracle-ebs-sandbox',
  version: '0.1.0',
  instructions:
    'A sandboxed replica of Oracle E-Business Suite Receivables and General Ledger (HZ parties and accounts, AR invoices, ' +
    'payment schedules, receipts, GL periods, code combinations, journals) on SQLite. Every write tool accepts _meta.dryRun=true: ' +
    'it runs in a rolled-back transaction and returns the rows it would change. Errors carry a stable code in structuredContent.error.code.',
  model: oracleEbsModel,
  tools: [...readTools, ...writeTools],
  today: EBS_TODAY,
};

if (isEntryPoint(import.meta.url)) await runSandbox(oracleEbsSandbox);
