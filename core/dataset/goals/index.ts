import type { Goal } from '../types.js';
import { oracleEbsGoals } from './oracle-ebs.js';
import { salesforceGoals } from './salesforce.js';

/** Default goal templates by the MCP server's own name (serverInfo.name), so any config name works. */
export const GOALS_BY_SERVER: Record<string, Goal[]> = {
  'salesforce-sandbox': salesforceGoals,
  'oracle-ebs-sandbox': oracleEbsGoals,
};
