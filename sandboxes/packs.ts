import type { DomainPack } from '../core/dataset/packs.js';
import { oracleEbsPack } from './oracle-ebs/pack.js';
import { salesforcePack } from './salesforce/pack.js';

/** The domain packs this project ships, one per sandbox; workers hand them to the dataset stages. */
export const DOMAIN_PACKS: readonly DomainPack[] = [salesforcePack, oracleEbsPack];
