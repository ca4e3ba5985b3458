import * as wf from '@temporalio/workflow';
import type * as activities from './bench-activities.js';

const { emptyStage } = wf.proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** A run made only of empty stages: what orchestration costs when the stage itself costs nothing. */
export async function emptyStages(n: number): Promise<number> {
  for (let i = 0; i < n; i++) await emptyStage(i);
  return n;
}
