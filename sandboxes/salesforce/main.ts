/** The Salesforce sandbox: an MCP server over SQLite. `--help` lists the options. */
import { isEntryPoint, runSandbox, type SandboxDefinition } from '../common/serve.js';
import { salesforceModel } from './data.js';
import { readTools } from './tools-read.js';
import { writeTools } from './tools-write.js';

export const salesforceSandbox: SandboxDefinition = {
  name: 'salesforce-sandbox',
  version: '0.1.0',
  instructions:
    'A sandboxed replica of a Salesforce org (Accounts, Contacts, Opportunities, Cases, Users/queues) on SQLite. ' +
    'Every write tool accepts _meta.dryRun=true: it runs in a rolled-back transaction and returns the rows it would change. ' +
    'A call may narrow its scopes with _meta.scopes. Errors carry a stable code in structuredContent.error.code.',
  model: salesforceModel,
  tools: [...readTools, ...writeTools],
  today: '2026-06-15',
};

if (isEntryPoint(import.meta.url)) await runSandbox(salesforceSandbox);
