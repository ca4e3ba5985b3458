import type { Connection } from '@temporalio/client';
import { cliType, SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/**
 * Workflows upsert our search attributes; on a namespace without them every workflow task would fail
 * and retry forever. Check once at worker start and say how to fix it.
 */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const res = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set([...Object.keys(res.customAttributes ?? {}), ...Object.keys(res.systemAttributes ?? {})]);
  return SEARCH_ATTRIBUTES.map((k) => k.name).filter((n) => !have.has(n));
}

export function searchAttributeFix(missing: string[], namespace: string): string {
  return missing
    .map((n) => `temporal operator search-attribute create --namespace ${namespace} --name ${n} --type ${cliType(SEARCH_ATTRIBUTES.find((k) => k.name === n)!)}`)
    .join('\n');
}
