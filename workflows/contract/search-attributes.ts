import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes operators filter runs by in the Temporal UI. The dev-server command registers
 * exactly these; on a cluster create them once with `temporal operator search-attribute create`.
 */
export const FLYWHEEL_STAGE = defineSearchAttributeKey('FlywheelStage', SearchAttributeType.KEYWORD);
export const DATASET_SHA = defineSearchAttributeKey('DatasetSha', SearchAttributeType.KEYWORD);
export const ADAPTER_VERSION = defineSearchAttributeKey('AdapterVersion', SearchAttributeType.KEYWORD);

/** The servers (domains) a run's config covers: filter with Domain = 'salesforce'. */
export const DOMAIN = defineSearchAttributeKey('Domain', SearchAttributeType.KEYWORD_LIST);
/** Who started it: cli, ui, demo, schedule:<name>, script… */
export const TRIGGER = defineSearchAttributeKey('Trigger', SearchAttributeType.KEYWORD);
/** The version a run deployed (alias@…): filter with DeployedVersion STARTS_WITH 'router@'. */
export const DEPLOYED_VERSION = defineSearchAttributeKey('DeployedVersion', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [FLYWHEEL_STAGE, DATASET_SHA, ADAPTER_VERSION, DOMAIN, TRIGGER, DEPLOYED_VERSION];

/** The type name the `temporal` CLI takes (`--type` / `--search-attribute NAME=TYPE`). */
export function cliType(key: (typeof SEARCH_ATTRIBUTES)[number]): string {
  return key.type === SearchAttributeType.KEYWORD_LIST ? 'KeywordList' : 'Keyword';
}
