import type { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { cliType, SEARCH_ATTRIBUTES } from '../workflows/contract/search-attributes.js';

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
    .map(
      (n) =>
        `temporal operator search-attribute create --namespace ${namespace} --name ${n} --type ${cliType(SEARCH_ATTRIBUTES.find((k) => k.name === n)!)}`,
    )
    .join('\n');
}

/**
 * For our own dev server only: add what an older history file lacks (start-dev registers search attributes
 * only when it creates the file). A real cluster's attributes are its operators' to create.
 */
export async function addMissingSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length === 0) return [];
  // temporal.api.enums.v1.IndexedValueType: KEYWORD = 2, KEYWORD_LIST = 7.
  const searchAttributes = Object.fromEntries(
    missing.map((n) => [
      n,
      SEARCH_ATTRIBUTES.find((k) => k.name === n)!.type === SearchAttributeType.KEYWORD_LIST ? 7 : 2,
    ]),
  );
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return missing;
}
