import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes operators filter runs by in the Temporal UI. The dev-server command registers
 * exactly these; on a cluster create them once with `temporal operator search-attribute create`.
 */
export const FLYWHEEL_STAGE = defineSearchAttributeKey('FlywheelStage', SearchAttributeType.KEYWORD);
export const DATASET_SHA = defineSearchAttributeKey('DatasetSha', SearchAttributeType.KEYWORD);
export const ADAPTER_VERSION = defineSearchAttributeKey('AdapterVersion', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [FLYWHEEL_STAGE, DATASET_SHA, ADAPTER_VERSION];
